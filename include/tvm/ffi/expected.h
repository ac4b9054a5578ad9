// <tvm/ffi/expected.h>: Expected<T>, at the reference's include path. Forwards to
// <ffi/expected.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXPECTED_H_
#define FFI_FORWARD_TVM_FFI_EXPECTED_H_

#include <ffi/expected.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXPECTED_H_
