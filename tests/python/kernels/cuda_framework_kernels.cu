// CUDA kernels for tests/python/tensors/test_cuda_frameworks.py: y = x + 1 on float32 CUDA tensors
// from any framework, into a given output or into one allocated through the host's allocator,
// launched on this thread's FFI stream (the caller's current stream when it is PyTorch).
#include <ffi/extra/cuda/base.h>
#include <ffi/extra/cuda/device_guard.h>
#include <ffi/ffi.h>

namespace {

__global__ void AddOneKernel(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

void CheckCudaFloat32(const ffi::TensorView& t, const char* name) {
  FFI_CHECK(t.device().device_type == kDLCUDA, ValueError)
      << name << " must be a CUDA tensor, got one on " << t.device();
  FFI_CHECK((t.dtype() == DLDataType{kDLFloat, 32, 1}), TypeError)
      << name << " must be float32, got " << t.dtype();
  FFI_CHECK(t.IsContiguous(), ValueError) << name << " must be contiguous";
}

void Launch(const ffi::TensorView& x, const ffi::TensorView& y) {
  const int64_t n = x.numel();
  if (n == 0) return;
  ffi::CUDADeviceGuard guard(x.device());
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, x.device().device_id));
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  AddOneKernel<<<blocks, kThreads, 0, stream>>>(
      reinterpret_cast<const float*>(static_cast<const char*>(x.data_ptr()) + x.byte_offset()),
      reinterpret_cast<float*>(static_cast<char*>(y.data_ptr()) + y.byte_offset()), n);
  FFI_CUDA_CHECK(cudaGetLastError());
}

/*! \brief y = x + 1, both float32 CUDA tensors of one shape on one device. */
void AddOne(ffi::TensorView x, ffi::TensorView y) {
  CheckCudaFloat32(x, "x");
  CheckCudaFloat32(y, "y");
  FFI_CHECK(x.device() == y.device(), ValueError)
      << "x and y must be on one device, got " << x.device() << " and " << y.device();
  FFI_CHECK(x.shape() == y.shape(), ValueError)
      << "y must have x's shape " << x.shape() << ", got " << y.shape();
  Launch(x, y);
}

/*! \brief x + 1 in a tensor the host's allocator (TVMFFIEnvTensorAlloc) provides. */
ffi::Tensor AddOneAlloc(ffi::TensorView x) {
  CheckCudaFloat32(x, "x");
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  Launch(x, y);
  return y;
}

/*! \brief The stream TVMFFIEnvGetStream returns for `x`'s device during the call. */
void* StreamOf(ffi::TensorView x) {
  return TVMFFIEnvGetStream(x.device().device_type, x.device().device_id);
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
FFI_DLL_EXPORT_TYPED_FUNC(add_one_alloc, AddOneAlloc);
FFI_DLL_EXPORT_TYPED_FUNC(stream_of, StreamOf);
