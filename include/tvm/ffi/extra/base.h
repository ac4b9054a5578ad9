// <tvm/ffi/extra/base.h>: the base of the reference's extra headers, at its include path: the C ABI
// and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), which defines
// TVM_FFI_EXTRA_CXX_API.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_BASE_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_BASE_H_

#include <ffi/c_api.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_BASE_H_
