// A kernel library written in C++ against the project's headers, which the Rust tests load with
// ffi::Module::load and call: tensors from Rust-owned buffers, errors both ways, callbacks into
// Rust closures.
#include <ffi/container/array.h>
#include <ffi/ffi.h>

#include <cstdint>
#include <string>

namespace ffi = tvm::ffi;

namespace {

// y[i] = x[i] + 1 for float32 CPU tensors of one shape.
void AddOne(ffi::TensorView x, ffi::TensorView y) {
  FFI_ICHECK_EQ(x.numel(), y.numel()) << "x and y differ in size";
  if (x.dtype().code != kDLFloat || x.dtype().bits != 32) {
    FFI_THROW(TypeError) << "add_one takes float32 tensors";
  }
  const float* in = static_cast<const float*>(x.data_ptr());
  float* out = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] + 1.0f;
}

// A new tensor from the environment's allocator holding x * factor.
ffi::Tensor Scaled(ffi::TensorView x, double factor) {
  ffi::Tensor out = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  const double* in = static_cast<const double*>(x.data_ptr());
  double* o = static_cast<double*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] * factor;
  return out;
}

// Throws an error of the kind asked for.
int64_t Raise(ffi::String kind, ffi::String message) {
  throw ffi::Error(std::string(kind), std::string(message), "");
}

// Calls `f(i)` for i in [0, n) and sums the int results: C++ calling back into Rust.
int64_t SumCallback(ffi::Function f, int64_t n) {
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) total += f(i).cast<int64_t>();
  return total;
}

// The strong count of the object passed (one held by the caller, none added here).
int64_t UseCount(ffi::ObjectRef obj) { return obj.use_count(); }

// Returns what it is given (an object keeps its identity).
ffi::Any Echo(ffi::Any value) { return value; }

// The total length of an array of strings.
int64_t TotalLength(ffi::Array<ffi::String> items) {
  int64_t total = 0;
  for (const ffi::String& s : items) total += static_cast<int64_t>(s.size());
  return total;
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
FFI_DLL_EXPORT_TYPED_FUNC(scaled, Scaled);
FFI_DLL_EXPORT_TYPED_FUNC(raise_error, Raise);
FFI_DLL_EXPORT_TYPED_FUNC(sum_callback, SumCallback);
FFI_DLL_EXPORT_TYPED_FUNC(use_count, UseCount);
FFI_DLL_EXPORT_TYPED_FUNC(echo, Echo);
FFI_DLL_EXPORT_TYPED_FUNC(total_length, TotalLength);
