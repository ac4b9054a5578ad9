// Kernels using C++ API names code written for the reference relies on (RValueRef, traits with
// fallback values, nested container upcasts, Optional of a reference), built with our headers and
// with the reference's for tests/python/reference/test_compat_api.py. COMPAT_PREFIX names the copy.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/rvalue_ref.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <utility>

namespace ffi = tvm::ffi;

namespace compat {

/*! \brief A value with a kind, made from a bool, an int, a float or a str where one is expected. */
class ExprObj : public ffi::Object {
 public:
  ffi::String kind;
  double value;
  ExprObj(ffi::String kind, double value) : kind(std::move(kind)), value(value) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(COMPAT_PREFIX ".Expr", ExprObj, ffi::Object);
};

class Expr : public ffi::ObjectRef {
 public:
  Expr(ffi::String kind, double value) {
    data_ = ffi::make_object<ExprObj>(std::move(kind), value);
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Expr, ffi::ObjectRef, ExprObj);
};

}  // namespace compat

namespace tvm {
namespace ffi {
template <>
inline constexpr bool use_default_type_traits_v<compat::Expr> = true;

template <>
struct TypeTraits<compat::Expr>
    : public ObjectRefWithFallbackTraitsBase<compat::Expr, StrictBool, int64_t, double, String> {
  static compat::Expr ConvertFallbackValue(StrictBool v) {
    return compat::Expr("bool", static_cast<bool>(v) ? 1 : 0);
  }
  static compat::Expr ConvertFallbackValue(int64_t v) {
    return compat::Expr("int", static_cast<double>(v));
  }
  static compat::Expr ConvertFallbackValue(double v) { return compat::Expr("float", v); }
  static compat::Expr ConvertFallbackValue(String v) { return compat::Expr(v, 0); }
};
}  // namespace ffi
}  // namespace tvm

namespace compat {

// Takes the array by move: appends in place when the caller gave up the only reference.
ffi::Array<ffi::Any> Append(ffi::RValueRef<ffi::Array<int64_t>> ref, int64_t value) {
  ffi::Array<int64_t> arr = *std::move(ref);
  bool was_unique = arr.use_count() == 1;
  arr.push_back(value);
  return ffi::Array<ffi::Any>({arr, was_unique});
}

ffi::String ExprKind(Expr e) {
  return e->kind + ":" + std::to_string(static_cast<int64_t>(e->value));
}

ffi::Array<ffi::String> ExprKinds(ffi::Array<Expr> exprs) {
  ffi::Array<ffi::String> out;
  for (const Expr& e : exprs) out.push_back(e->kind);
  return out;
}

// An Array<Array<int>> is an Array<Array<Any>> as it is: the same object comes back.
ffi::Array<ffi::Array<ffi::Any>> Widen(ffi::Array<ffi::Array<int64_t>> nested) { return nested; }

// An Optional of a reference: `->` reaches the object; None is nothing.
ffi::String DescribeOptional(ffi::Optional<Expr> e) {
  if (!e.has_value()) return "none";
  return e->kind;
}

}  // namespace compat

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<compat::ExprObj>()
      .def_ro("kind", &compat::ExprObj::kind)
      .def_ro("value", &compat::ExprObj::value);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(append, compat::Append);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(expr_kind, compat::ExprKind);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(expr_kinds, compat::ExprKinds);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(widen, compat::Widen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe_optional, compat::DescribeOptional);
