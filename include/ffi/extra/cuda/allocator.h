/*
 * ffi/extra/cuda/allocator.h - CUDANDAlloc: device memory for Tensor::FromNDAlloc.
 *
 *   ffi::Tensor t = ffi::Tensor::FromNDAlloc(ffi::CUDANDAlloc(), {3, 4}, dtype, DLDevice{kDLCUDA,
 * 0});
 *
 * CUDA code only (see base.h).
 */
#ifndef FFI_EXTRA_CUDA_ALLOCATOR_H_
#define FFI_EXTRA_CUDA_ALLOCATOR_H_

#include <cstdio>

#include "../../tensor.h"
#include "base.h"
#include "device_guard.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief Allocator for Tensor::FromNDAlloc giving device memory (cudaMalloc) on the tensor's
 * CUDA device. Allocation failures throw RuntimeError naming the CUDA call; see FFI_CUDA_CHECK.
 */
struct CUDANDAlloc {
  /*!
   * \brief Sets `tensor->data` to GetDataSize(*tensor) bytes of memory on its device; a size that
   * does not fit in 64 bits is refused first (see GetDataSize).
   */
  void AllocData(DLTensor* tensor) {
    if (tensor->device.device_type != kDLCUDA) {
      FFI_THROW(ValueError) << "CUDANDAlloc allocates on CUDA devices, but the tensor is on "
                            << tensor->device;
    }
    // Sized before CUDA is touched: a shape whose bytes overflow is an OverflowError (a negative
    // extent a ValueError) from GetDataSize, never a wrapped, tiny cudaMalloc.
    size_t bytes = GetDataSize(*tensor);
    CUDADeviceGuard guard(tensor->device.device_id);
    void* ptr = nullptr;
    FFI_CUDA_CHECK(cudaMalloc(&ptr, bytes));
    tensor->data = ptr;
  }
  /*!
   * \brief Frees the memory (cudaFree). Runs while a tensor is destroyed, so it never throws: a
   * failure is printed to stderr, except the one at process exit when CUDA has already unloaded.
   */
  void FreeData(DLTensor* tensor) noexcept {
    if (tensor->data == nullptr) return;
    cudaError_t err = cudaFree(tensor->data);
    tensor->data = nullptr;
    if (err == cudaSuccess) return;
    (void)cudaGetLastError();
    if (err != cudaErrorCudartUnloading) {
      std::fprintf(stderr, "ffi::CUDANDAlloc: cudaFree failed: %s: %s\n", cudaGetErrorName(err),
                   cudaGetErrorString(err));
    }
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_CUDA_ALLOCATOR_H_
