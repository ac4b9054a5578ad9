// <tvm/ffi/extra/serialization.h>: JSON graph serialization, at the reference's include path.
// Forwards to <ffi/extra/serialization.h> and the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_SERIALIZATION_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_SERIALIZATION_H_

#include <ffi/extra/serialization.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_SERIALIZATION_H_
