// The kernel library the Python tests drive, in the style of a kernel library (seed 004):
// TensorView inputs, Optional<Tensor>, pre-allocated output and workspace, dtype/shape checks.
#include <ffi/ffi.h>

#include <sstream>
#include <string>

namespace {

void CheckFloat32(const ffi::TensorView& t, const char* name) {
  if (t.dtype() != DLDataType{kDLFloat, 32, 1}) {
    FFI_THROW(TypeError) << name << " must be float32, got " << t.dtype();
  }
  if (t.device().device_type != kDLCPU) FFI_THROW(ValueError) << name << " must be on the CPU";
}

// out[i] = 2 * x[i] (+ bias[i]); workspace must hold n floats and is used as scratch.
void ScaleAdd(ffi::TensorView x, ffi::Optional<ffi::Tensor> bias, ffi::TensorView out,
              ffi::TensorView workspace) {
  CheckFloat32(x, "x");
  CheckFloat32(out, "out");
  FFI_ICHECK_EQ(x.ndim(), 1) << "x must be 1-d";
  if (out.shape() != x.shape())
    FFI_THROW(ValueError) << "out shape " << out.shape() << " != " << x.shape();
  if (workspace.numel() < x.numel()) FFI_THROW(ValueError) << "workspace too small";
  const float* px = static_cast<const float*>(x.data_ptr());
  float* ws = static_cast<float*>(workspace.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) ws[i] = 2 * px[i * x.stride(0)];
  if (bias.has_value()) {
    ffi::TensorView b = *bias;
    CheckFloat32(b, "bias");
    for (int64_t i = 0; i < x.numel(); ++i) ws[i] += static_cast<const float*>(b.data_ptr())[i];
  }
  float* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) po[i * out.stride(0)] = ws[i];
}

// A new float32 tensor [0, 1, ..., n-1] allocated through the environment.
ffi::Tensor MakeOutput(int64_t n) {
  ffi::Tensor t = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {n}, DLDataType{kDLFloat, 32, 1},
                                            DLDevice{kDLCPU, 0});
  float* p = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i);
  return t;
}

ffi::Tensor AllocLike(ffi::TensorView x) {
  return ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
}

double SumAny(ffi::TensorView x) {
  FFI_ICHECK(x.IsContiguous()) << "x must be contiguous";
  double s = 0;
  if (x.dtype() == DLDataType{kDLFloat, 32, 1}) {
    for (int64_t i = 0; i < x.numel(); ++i) s += static_cast<const float*>(x.data_ptr())[i];
  } else if (x.dtype() == DLDataType{kDLFloat, 64, 1}) {
    for (int64_t i = 0; i < x.numel(); ++i) s += static_cast<const double*>(x.data_ptr())[i];
  } else if (x.dtype() == DLDataType{kDLInt, 64, 1}) {
    for (int64_t i = 0; i < x.numel(); ++i) s += static_cast<const int64_t*>(x.data_ptr())[i];
  } else {
    FFI_THROW(TypeError) << "unsupported dtype " << x.dtype();
  }
  return s;
}

ffi::Any Echo(ffi::Any v) { return v; }

void Fail(std::string kind, std::string message) {
  throw ffi::Error(kind, message, ffi::detail::BacktraceHere(__FILE__, __LINE__, "Fail"));
}

ffi::Any CallWith(ffi::Function f, ffi::Any arg) { return f(arg); }

ffi::String TypeOf(ffi::AnyView v) { return v.GetTypeName(); }

ffi::Shape ShapeOf(ffi::TensorView x) { return ffi::Shape(x.shape()); }

ffi::String Describe(ffi::TensorView x) {
  std::ostringstream os;
  os << x.dtype() << " " << x.device() << " " << x.shape() << " strides " << x.strides()
     << " contiguous " << x.IsContiguous();
  return os.str();
}

void* StreamOf(int32_t device_type, int32_t device_id) {
  return TVMFFIEnvGetStream(device_type, device_id);
}

// The current stream the environment gives for a tensor's device.
void* StreamOfTensor(ffi::TensorView x) {
  return TVMFFIEnvGetStream(x.device().device_type, x.device().device_id);
}

int64_t AddInt(int64_t a, int64_t b) { return a + b; }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(scale_add, ScaleAdd);
FFI_DLL_EXPORT_TYPED_FUNC(make_output, MakeOutput);
FFI_DLL_EXPORT_TYPED_FUNC(alloc_like, AllocLike);
FFI_DLL_EXPORT_TYPED_FUNC(sum_any, SumAny);
FFI_DLL_EXPORT_TYPED_FUNC(echo, Echo);
FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
FFI_DLL_EXPORT_TYPED_FUNC(call_with, CallWith);
FFI_DLL_EXPORT_TYPED_FUNC(type_of, TypeOf);
FFI_DLL_EXPORT_TYPED_FUNC(shape_of, ShapeOf);
FFI_DLL_EXPORT_TYPED_FUNC(describe, Describe);
FFI_DLL_EXPORT_TYPED_FUNC(stream_of, StreamOf);
FFI_DLL_EXPORT_TYPED_FUNC(stream_of_tensor, StreamOfTensor);
FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
