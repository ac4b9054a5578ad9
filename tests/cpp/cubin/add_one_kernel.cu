// Device code only, compiled by nvcc to a cubin and to a fatbin (tests/cpp/CMakeLists.txt) and
// loaded by the cubin launcher: extern "C" keeps the kernel names unmangled.
#include <cstdint>

extern "C" __global__ void add_one(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

// y[i] = x[i] * k, staged through dynamic shared memory (one float per thread of the block).
extern "C" __global__ void scale_via_shared(const float* x, float* y, float k, int64_t n) {
  extern __shared__ float staged[];
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = staged[threadIdx.x] * k;
}
