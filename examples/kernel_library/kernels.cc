// A small kernel library in the style of seed 004: tensors arrive as ffi::TensorView, an optional
// input as ffi::Optional<ffi::Tensor>, the output and a scratch workspace are allocated by the
// caller, and every argument is checked (dtype, device, shape) with a clear error.
//
//   scale_add(input, bias, output, workspace)   output = 2 * input (+ bias), float32 on the CPU
//   scale_add_alloc(input, bias) -> Tensor       the same, allocating the output and workspace
//                                                through the host's allocator (FromEnvAlloc)
//
// The library needs only the headers (CMake: ffi::headers); the runtime symbols it uses resolve
// when a host (Python's `ffi`, or a C++ program linking ffi::runtime) loads it.
#include <ffi/ffi.h>

namespace {

constexpr DLDataType kFloat32{kDLFloat, 32, 1};

// Checks that a tensor is a compact float32 CPU tensor; `name` appears in the error.
void CheckFloat32CPU(const ffi::TensorView& t, const char* name) {
  if (t.dtype() != kFloat32) {
    FFI_THROW(TypeError) << name << " must be float32, got " << t.dtype();
  }
  if (t.device().device_type != kDLCPU) {
    FFI_THROW(ValueError) << name << " must be on the CPU, got " << t.device();
  }
  if (!t.IsContiguous()) {
    FFI_THROW(ValueError) << name << " must be contiguous, got strides " << t.strides();
  }
}

const float* ConstData(const ffi::TensorView& t) {
  return reinterpret_cast<const float*>(static_cast<const char*>(t.data_ptr()) + t.byte_offset());
}

float* MutableData(const ffi::TensorView& t) {
  return reinterpret_cast<float*>(static_cast<char*>(t.data_ptr()) + t.byte_offset());
}

void ScaleAdd(ffi::TensorView input, ffi::Optional<ffi::Tensor> bias, ffi::TensorView output,
              ffi::TensorView workspace) {
  CheckFloat32CPU(input, "input");
  CheckFloat32CPU(output, "output");
  CheckFloat32CPU(workspace, "workspace");
  if (output.shape() != input.shape()) {
    FFI_THROW(ValueError) << "output shape " << output.shape() << " must equal input shape "
                          << input.shape();
  }
  if (workspace.numel() < input.numel()) {
    FFI_THROW(ValueError) << "workspace needs at least " << input.numel() << " elements, got "
                          << workspace.numel();
  }
  const int64_t n = input.numel();
  // Pass 1: the scaled input goes to the workspace (so output may alias input or bias).
  const float* x = ConstData(input);
  float* ws = MutableData(workspace);
  for (int64_t i = 0; i < n; ++i) ws[i] = 2.0f * x[i];
  // Pass 2: add the bias when there is one.
  if (bias.has_value()) {
    ffi::TensorView b = *bias;
    CheckFloat32CPU(b, "bias");
    if (b.shape() != input.shape()) {
      FFI_THROW(ValueError) << "bias shape " << b.shape() << " must equal input shape "
                            << input.shape();
    }
    const float* pb = ConstData(b);
    for (int64_t i = 0; i < n; ++i) ws[i] += pb[i];
  }
  float* y = MutableData(output);
  for (int64_t i = 0; i < n; ++i) y[i] = ws[i];
}

// Returns a new tensor. TVMFFIEnvTensorAlloc uses the host's allocator: PyTorch's when called
// with PyTorch tensors, otherwise the runtime's aligned CPU allocator.
ffi::Tensor ScaleAddAlloc(ffi::TensorView input, ffi::Optional<ffi::Tensor> bias) {
  CheckFloat32CPU(input, "input");
  ffi::Tensor output =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, input.shape(), kFloat32, input.device());
  ffi::Tensor workspace =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {input.numel()}, kFloat32, input.device());
  ScaleAdd(input, bias, output, workspace);
  return output;
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(scale_add, ScaleAdd);
FFI_DLL_EXPORT_TYPED_FUNC(scale_add_alloc, ScaleAddAlloc);
