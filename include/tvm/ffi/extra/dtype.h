// <tvm/ffi/extra/dtype.h>: dtype_trait<T> (the DLPack dtype of a C++ element type), at the
// reference's include path. Forwards to <ffi/extra/dtype.h> and the tvm::ffi / TVM_FFI_*
// vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_DTYPE_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_DTYPE_H_

#include <ffi/extra/dtype.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_DTYPE_H_
