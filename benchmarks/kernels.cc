// The kernel library the call benchmarks load (built with ffi's headers only; the same binary is
// loaded by ffi and by the reference package, which the ABI's compatibility allows).
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/ffi.h>
#include <ffi/reflection/registry.h>

namespace {
void Nop() {}
int64_t Add3(int64_t a, int64_t b, int64_t c) { return a + b + c; }
void Tensors3(ffi::TensorView, ffi::TensorView, ffi::TensorView) {}

/*! \brief A new tensor like `x`, from the environment's allocator (the caller's framework's). */
ffi::Tensor MakeOutput(ffi::TensorView x) {
  return ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
}

/*! \brief The object of the "field access" row: one reflected int field. */
class PointObj : public ffi::Object {
 public:
  int64_t x = 0;
  FFI_DECLARE_OBJECT_INFO_FINAL("bench.Point", PointObj, ffi::Object);
};

ffi::ObjectRef MakePoint(int64_t x) {
  auto p = ffi::make_object<PointObj>();
  p->x = x;
  return ffi::ObjectRef(std::move(p));
}

int64_t SumInts(ffi::Array<int64_t> values) {
  int64_t total = 0;
  for (int64_t v : values) total += v;
  return total;
}
int64_t MapLen(ffi::Map<ffi::String, ffi::Any> m) { return static_cast<int64_t>(m.size()); }
}  // namespace

FFI_STATIC_INIT_BLOCK() { ffi::reflection::ObjectDef<PointObj>().def_ro("x", &PointObj::x); }

FFI_DLL_EXPORT_TYPED_FUNC(nop, Nop);
FFI_DLL_EXPORT_TYPED_FUNC(add3, Add3);
FFI_DLL_EXPORT_TYPED_FUNC(tensors3, Tensors3);
FFI_DLL_EXPORT_TYPED_FUNC(make_point, MakePoint);
FFI_DLL_EXPORT_TYPED_FUNC(sum_ints, SumInts);
FFI_DLL_EXPORT_TYPED_FUNC(map_len, MapLen);
FFI_DLL_EXPORT_TYPED_FUNC(make_output, MakeOutput);

// Any number of arguments, none looked at: the rows that fit the cost of one more tensor call it
// with 1 to 32 tensors, so what grows is only the caller's per-argument work.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_tensors_n(void*, const TVMFFIAny*, int32_t,
                                                      TVMFFIAny* result) {
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  return 0;
}
