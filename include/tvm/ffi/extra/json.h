// <tvm/ffi/extra/json.h>: JSON parsing and printing, at the reference's include path. Forwards to
// <ffi/extra/json.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_JSON_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_JSON_H_

#include <ffi/extra/json.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_JSON_H_
