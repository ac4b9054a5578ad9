// A CUDA kernel that is slow on purpose, for tests/python/tensors/test_dlpack_stream_gpu.py: it
// spins on the FFI stream before writing its output, so a consumer on another stream that is not
// ordered after it reads the old contents.
#include <ffi/extra/cuda/base.h>
#include <ffi/ffi.h>

namespace {

__global__ void SpinThenFill(float* out, int64_t n, float value, long long cycles) {
  if (threadIdx.x == 0) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = value;
}

/*! \brief Spins about `milliseconds` on this thread's FFI stream, then fills `out` with `value`. */
void SpinFill(ffi::TensorView out, double value, int64_t milliseconds) {
  FFI_CHECK(out.device().device_type == kDLCUDA, ValueError) << "out must be a CUDA tensor";
  FFI_CHECK(out.dtype().code == kDLFloat && out.dtype().bits == 32, TypeError)
      << "out must be float32";
  FFI_CHECK(out.IsContiguous(), ValueError) << "out must be contiguous";
  int device = out.device().device_id;
  int clock_khz = 0;
  FFI_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device));
  SpinThenFill<<<1, 256, 0, stream>>>(static_cast<float*>(out.data_ptr()), out.numel(),
                                      static_cast<float>(value),
                                      static_cast<long long>(clock_khz) * milliseconds);
  FFI_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(spin_fill, SpinFill);
