// The quickstart kernel: y = x + 1 for float32 tensors of any shape, on the CPU.
// The C++ function carries the exported name so that run.py can also pass this file's body
// (without the include and export lines) to ffi.cpp.load_inline(functions=["add_one"]), which
// writes them itself: one source, built by CMake (CMakeLists.txt) and inline.
#include <ffi/ffi.h>

namespace {

void add_one(ffi::TensorView x, ffi::TensorView y) {
  if (x.dtype() != DLDataType{kDLFloat, 32, 1}) {
    FFI_THROW(TypeError) << "x must be float32, got " << x.dtype();
  }
  if (x.shape() != y.shape() || y.dtype() != x.dtype()) {
    FFI_THROW(ValueError) << "y must match x: " << y.shape() << " vs " << x.shape();
  }
  FFI_ICHECK(x.IsContiguous() && y.IsContiguous()) << "contiguous tensors only";
  const float* px = static_cast<const float*>(x.data_ptr());
  float* py = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = px[i] + 1.0f;
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);
