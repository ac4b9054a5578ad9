// A CUDA kernel library written with the helpers of <ffi/extra/cuda/>, built by nvcc (when CMake
// finds a CUDA compiler) and loaded by tests/cpp/test_cuda.cc. Like every kernel library it needs
// only the include directory; the runtime symbols resolve when the host loads it.
#include <ffi/extra/cuda/allocator.h>
#include <ffi/extra/cuda/base.h>
#include <ffi/extra/cuda/device_guard.h>
#include <ffi/extra/cuda/stream.h>
#include <ffi/ffi.h>

namespace {

__global__ void AddOneKernel(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

void CheckCUDAVector(const ffi::TensorView& t, const char* name) {
  if (t.dtype() != DLDataType{kDLFloat, 32, 1}) {
    FFI_THROW(TypeError) << "add_one_cuda expects float32 tensors, but " << name << " is "
                         << t.dtype();
  }
  if (t.device().device_type != kDLCUDA) {
    FFI_THROW(ValueError) << "add_one_cuda expects CUDA tensors, but " << name << " is on "
                          << t.device();
  }
  if (t.ndim() != 1 || !t.IsContiguous()) {
    FFI_THROW(ValueError) << "add_one_cuda expects contiguous 1-D tensors, but " << name
                          << " has shape " << t.shape();
  }
}

// y = x + 1 on the host's current stream for x's device.
void AddOneCUDA(ffi::TensorView x, ffi::TensorView y) {
  CheckCUDAVector(x, "x");
  CheckCUDAVector(y, "y");
  if (x.device() != y.device() || x.size(0) != y.size(0)) {
    FFI_THROW(ValueError) << "add_one_cuda: x (" << x.device() << ", " << x.shape() << ") and y ("
                          << y.device() << ", " << y.shape() << ") differ";
  }
  int64_t n = x.size(0);
  if (n == 0) return;
  ffi::CUDADeviceGuard guard(x.device());
  cudaStream_t stream = ffi::GetCurrentCUDAStream(x.device());
  const auto* x_data =
      reinterpret_cast<const float*>(static_cast<char*>(x.data_ptr()) + x.byte_offset());
  auto* y_data = reinterpret_cast<float*>(static_cast<char*>(y.data_ptr()) + y.byte_offset());
  constexpr int kThreads = 256;
  auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  AddOneKernel<<<blocks, kThreads, 0, stream>>>(x_data, y_data, n);
  FFI_CUDA_CHECK(cudaGetLastError());
}

// A float32 vector of `n` elements in device memory on cuda:0.
ffi::Tensor AllocCUDA(int64_t n) {
  return ffi::Tensor::FromNDAlloc(ffi::CUDANDAlloc(), {n}, DLDataType{kDLFloat, 32, 1},
                                  DLDevice{kDLCUDA, 0});
}

// Allocates and frees `n` bytes: the error of a failed call, as FFI_CUDA_CHECK reports it.
void MallocFree(int64_t n) {
  void* ptr = nullptr;
  FFI_CUDA_CHECK(cudaMalloc(&ptr, n));
  FFI_CUDA_CHECK(cudaFree(ptr));
}

// The number of visible CUDA devices; 0 when CUDA cannot be used at all (no driver, no device).
int64_t DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// The current device seen inside a CUDADeviceGuard for `device_id`.
int64_t DeviceInGuard(int64_t device_id) {
  ffi::CUDADeviceGuard guard(static_cast<int>(device_id));
  int current = -1;
  FFI_CUDA_CHECK(cudaGetDevice(&current));
  return current;
}

// The stream GetCurrentCUDAStream reports for `device` (set by the host around the call).
void* CurrentStream(DLDevice device) { return ffi::GetCurrentCUDAStream(device); }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_one_cuda, AddOneCUDA);
FFI_DLL_EXPORT_TYPED_FUNC(alloc_cuda, AllocCUDA);
FFI_DLL_EXPORT_TYPED_FUNC(malloc_free, MallocFree);
FFI_DLL_EXPORT_TYPED_FUNC(device_count, DeviceCount);
FFI_DLL_EXPORT_TYPED_FUNC(device_in_guard, DeviceInGuard);
FFI_DLL_EXPORT_TYPED_FUNC(current_stream, CurrentStream);
