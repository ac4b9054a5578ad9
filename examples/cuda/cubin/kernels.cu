// Device code only: nvcc compiles it to a fatbin (CMakeLists.txt), never into a host library.
// extern "C" keeps the names the launcher looks up unmangled.
#include <cstdint>

extern "C" __global__ void add_one(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
