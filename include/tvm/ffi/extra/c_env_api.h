// <tvm/ffi/extra/c_env_api.h>: the environment hooks (streams, allocation, signals), at the
// reference's include path. In C, the C declarations (<ffi/c_env_api.h>); in C++, also
// <ffi/call_context.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_C_ENV_API_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_C_ENV_API_H_

#include <ffi/c_env_api.h>
#ifdef __cplusplus
#include <ffi/call_context.h>
#include <tvm/ffi/tvm_compat.h>
#endif

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_C_ENV_API_H_
