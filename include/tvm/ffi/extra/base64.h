// <tvm/ffi/extra/base64.h>: Base64Encode / Base64Decode, at the reference's include path. Forwards
// to <ffi/extra/base64.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_BASE64_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_BASE64_H_

#include <ffi/extra/base64.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_BASE64_H_
