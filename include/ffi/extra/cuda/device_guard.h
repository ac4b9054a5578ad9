/*
 * ffi/extra/cuda/device_guard.h - CUDADeviceGuard: makes a CUDA device current for a scope.
 *
 *   void AddOne(ffi::TensorView x, ffi::TensorView y) {
 *     ffi::CUDADeviceGuard guard(x.device());
 *     AddOneKernel<<<blocks, threads, 0, ffi::GetCurrentCUDAStream(x.device())>>>(...);
 *     FFI_CUDA_CHECK(cudaGetLastError());
 *   }
 *
 * CUDA code only (see base.h).
 */
#ifndef FFI_EXTRA_CUDA_DEVICE_GUARD_H_
#define FFI_EXTRA_CUDA_DEVICE_GUARD_H_

#include "../../dlpack.h"
#include "base.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

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

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_CUDA_DEVICE_GUARD_H_
