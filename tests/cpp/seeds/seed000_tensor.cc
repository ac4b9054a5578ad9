// Seed 000 ("Tensor and DLPack"), CPU parts, written as the seed writes them; only the include
// line is ours. Part of the seed_kernels library that tests/cpp/test_seeds.cc loads.
//   - MyKernel: dtype/device validation with TVM_FFI_THROW, then the data pointers. The seed
//     launches a CUDA `Kernel<<<...>>>`; this CPU variant calls a CPU `Kernel` and checks for
//     the CPU device (seed000_cuda.cu has the CUDA original).
//   - Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ...) returning a tensor across the ABI.
//   - The C conversions between TVMFFIAny and tensors, used by two raw safe-call functions.
#include <tvm/ffi/tvm_compat.h>

#include <cstdint>

// ---- Common pattern (C++ APIs) ----

// The computation the seed launches on the GPU; here on the CPU: output = 2 * input.
static void Kernel(int64_t n, const float* input, float* output) {
  for (int64_t i = 0; i < n; ++i) output[i] = 2.0f * input[i];
}

void MyKernel(tvm::ffi::TensorView input, tvm::ffi::TensorView output) {
  // Validate dtype & device
  if (input.dtype() != DLDataType{kDLFloat, 32, 1})
    TVM_FFI_THROW(TypeError) << "Expect float32 input, but got " << input.dtype();
  if (input.device() != DLDevice{kDLCPU, 0})
    TVM_FFI_THROW(ValueError) << "Expect input on CPU, but got " << input.device();
  // Access data pointer
  float* input_data_ptr = static_cast<float*>(input.data_ptr());
  float* output_data_ptr = static_cast<float*>(output.data_ptr());
  Kernel(input.numel(), input_data_ptr, output_data_ptr);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(my_kernel, MyKernel);

// ---- Allocation in C++: Env Allocator ----

using namespace tvm::ffi;  // the seed writes `Tensor` unqualified

Tensor EnvAlloc() {
  Tensor tensor = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc,
                                       /*shape=*/{1, 2, 3},
                                       /*dtype=*/DLDataType({kDLFloat, 32, 1}),
                                       /*device=*/DLDevice({kDLCPU, 0}));
  return tensor;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(env_alloc, EnvAlloc);

// ---- Conversion between TVMFFIAny (the seed's C snippets) ----

#define SUCCESS 0
#define FAILURE -1

// Converts Any/AnyView to DLTensor*
int AnyToDLTensorView(const TVMFFIAny* value, DLTensor** out) {
  if (value->type_index == kTVMFFIDLTensorPtr) {
    *out = (DLTensor*)value->v_ptr;
    return SUCCESS;
  }
  if (value->type_index == kTVMFFITensor) {
    // See Figure 1 for layout of tvm::ffi::TensorObj
    TVMFFIObject* obj = value->v_obj;
    *out = (DLTensor*)((char*)obj + sizeof(TVMFFIObject));
    return SUCCESS;
  }
  return FAILURE;
}

// Converts Any/AnyView to TensorObj*
int AnyToOwnedTensor(const TVMFFIAny* value, TVMFFIObjectHandle* out) {
  if (value->type_index == kTVMFFITensor) {
    *out = (TVMFFIObjectHandle)value->v_obj;
    return SUCCESS;
  }
  return FAILURE;
}

// Converts TensorObj* to AnyView
int TensorToAnyView(TVMFFIObjectHandle tensor, TVMFFIAny* out_any_view) {
  out_any_view->type_index = kTVMFFITensor;
  out_any_view->zero_padding = 0;
  out_any_view->v_obj = (TVMFFIObject*)tensor;
  return SUCCESS;
}

// Converts TensorObj* to Any
int TensorToAny(TVMFFIObjectHandle tensor, TVMFFIAny* out_any) {
  TVMFFIAny any_view;
  int ret = TensorToAnyView(tensor, &any_view);
  if (ret != SUCCESS) {
    return ret;
  }
  TVMFFIObjectIncRef(tensor);
  *out_any = any_view;
  return SUCCESS;
}

// Converts DLTensor* to AnyView
int DLTensorToAnyView(DLTensor* tensor, TVMFFIAny* out) {
  out->type_index = kTVMFFIDLTensorPtr;
  out->zero_padding = 0;
  out->v_ptr = tensor;
  return SUCCESS;
}

// Converts TensorView to AnyView
int TensorViewToAnyView(const tvm::ffi::TensorView& tensor_view, TVMFFIAny* out) {
  return DLTensorToAnyView(tensor_view.GetDLTensorPtr(), out);
}

// Not in the seed: two raw safe-call functions using the conversions above.
// `tensor_ndim(x)`: the number of dimensions of a tensor given either way.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_tensor_ndim(void*, const TVMFFIAny* args,
                                                        int32_t num_args, TVMFFIAny* result) {
  DLTensor* t = nullptr;
  if (num_args != 1 || AnyToDLTensorView(&args[0], &t) != SUCCESS) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "tensor_ndim expects one tensor");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = t->ndim;
  return 0;
}
// `tensor_own(x)`: returns the argument as an owned tensor; only a tensor object can be owned.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_tensor_own(void*, const TVMFFIAny* args,
                                                       int32_t num_args, TVMFFIAny* result) {
  TVMFFIObjectHandle obj = nullptr;
  if (num_args != 1 || AnyToOwnedTensor(&args[0], &obj) != SUCCESS) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "tensor_own expects a Tensor object");
    return -1;
  }
  return TensorToAny(obj, result);
}
