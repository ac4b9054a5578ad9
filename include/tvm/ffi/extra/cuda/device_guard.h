// <tvm/ffi/extra/cuda/device_guard.h>: CUDADeviceGuard at the reference's include path; CUDA code
// only. Forwards to <ffi/extra/cuda/device_guard.h> and the tvm::ffi vocabulary.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_

#include <ffi/extra/cuda/device_guard.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_
