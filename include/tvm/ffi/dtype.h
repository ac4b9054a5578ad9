// <tvm/ffi/dtype.h>: dtype strings, at the reference's include path. Forwards to <ffi/dtype.h> and
// the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the
// reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_DTYPE_H_
#define FFI_FORWARD_TVM_FFI_DTYPE_H_

#include <ffi/dtype.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_DTYPE_H_
