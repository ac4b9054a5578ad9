// A CUDA kernel library: y = x + 1 for float32 CUDA tensors, launched on the host's current
// stream (PyTorch's current stream when called from PyTorch), plus a function that asks the CUDA
// runtime how many devices there are. Built by run.py with ffi.cpp.build(cuda_files=[...]).
#include <cuda_runtime.h>
#include <ffi/extra/cuda/base.h>
#include <ffi/extra/cuda/device_guard.h>
#include <ffi/ffi.h>

namespace {

__global__ void AddOneKernel(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  if (x.dtype() != DLDataType{kDLFloat, 32, 1} || y.dtype() != x.dtype()) {
    FFI_THROW(TypeError) << "x and y must be float32, got " << x.dtype() << " and " << y.dtype();
  }
  if (x.device().device_type != kDLCUDA || y.device() != x.device()) {
    FFI_THROW(ValueError) << "x and y must be on the same CUDA device, got " << x.device()
                          << " and " << y.device();
  }
  if (x.shape() != y.shape()) {
    FFI_THROW(ValueError) << "y must have x's shape " << x.shape() << ", got " << y.shape();
  }
  if (!x.IsContiguous() || !y.IsContiguous()) FFI_THROW(ValueError) << "contiguous tensors only";
  const int64_t n = x.numel();
  if (n == 0) return;
  ffi::CUDADeviceGuard guard(x.device());
  // The host's current stream for this device: set by the caller (PyTorch's current stream).
  auto stream =
      static_cast<cudaStream_t>(TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  AddOneKernel<<<blocks, kThreads, 0, stream>>>(
      reinterpret_cast<const float*>(static_cast<const char*>(x.data_ptr()) + x.byte_offset()),
      reinterpret_cast<float*>(static_cast<char*>(y.data_ptr()) + y.byte_offset()), n);
  FFI_CUDA_CHECK(cudaGetLastError());
}

int64_t DeviceCount() {
  int count = 0;
  FFI_CUDA_CHECK(cudaGetDeviceCount(&count));
  return count;
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
FFI_DLL_EXPORT_TYPED_FUNC(device_count, DeviceCount);
