// Seed 003 ("Inline Kernel and Agentic Flow"): the CUDA source the seed compiles inline, with
// add_one_cuda exported as the seed's `functions=["add_one_cuda"]` would. Only the include lines
// and the parts the seed elides ("// Kernel Impl", "...") are ours. Built by nvcc into the
// seed_cuda_kernels library and loaded by tests/cpp/test_seeds.cc.
#include <cuda_runtime.h>
#include <tvm/ffi/tvm_compat.h>

__global__ void AddOneKernel(float* x, float* y, int n) {
  // Kernel Impl
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1;
}

void add_one_cuda(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  TVM_FFI_ICHECK(x.ndim() == 1) << "x must be a 1D tensor";
  // ... implementation of a library function
  TVM_FFI_ICHECK(y.ndim() == 1 && y.size(0) == x.size(0)) << "y must match x";
  int64_t nthread_per_block = 256, n = x.size(0);
  int64_t nblock = (n + nthread_per_block - 1) / nthread_per_block;
  cudaStream_t stream =
      static_cast<cudaStream_t>(TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
  AddOneKernel<<<nblock, nthread_per_block, 0, stream>>>(static_cast<float*>(x.data_ptr()),
                                                         static_cast<float*>(y.data_ptr()), n);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cuda, add_one_cuda);
