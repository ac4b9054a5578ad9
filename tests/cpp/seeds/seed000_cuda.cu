// Seed 000 ("Tensor and DLPack"), CUDA parts, written as the seed writes them; only the include
// line is ours. Built by nvcc into the seed_cuda_kernels library (when CMake finds a CUDA
// compiler) and loaded by tests/cpp/test_seeds.cc.
//   - MyKernel with the `Kernel<<<...>>>` launch (the seed elides the launch arguments).
//   - The CUDANDAlloc custom allocator and the FromNDAlloc call using it.
//   - Reading the current stream with TVMFFIEnvGetStream.
#include <cuda_runtime.h>
#include <tvm/ffi/tvm_compat.h>

// ---- Common pattern ----

// The kernel the seed launches: output = 2 * input.
__global__ void Kernel(int64_t n, const float* input, float* output) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) output[i] = 2.0f * input[i];
}

void MyKernel(tvm::ffi::TensorView input, tvm::ffi::TensorView output) {
  // Validate dtype & device
  if (input.dtype() != DLDataType{kDLFloat, 32, 1})
    TVM_FFI_THROW(TypeError) << "Expect float32 input, but got " << input.dtype();
  if (input.device() != DLDevice{kDLCUDA, 0})
    TVM_FFI_THROW(ValueError) << "Expect input on CUDA:0, but got " << input.device();
  // Access data pointer
  float* input_data_ptr = static_cast<float*>(input.data_ptr());
  float* output_data_ptr = static_cast<float*>(output.data_ptr());
  int64_t n = input.numel();
  Kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, input_data_ptr, output_data_ptr);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(my_kernel_cuda, MyKernel);

// ---- Allocation in C++: Custom Allocator ----

struct CUDANDAlloc {
  void AllocData(DLTensor* tensor) {
    size_t data_size = ffi::GetDataSize(*tensor);
    void* ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, data_size);
    TVM_FFI_ICHECK_EQ(err, cudaSuccess) << "cudaMalloc failed: " << cudaGetErrorString(err);
    tensor->data = ptr;
  }

  void FreeData(DLTensor* tensor) {
    if (tensor->data != nullptr) {
      cudaError_t err = cudaFree(tensor->data);
      TVM_FFI_ICHECK_EQ(err, cudaSuccess) << "cudaFree failed: " << cudaGetErrorString(err);
      tensor->data = nullptr;
    }
  }
};

ffi::Tensor AllocCUDATensor() {
  ffi::Tensor cuda_tensor = ffi::Tensor::FromNDAlloc(CUDANDAlloc(),
                                                     /*shape=*/{3, 4, 5},
                                                     /*dtype=*/DLDataType({kDLFloat, 32, 1}),
                                                     /*device=*/DLDevice({kDLCUDA, 0}));
  return cuda_tensor;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(alloc_cuda_tensor, AllocCUDATensor);

// ---- Stream Handling in C++ ----

// The seed's `void func(ffi::TensorView input, ...)`; returns the stream so a test can see it.
void* func(ffi::TensorView input) {
  ffi::DLDevice device = input.device();
  cudaStream_t stream =
      reinterpret_cast<cudaStream_t>(TVMFFIEnvGetStream(device.device_type, device.device_id));
  return stream;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(current_stream, func);
