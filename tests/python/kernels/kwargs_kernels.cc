// Kernels with parameter names and defaults (FFI_DLL_EXPORT_TYPED_FUNC_ARGS), for
// tests/python/calls/test_kwargs.py: Python calls them with keywords and omitted defaults, and C
// hosts omit trailing arguments positionally.
#include <ffi/ffi.h>
#include <ffi/named_args.h>
#include <ffi/reflection/registry.h>
#include <tvm/ffi/tvm_compat.h>

#include <cstdint>

namespace {

/*! \brief Every default kind: float (given as an int), bool, string and None. */
double Scale(double x, double alpha, bool negate, ffi::String tag, ffi::Optional<int64_t> offset) {
  double y = x * alpha + static_cast<double>(tag.size()) + (offset.has_value() ? *offset : 0);
  return negate ? -y : y;
}

/*! \brief Fills a float32 tensor with `value` (a tensor with a defaulted scalar after it). */
void Fill(ffi::TensorView t, double value) {
  float* data = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = static_cast<float>(value);
}

ffi::String Describe(ffi::String name, int64_t count) {
  return name + ":" + ffi::String(std::to_string(count));
}

int64_t Add(int64_t a, int64_t b) { return a + b; }

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC_ARGS(scale, Scale, ffi::arg("x"), ffi::arg("alpha") = 2,
                               ffi::arg("negate") = false, ffi::arg("tag") = "ab",
                               ffi::arg("offset") = nullptr);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_ARGS(fill, Fill, ffi::arg("t"), ffi::arg("value") = 1.5);
FFI_DLL_EXPORT_TYPED_FUNC_ARGS(describe, Describe, ffi::arg("name"), ffi::arg("count"));
FFI_DLL_EXPORT_TYPED_FUNC(add, Add);

// A global function with parameter names: get_global_func gives it keywords too.
FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef().def("kwtest.clamp", Clamp, "Clamps v into [lo, hi].", ffi::arg("v"),
                                   ffi::arg("lo") = 0, ffi::arg("hi") = 10);
}
