// <tvm/ffi/rvalue_ref.h>: RValueRef, at the reference's include path. Forwards to
// <ffi/rvalue_ref.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_RVALUE_REF_H_
#define FFI_FORWARD_TVM_FFI_RVALUE_REF_H_

#include <ffi/rvalue_ref.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_RVALUE_REF_H_
