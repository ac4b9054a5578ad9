// <tvm/ffi/c_api.h>: the stable C ABI, at the reference's include path. Forwards to <ffi/c_api.h>
// and, in C++, to the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written
// for the reference's headers compile unchanged. Valid C, as the reference's header is.
#ifndef FFI_FORWARD_TVM_FFI_C_API_H_
#define FFI_FORWARD_TVM_FFI_C_API_H_

#include <ffi/c_api.h>
#ifdef __cplusplus
#include <tvm/ffi/tvm_compat.h>
#endif

#endif  // FFI_FORWARD_TVM_FFI_C_API_H_
