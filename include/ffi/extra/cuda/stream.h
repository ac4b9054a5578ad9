/*
 * ffi/extra/cuda/stream.h - GetCurrentCUDAStream: the host's current stream as a cudaStream_t.
 * CUDA code only (see base.h).
 */
#ifndef FFI_EXTRA_CUDA_STREAM_H_
#define FFI_EXTRA_CUDA_STREAM_H_

#include <cuda_runtime.h>

#include "../../call_context.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief The host's current CUDA stream for `device` (TVMFFIEnvGetStream), e.g. PyTorch's current
 * stream during a call from PyTorch. nullptr is the legacy default stream.
 */
inline cudaStream_t GetCurrentCUDAStream(DLDevice device) {
  return static_cast<cudaStream_t>(GetCurrentStream(device));
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_CUDA_STREAM_H_
