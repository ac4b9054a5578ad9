// The kernels my_kernels ships: checked, zero-copy functions on float32 CPU tensors.
#include <ffi/ffi.h>

#include <cmath>

namespace {

constexpr DLDataType kFloat32{kDLFloat, 32, 1};

void CheckFloat32CPU(const ffi::TensorView& t, const char* name) {
  if (t.dtype() != kFloat32) FFI_THROW(TypeError) << name << " must be float32, got " << t.dtype();
  if (t.device().device_type != kDLCPU) {
    FFI_THROW(ValueError) << name << " must be on the CPU, got " << t.device();
  }
  if (!t.IsContiguous()) FFI_THROW(ValueError) << name << " must be contiguous";
}

float* Data(const ffi::TensorView& t) {
  return reinterpret_cast<float*>(static_cast<char*>(t.data_ptr()) + t.byte_offset());
}

// y = alpha * x + y, in place.
void Axpy(double alpha, ffi::TensorView x, ffi::TensorView y) {
  CheckFloat32CPU(x, "x");
  CheckFloat32CPU(y, "y");
  if (x.shape() != y.shape()) {
    FFI_THROW(ValueError) << "x and y must have the same shape, got " << x.shape() << " and "
                          << y.shape();
  }
  const float* px = Data(x);
  float* py = Data(y);
  for (int64_t i = 0; i < x.numel(); ++i) py[i] += static_cast<float>(alpha) * px[i];
}

// The Euclidean norm of x.
double Norm(ffi::TensorView x) {
  CheckFloat32CPU(x, "x");
  const float* px = Data(x);
  double sum = 0;
  for (int64_t i = 0; i < x.numel(); ++i) sum += static_cast<double>(px[i]) * px[i];
  return std::sqrt(sum);
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(axpy, Axpy);
FFI_DLL_EXPORT_TYPED_FUNC(norm, Norm);
