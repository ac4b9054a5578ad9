// A kernel library built from the headers alone (no link flags), loaded by the tests.
#include <ffi/ffi.h>

#include <string>

namespace {

int64_t AddInt(int64_t a, int64_t b) { return a + b; }

ffi::String Greet(ffi::String name, ffi::Optional<ffi::String> punctuation) {
  return "hello, " + std::string(name) + std::string(punctuation.value_or(ffi::String("!")));
}

void FailValue(int64_t code) { FFI_THROW(ValueError) << "bad value " << code; }

void FailCheck(int64_t x) { FFI_ICHECK_LT(x, 10) << "x must be small"; }

double Scale(double x, double factor) { return x * factor; }

// Calls back into the host: `fn(x)` must return an int.
int64_t ApplyTwice(ffi::Function fn, int64_t x) {
  return fn(fn(x).cast<int64_t>()).cast<int64_t>();
}

// A plain C-ABI tensor kernel working on DLTensor* views: y = x + 1 for float32 vectors.
void AddOneFloat(DLTensor* x, DLTensor* y) {
  FFI_ICHECK_EQ(x->ndim, 1);
  if (x->dtype.code != kDLFloat || x->dtype.bits != 32) FFI_THROW(TypeError) << "expected float32";
  for (int64_t i = 0; i < x->shape[0]; ++i) {
    static_cast<float*>(y->data)[i] = static_cast<float*>(x->data)[i] + 1.0f;
  }
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
FFI_DLL_EXPORT_TYPED_FUNC(fail_value, FailValue);
FFI_DLL_EXPORT_TYPED_FUNC(fail_check, FailCheck);
FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
FFI_DLL_EXPORT_TYPED_FUNC(apply_twice, ApplyTwice);
FFI_DLL_EXPORT_TYPED_FUNC(add_one_float, AddOneFloat);
extern "C" TVM_FFI_DLL_EXPORT int ffi_test_not_a_function() { return 1; }

FFI_DLL_EXPORT_TYPED_FUNC(throw_std, [](int64_t n) -> int64_t {
  if (n < 0) throw std::out_of_range("negative index");
  return n;
});

// A global function registered when the library is loaded.
FFI_STATIC_INIT_BLOCK() {
  // Overriding: the library may be loaded again from another path in one process.
  ffi::Function::SetGlobal("test_kernels.triple",
                           ffi::Function::FromTyped([](int64_t x) { return 3 * x; }),
                           /*allow_override=*/true);
}
