// A kernel library for tests/python/tooling/test_stubgen.py, written in the reference's vocabulary
// (<tvm/ffi/...>, tvm::ffi, TVM_FFI_*) so that it compiles against this project's headers and
// against the reference wheel's (with TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1, whose exports then
// carry metadata as a "type_schema" only). Typed exports take tensors, containers, optionals,
// variants, functions, dtypes, devices and an object type; global functions and the object types
// are registered under the prefix "stubtest". Built with -DSTUBGEN_NO_METADATA it exports only
// packed functions without any metadata. STUBGEN_EXTRA_METADATA (set for our headers only) adds an
// export whose metadata names its parameters and defaults, as kernel libraries may declare them.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/extra/stl.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ffi_ns = tvm::ffi;

#ifdef STUBGEN_NO_METADATA

// Packed exports only: a host learns their names, nothing about their types.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_count_args(void*, const TVMFFIAny*, int32_t num_args,
                                                       TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = num_args;
  return 0;
}
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_nothing(void*, const TVMFFIAny*, int32_t,
                                                    TVMFFIAny* result) {
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  return 0;
}

#else

namespace {

/*! \brief A point: x read-only, y writable. */
class PointObj : public ffi_ns::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  static constexpr bool _type_mutable = true;
  static constexpr uint32_t _type_child_slots = 1;

  PointObj() = default;
  PointObj(int64_t x, double y) : x(x), y(y) {}

  TVM_FFI_DECLARE_OBJECT_INFO("stubtest.Point", PointObj, ffi_ns::Object);
};

class Point : public ffi_ns::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Point, ffi_ns::ObjectRef, PointObj);
};

/*! \brief A point with a label, derived from Point. */
class LabeledPointObj : public PointObj {
 public:
  ffi_ns::String label;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("stubtest.LabeledPoint", LabeledPointObj, PointObj);
};

int64_t SumList(ffi_ns::Array<int64_t> xs) {
  int64_t total = 0;
  for (int64_t x : xs) total += x;
  return total;
}

// Named functions, not lambdas: the reference's metadata export takes decltype of its argument.
void AddOne(ffi_ns::TensorView x, ffi_ns::TensorView y) {
  (void)x;
  (void)y;
}
ffi_ns::Tensor Scale(ffi_ns::Tensor x, double alpha) {
  (void)alpha;
  return x;
}
ffi_ns::Optional<int64_t> Lookup(ffi_ns::Map<ffi_ns::String, int64_t> m, ffi_ns::String key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return (*it).second;
}
int64_t Nested(ffi_ns::Array<ffi_ns::Map<ffi_ns::String, ffi_ns::Array<double> > > rows,
               ffi_ns::Variant<int64_t, ffi_ns::String> which) {
  (void)which;
  return static_cast<int64_t>(rows.size());
}
int64_t Apply(ffi_ns::TypedFunction<int64_t(int64_t)> f, int64_t x) { return f(x); }
ffi_ns::String Describe(bool flag, DLDataType dtype, DLDevice device, ffi_ns::Bytes data,
                        ffi_ns::Any extra) {
  (void)dtype;
  (void)device;
  (void)extra;
  return flag ? ffi_ns::String("yes") : ffi_ns::String(std::string(data.data(), data.size()));
}
Point MakePoint(int64_t x, double y) { return Point(ffi_ns::make_object<PointObj>(x, y)); }
int64_t PointX(Point p) { return p->x; }
void* SamePointer(void* p) { return p; }
// Standard library types (extra/stl.h).
std::map<std::string, double> FromStl(std::vector<int64_t> xs, std::optional<std::string> name,
                                      std::function<double(int64_t)> f) {
  std::map<std::string, double> out;
  for (int64_t x : xs) out[name.value_or("x") + std::to_string(x)] = f(x);
  return out;
}
ffi_ns::Tuple<int64_t, ffi_ns::String> Pair(int64_t a, ffi_ns::String b) {
  return ffi_ns::Tuple<int64_t, ffi_ns::String>(a, std::move(b));
}

}  // namespace

// Tensors, containers, optionals, variants, functions, plain scalars and an object type.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_list, SumList);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lookup, Lookup);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(nested, Nested);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(apply, Apply);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe, Describe);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_point, MakePoint);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(point_x, PointX);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(pair, Pair);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(same_pointer, SamePointer);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(from_stl, FromStl);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(scale, "Scales x by alpha.");

#ifdef STUBGEN_EXTRA_METADATA
// Exports whose metadata also names their parameters and defaults ("arg_names", "arg_defaults"),
// written out by hand: axpy beside a type schema, clamp beside TypeStr types, its first parameter
// named with a Python keyword.
namespace {
double Axpy(double x, double alpha) { return alpha * x; }
double Clamp(double x, double hi) { return x < hi ? x : hi; }
}  // namespace

#define STUBGEN_EXPORT_WITH_METADATA(Name, Impl, Default, Json)                                  \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_##Name(void*, const TVMFFIAny* args,               \
                                                     int32_t num_args, TVMFFIAny* result) {      \
    TVM_FFI_SAFE_CALL_BEGIN();                                                                   \
    double x = ffi_ns::AnyView::FromRaw(args[0]).cast<double>();                                 \
    double y = num_args > 1 ? ffi_ns::AnyView::FromRaw(args[1]).cast<double>() : Default;        \
    *reinterpret_cast<ffi_ns::Any*>(result) = Impl(x, y);                                        \
    TVM_FFI_SAFE_CALL_END();                                                                     \
  }                                                                                              \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_##Name(void*, const TVMFFIAny*, int32_t, \
                                                               TVMFFIAny* result) {              \
    TVM_FFI_SAFE_CALL_BEGIN();                                                                   \
    *reinterpret_cast<ffi_ns::Any*>(result) = ffi_ns::String(Json);                              \
    TVM_FFI_SAFE_CALL_END();                                                                     \
  }

STUBGEN_EXPORT_WITH_METADATA(
    axpy, Axpy, 2.0,
    R"({"arg_names": ["x", "alpha"], "arg_defaults": {"alpha": 2.0}, "type_schema": )"
    R"("{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"float\"}],)"
    R"(\"params\":[{\"type\":\"float\"},{\"type\":\"float\"}]}}"})")
STUBGEN_EXPORT_WITH_METADATA(
    clamp, Clamp, 1.5,
    R"({"signature": "clamp(0: float, 1: float) -> float", "arg_types": ["float", "float"], )"
    R"("return_type": "float", "arg_names": ["lambda", "hi"], "arg_defaults": {"hi": 1.5}})")
#endif

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<PointObj>("A point.")
      .def(refl::init<int64_t, double>(), "Makes a point.")
      .def_ro("x", &PointObj::x, "The x coordinate.")
      .def_rw("y", &PointObj::y)
      .def("shifted",
           [](const PointObj* self, int64_t k) {
             return Point(ffi_ns::make_object<PointObj>(self->x + k, self->y + k));
           })
      .def_static("origin", []() { return Point(ffi_ns::make_object<PointObj>(0, 0.0)); });
  refl::ObjectDef<LabeledPointObj>().def_rw("label", &LabeledPointObj::label);
  refl::GlobalDef()
      .def("stubtest.norm",
           [](Point p, ffi_ns::Optional<double> scale) {
             return (p->x * p->x + p->y * p->y) * scale.value_or(1.0);
           })
      .def("stubtest.names", [](ffi_ns::List<ffi_ns::String> xs) { return xs.size(); })
      .def_packed("stubtest.anything",
                  [](ffi_ns::PackedArgs args, ffi_ns::Any* rv) { *rv = args.size(); })
      .def("stubtest.bad-name", []() { return 0; })
      .def("stubtest.inner.skipped", []() { return 0; });
}

#endif  // STUBGEN_NO_METADATA
