// <tvm/ffi/cast.h>: GetRef and GetObjectPtr, at the reference's include path. Forwards to
// <ffi/cast.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written
// for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_CAST_H_
#define FFI_FORWARD_TVM_FFI_CAST_H_

#include <ffi/cast.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CAST_H_
