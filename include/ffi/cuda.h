/*
 * ffi/cuda.h - CUDA helpers for kernel libraries: an error check that throws ffi::Error, an
 * allocator for Tensor::FromNDAlloc, the environment's current cudaStream_t and a device guard.
 *
 * Only for translation units that can see the CUDA runtime headers: .cu files compiled by nvcc,
 * or C++ files compiled with the CUDA include directory (e.g. linked to CMake's CUDA::cudart).
 * Code using it links the CUDA runtime (libcudart). ffi.h does not include this header, so the
 * rest of the API never depends on CUDA.
 *
 *   void AddOne(ffi::TensorView x, ffi::TensorView y) {
 *     ffi::CUDADeviceGuard guard(x.device());
 *     AddOneKernel<<<blocks, threads, 0, ffi::GetCurrentCUDAStream(x.device())>>>(...);
 *     FFI_CUDA_CHECK(cudaGetLastError());
 *   }
 */
#ifndef FFI_CUDA_H_
#define FFI_CUDA_H_

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "env.h"
#include "error.h"
#include "tensor.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {
/*!
 * \brief "CUDA call `<call>` failed: <error name>: <error text>". Also clears the thread's last
 * CUDA error so that a later cudaGetLastError() does not report the same failure again.
 */
inline std::string CUDAErrorText(const char* call, cudaError_t err) {
  (void)cudaGetLastError();
  return std::string("CUDA call `") + call + "` failed: " + cudaGetErrorName(err) + ": " +
         cudaGetErrorString(err);
}
}  // namespace detail

/*!
 * \brief Evaluates `expr`, a cudaError_t, and throws an ffi::Error of kind RuntimeError unless it
 * is cudaSuccess. The message names the call and the CUDA error, e.g.
 * "CUDA call `cudaMalloc(&ptr, n)` failed: cudaErrorNoDevice: no CUDA-capable device is detected".
 * More context may be streamed: `FFI_CUDA_CHECK(cudaMemcpy(...)) << " while copying x";`.
 */
#define FFI_CUDA_CHECK(expr)                                                          \
  if (cudaError_t _ffi_cuda_err = (expr); FFI_LIKELY(_ffi_cuda_err == cudaSuccess)) { \
  } else                                                                              \
    FFI_THROW(RuntimeError) << ::ffi::detail::CUDAErrorText(#expr, _ffi_cuda_err)

/*!
 * \brief The host's current CUDA stream for `device` (TVMFFIEnvGetStream), e.g. PyTorch's current
 * stream during a call from PyTorch. nullptr is the legacy default stream.
 */
inline cudaStream_t GetCurrentCUDAStream(DLDevice device) {
  return static_cast<cudaStream_t>(GetCurrentStream(device));
}

/*!
 * \brief Makes a CUDA device current for the guard's lifetime, then restores the previous one:
 * `{ ffi::CUDADeviceGuard guard(x.device()); launch(...); }`. The constructor throws (through
 * FFI_CUDA_CHECK) when the device cannot be selected; restoring never throws.
 */
class CUDADeviceGuard {
 public:
  /*! \brief Makes device `device_id` current. */
  explicit CUDADeviceGuard(int device_id) {
    FFI_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device_id) {
      FFI_CUDA_CHECK(cudaSetDevice(device_id));
      changed_ = true;
    }
  }
  /*! \brief Makes `device.device_id` current. */
  explicit CUDADeviceGuard(DLDevice device) : CUDADeviceGuard(device.device_id) {}
  /*! \brief Restores the previous device (errors are ignored: a destructor must not throw). */
  ~CUDADeviceGuard() {
    if (changed_ && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
  }
  CUDADeviceGuard(const CUDADeviceGuard&) = delete;
  CUDADeviceGuard& operator=(const CUDADeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

/*!
 * \brief Allocator for Tensor::FromNDAlloc giving device memory (cudaMalloc) on the tensor's
 * CUDA device: `ffi::Tensor::FromNDAlloc(ffi::CUDANDAlloc(), {3, 4}, dtype, DLDevice{kDLCUDA, 0})`.
 * Allocation failures throw RuntimeError naming the CUDA call; see FFI_CUDA_CHECK.
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

#endif  // FFI_CUDA_H_
