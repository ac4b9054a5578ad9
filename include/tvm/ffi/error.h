// <tvm/ffi/error.h>: Error and the check macros, at the reference's include path. Forwards to
// <ffi/error.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_ERROR_H_
#define FFI_FORWARD_TVM_FFI_ERROR_H_

#include <ffi/error.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_ERROR_H_
