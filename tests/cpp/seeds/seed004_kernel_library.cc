// Seed 004 ("Kernel Library Guide"): the kernel taking an input, an optional input, an output and
// a workspace, declared as the seed declares it; only the include line is ours. The seed gives no
// body; this one computes workspace = 2 * input, output = workspace (+ optional_input), using the
// seed's table of tensor methods. Part of the seed_kernels library.
#include <tvm/ffi/tvm_compat.h>  // `ffi::` below is ::ffi (tvm::ffi is an alias of it)

// Kernel definition
void func(ffi::TensorView input, ffi::Optional<ffi::Tensor> optional_input, ffi::TensorView output,
          ffi::TensorView workspace);

void func(ffi::TensorView input, ffi::Optional<ffi::Tensor> optional_input, ffi::TensorView output,
          ffi::TensorView workspace) {
  ffi::DLDataType f32{kDLFloat, 32, 1};
  TVM_FFI_ICHECK_EQ(input.ndim(), 1) << "input must be 1-D";
  TVM_FFI_ICHECK_EQ(input.dtype(), f32);
  TVM_FFI_ICHECK_EQ(output.dtype(), f32);
  TVM_FFI_ICHECK_EQ(workspace.dtype(), f32);
  TVM_FFI_ICHECK(input.shape() == output.shape()) << "output shape " << output.shape();
  TVM_FFI_ICHECK_GE(workspace.numel(), input.numel()) << "workspace too small";
  TVM_FFI_ICHECK(output.IsContiguous() && workspace.IsContiguous());
  ffi::DLDevice cpu{kDLCPU, 0};
  TVM_FFI_ICHECK_EQ(input.device(), cpu);

  int64_t n = input.size(-1);
  int64_t step = input.stride(0);
  const float* in = reinterpret_cast<const float*>(static_cast<const char*>(input.data_ptr()) +
                                                   input.byte_offset());
  float* ws = static_cast<float*>(workspace.data_ptr());
  float* out = static_cast<float*>(output.data_ptr());
  for (int64_t i = 0; i < n; ++i) ws[i] = 2.0f * in[i * step];
  const float* extra = nullptr;
  if (optional_input.has_value()) {
    const ffi::Tensor& t = optional_input.value();
    TVM_FFI_ICHECK(t.shape() == input.shape()) << "optional_input shape " << t.shape();
    TVM_FFI_ICHECK_EQ(t.dtype(), f32);
    extra = static_cast<const float*>(t.data_ptr());
  }
  for (int64_t i = 0; i < n; ++i) out[i] = ws[i] + (extra ? extra[i] : 0.0f);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(func, func);
