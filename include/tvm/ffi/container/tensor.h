// <tvm/ffi/container/tensor.h>: Tensor and TensorView, at the reference's include path. Forwards to
// <ffi/tensor.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_TENSOR_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_TENSOR_H_

#include <ffi/container/array.h>  // the reference's tensor.h brings Array
#include <ffi/tensor.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_TENSOR_H_
