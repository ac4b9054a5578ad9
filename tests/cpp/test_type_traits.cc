// Traits a library writes for its own reference classes (type_traits.h): conversions with fallback
// values (ObjectRefWithFallbackTraitsBase), StrictBool, and type_subsumes_v, which decides which
// containers share their storage without a check (nested containers, Variant, ObjectPtr).
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/container/tuple.h>
#include <ffi/container/variant.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::Array;
using ffi::Function;
using ffi::Map;
using ffi::ObjectPtr;
using ffi::ObjectRef;
using ffi::String;
using ffi::Variant;

// A value with a kind, as an expression type of a compiler might be: made from a bool, an int,
// a float or a string when a function asks for one.
class ExprObj : public ffi::Object {
 public:
  ExprObj(std::string kind, double value) : kind(std::move(kind)), value(value) {}
  std::string kind;
  double value;
  FFI_DECLARE_OBJECT_INFO_FINAL("test.traits.Expr", ExprObj, ffi::Object);
};

class Expr : public ObjectRef {
 public:
  Expr(std::string kind, double value) : ObjectRef(ffi::make_object<ExprObj>(kind, value)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(Expr, ObjectRef, ExprObj);
};

}  // namespace

namespace tvm {
namespace ffi {
template <>
struct TypeTraits<Expr>
    : ObjectRefWithFallbackTraitsBase<Expr, StrictBool, int64_t, double, String> {
  static Expr ConvertFallbackValue(StrictBool v) { return Expr("bool", v ? 1 : 0); }
  static Expr ConvertFallbackValue(int64_t v) { return Expr("int", static_cast<double>(v)); }
  static Expr ConvertFallbackValue(double v) { return Expr("float", v); }
  static Expr ConvertFallbackValue(String v) { return Expr(std::string(v), 0); }
  // Written as for TVM-FFI: the schema names the fallbacks through details::TypeSchema<T>::v().
  static std::string TypeSchema() {
    return R"({"type":"test.traits.Expr","args":[)" + details::TypeSchema<int64_t>::v() + "," +
           details::TypeSchema<Optional<String>>::v() + "]}";
  }
};
}  // namespace ffi
}  // namespace tvm

// A user's integer-like type whose traits derive from TypeTraitsIntBase, as code written for
// TVM-FFI's headers does.
namespace {
struct Meters {
  explicit Meters(int64_t v) : value(v) {}
  int64_t value;
};
}  // namespace
namespace tvm {
namespace ffi {
template <>
struct TypeTraits<Meters> : TypeTraitsIntBase<Meters> {
  static void CopyToAnyView(const Meters& m, TVMFFIAny* out) { CopyInt64ToAnyView(m.value, out); }
  static void MoveToAny(Meters m, TVMFFIAny* out) { CopyInt64ToAnyView(m.value, out); }
};
}  // namespace ffi
}  // namespace tvm

// Traits written for TVM-FFI's headers, as real libraries write them: TypeStr returning a
// std::string, TryCastFromAnyView returning a std::optional, a type made only from fallbacks.
namespace {
struct Celsius {
  double degrees;
};
struct Half {
  uint16_t bits;
};
}  // namespace

namespace tvm {
namespace ffi {
template <>
struct TypeTraits<Celsius> : TypeTraits<double> {
  static void CopyToAnyView(const Celsius& c, TVMFFIAny* out) {
    TypeTraits<double>::CopyToAnyView(c.degrees, out);
  }
  static void MoveToAny(Celsius c, TVMFFIAny* out) {
    TypeTraits<double>::MoveToAny(c.degrees, out);
  }
  static std::optional<Celsius> TryCastFromAnyView(const TVMFFIAny* src) {
    std::optional<double> d = TypeTraits<double>::TryCastFromAnyView(src);
    if (d.has_value()) return Celsius{*d};
    return std::nullopt;
  }
  static std::string TypeStr() { return "Celsius"; }
};
template <>
struct TypeTraits<Half*> : FallbackOnlyTraitsBase<Half*, DLTensor*, int64_t> {
  static Half* ConvertFallbackValue(DLTensor* t) { return static_cast<Half*>(t->data); }
  static Half* ConvertFallbackValue(int64_t address) {
    return reinterpret_cast<Half*>(static_cast<uintptr_t>(address));
  }
  static std::string TypeStr() { return "Half*"; }
};
}  // namespace ffi
}  // namespace tvm

namespace {

TEST(ReferenceStyleTraits, RunTimeTypeNamesAndStdOptionalResults) {
  Function warm = Function::FromTyped([](Celsius c) { return c.degrees > 20; }, "warm");
  EXPECT_TRUE(warm(25.0).cast<bool>());
  // The signature names the type by its run-time TypeStr, in errors and in containers' names.
  ffi::Error e = ExpectError([&] { warm("hot"); });
  EXPECT_NE(e.message().find("`warm(0: Celsius) -> bool`"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("Expected `Celsius` but got `str`"), std::string::npos) << e.message();
  EXPECT_EQ(ffi::TypeTraits<Array<Celsius>>::TypeStr(), "Array<Celsius>");
  Function mean = Function::FromTyped([](Array<Celsius> cs) {
    double sum = 0;
    for (Celsius c : cs) sum += c.degrees;
    return sum / static_cast<double>(cs.size());
  });
  EXPECT_EQ(mean(Array<double>({10, 20})).cast<double>(), 15.0);
  // Our traits' TryCastFromAnyView result is kept in a std::optional, as TVM-FFI's returns one.
  Any four = int64_t{4};
  std::optional<int64_t> as_int = ffi::TypeTraits<int64_t>::TryCastFromAnyView(four.raw());
  EXPECT_EQ(as_int, 4);
  std::optional<String> as_str = ffi::TypeTraits<String>::TryCastFromAnyView(four.raw());
  EXPECT_FALSE(as_str.has_value());
}

TEST(ReferenceStyleTraits, FallbackOnlyTypes) {
  Half storage[2] = {{1}, {2}};
  int64_t shape = 2;
  DLTensor t{storage, {kDLCPU, 0}, 1, {kDLFloat, 16, 1}, &shape, nullptr, 0};
  EXPECT_EQ(ffi::AnyView(&t).cast<Half*>(), storage);
  EXPECT_EQ(Any(reinterpret_cast<int64_t>(storage + 1)).cast<Half*>()->bits, 2);
  Function second = Function::FromTyped([](Half* h) { return static_cast<int64_t>(h[1].bits); });
  EXPECT_EQ(second(&t).cast<int64_t>(), 2);
  ffi::Error e = ExpectError([&] { second("x"); });
  EXPECT_NE(e.message().find("Expected `Half*` but got `str`"), std::string::npos) << e.message();
  static_assert(!ffi::TypeTraits<Half*>::storage_enabled);
}

TEST(ReferenceStyleTraits, StaticTypeKeysAndTraitsWithoutConstOrReference) {
  EXPECT_STREQ(ffi::StaticTypeKey::kTVMFFITensor, "ffi.Tensor");
  EXPECT_EQ(ffi::TypeIndexToTypeKey(kTVMFFIArray), ffi::StaticTypeKey::kTVMFFIArray);
  EXPECT_EQ(ffi::TypeIndexToTypeKey(kTVMFFISmallStr), ffi::StaticTypeKey::kTVMFFISmallStr);
  static_assert(std::is_same_v<ffi::TypeTraitsNoCR<const String&>, ffi::TypeTraits<String>>);
}

TEST(FallbackTraits, EachFallbackTypeInOrder) {
  Function kind =
      Function::FromTyped([](Expr e) { return e->kind + ":" + std::to_string(e->value); });
  EXPECT_EQ(kind(true).cast<std::string>(), "bool:1.000000");  // StrictBool before int
  EXPECT_EQ(kind(3).cast<std::string>(), "int:3.000000");
  EXPECT_EQ(kind(2.5).cast<std::string>(), "float:2.500000");
  EXPECT_EQ(kind("name").cast<std::string>(), "name:0.000000");
  // An Expr passes as itself, the same object.
  Expr e("int", 7);
  Function same = Function::FromTyped([](Expr x, Expr y) { return x.same_as(y); });
  EXPECT_TRUE(same(e, e).cast<bool>());
}

TEST(FallbackTraits, ContainersConvertTheirElements) {
  Function kinds = Function::FromTyped([](Array<Expr> exprs) {
    std::string out;
    for (const Expr& e : exprs) out += e->kind + ",";
    return out;
  });
  EXPECT_EQ(kinds(Array<Any>({1, 2.0, false, Expr("x", 0)})).cast<std::string>(),
            "int,float,bool,x,");
}

TEST(FallbackTraits, OtherValuesAreATypeError) {
  Function f = Function::FromTyped([](Expr e) { return e->value; });
  ffi::Error e = ExpectError([&] { f(Array<int>({1})); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Expected `test.traits.Expr`"), std::string::npos) << e.message();
}

TEST(FallbackTraits, AnyCastUsesTheFallbacks) {
  Any a = int64_t{4};
  EXPECT_EQ(a.cast<Expr>()->kind, "int");
  EXPECT_FALSE(Any(Array<int>({1})).try_cast<Expr>().has_value());
}

TEST(StrictBool, OnlyABoolConverts) {
  Function f = Function::FromTyped([](ffi::StrictBool b) { return static_cast<bool>(b); });
  EXPECT_TRUE(f(true).cast<bool>());
  EXPECT_EQ(ExpectError([&] { f(1); }).kind(), "TypeError");
  // A plain bool parameter still takes an int.
  Function g = Function::FromTyped([](bool b) { return b; });
  EXPECT_TRUE(g(1).cast<bool>());
  EXPECT_EQ(std::string(ffi::TypeTraits<ffi::StrictBool>::TypeStr().view()), "bool");
}

class BaseObj : public ffi::Object {
 public:
  int tag = 0;
  FFI_DECLARE_OBJECT_INFO("test.traits.Base", BaseObj, ffi::Object);
};
class DerivedObj : public BaseObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("test.traits.Derived", DerivedObj, BaseObj);
};

TEST(TypeTraits, StorageAndConvertFlags) {
  using ffi::TypeTraits;
  static_assert(TypeTraits<int64_t>::convert_enabled && TypeTraits<int64_t>::storage_enabled);
  static_assert(TypeTraits<Expr>::storage_enabled);  // through ObjectRefWithFallbackTraitsBase
  static_assert(TypeTraits<ffi::Optional<Expr>>::storage_enabled);
  // A view cannot be owned by an Any, nor can an Optional of one.
  static_assert(!TypeTraits<ffi::TensorView>::storage_enabled);
  static_assert(!TypeTraits<ffi::Optional<ffi::TensorView>>::storage_enabled);
  static_assert(ffi::detail::storage_enabled_v<String>);
  static_assert(!ffi::detail::storage_enabled_v<ffi::TensorView>);
}

TEST(TypeTraits, FieldStaticAndRuntimeTypeIndices) {
  using ffi::TypeToFieldStaticTypeIndex;
  using ffi::TypeToRuntimeTypeIndex;
  // What an object field of each type is recorded with (TVMFFIFieldInfo::field_static_type_index).
  static_assert(TypeToFieldStaticTypeIndex<int32_t>::value == kTVMFFIInt);
  static_assert(TypeToFieldStaticTypeIndex<bool>::value == kTVMFFIBool);
  static_assert(TypeToFieldStaticTypeIndex<float>::value == kTVMFFIFloat);
  static_assert(TypeToFieldStaticTypeIndex<DLDevice>::value == kTVMFFIDevice);
  static_assert(TypeToFieldStaticTypeIndex<DLDataType>::value == kTVMFFIDataType);
  static_assert(TypeToFieldStaticTypeIndex<void*>::value == kTVMFFIOpaquePtr);
  static_assert(TypeToFieldStaticTypeIndex<Function>::value == kTVMFFIFunction);
  static_assert(TypeToFieldStaticTypeIndex<Array<int>>::value == kTVMFFIArray);
  static_assert(TypeToFieldStaticTypeIndex<ffi::List<int>>::value == kTVMFFIList);
  static_assert(TypeToFieldStaticTypeIndex<ffi::Shape>::value == kTVMFFIShape);
  static_assert(TypeToFieldStaticTypeIndex<ffi::Tensor>::value == kTVMFFIDLTensorPtr);
  static_assert(TypeToFieldStaticTypeIndex<Map<String, int>>::value == kTVMFFIObject);
  static_assert(TypeToFieldStaticTypeIndex<Expr>::value == kTVMFFIObject);
  static_assert(TypeToFieldStaticTypeIndex<ObjectPtr<ffi::Object>>::value == kTVMFFIObject);
  // Values that take several forms are stored as (or like) an Any.
  static_assert(TypeToFieldStaticTypeIndex<String>::value == kTVMFFIAny);
  static_assert(TypeToFieldStaticTypeIndex<ffi::Optional<int>>::value == kTVMFFIAny);
  static_assert(TypeToFieldStaticTypeIndex<Variant<int, String>>::value == kTVMFFIAny);
  static_assert(TypeToFieldStaticTypeIndex<Any>::value == kTVMFFIAny);
  struct NoTraits {};
  static_assert(TypeToFieldStaticTypeIndex<NoTraits>::value == kTVMFFIAny);
  // The runtime index: a reference class's registered object type, else the recorded index.
  EXPECT_EQ(TypeToRuntimeTypeIndex<Expr>::v(), ExprObj::RuntimeTypeIndex());
  EXPECT_EQ(TypeToRuntimeTypeIndex<ObjectPtr<ExprObj>>::v(), ExprObj::RuntimeTypeIndex());
  EXPECT_EQ(TypeToRuntimeTypeIndex<ffi::Arc<ExprObj>>::v(), ExprObj::RuntimeTypeIndex());
  // Pointers to const or volatile objects do not convert (nor are they stored), as in TVM-FFI.
  static_assert(!ffi::TypeTraits<ObjectPtr<const ExprObj>>::convert_enabled);
  static_assert(!ffi::TypeTraits<ObjectPtr<const ExprObj>>::storage_enabled);
  static_assert(ffi::TypeTraits<ObjectPtr<ExprObj>>::convert_enabled);
  EXPECT_EQ(TypeToRuntimeTypeIndex<Function>::v(), kTVMFFIFunction);
  EXPECT_EQ(TypeToRuntimeTypeIndex<Array<int>>::v(), kTVMFFIArray);
  EXPECT_EQ(TypeToRuntimeTypeIndex<int64_t>::v(), kTVMFFIInt);
  EXPECT_EQ(TypeToRuntimeTypeIndex<DLDevice>::v(), kTVMFFIDevice);
}

TEST(TypeTraits, SchemaFromTheTraitsComposes) {
  // A trait's own TypeSchema() is used, alone and inside the schemas of other types.
  const std::string expr = R"({"type":"test.traits.Expr","args":[{"type":"int"},)"
                           R"({"type":"Optional","args":[{"type":"ffi.String"}]}]})";
  EXPECT_EQ(ffi::details::TypeSchema<Expr>::v(), expr);
  EXPECT_EQ(ffi::details::TypeSchema<const Expr&>::v(), expr);
  EXPECT_EQ(ffi::details::TypeSchema<Array<Expr>>::v(),
            R"({"type":"ffi.Array","args":[)" + expr + "]}");
}

TEST(TypeTraits, EveryBuiltInTraitNamesItsSchema) {
  // TypeTraits<T>::TypeSchema() exists for the built-in types, as TVM-FFI's traits have it, and
  // agrees with details::TypeSchema<T>::v().
  using ffi::TypeTraits;
  EXPECT_EQ(TypeTraits<int32_t>::TypeSchema(), R"({"type":"int"})");
  EXPECT_EQ(TypeTraits<double>::TypeSchema(), R"({"type":"float"})");
  EXPECT_EQ(TypeTraits<bool>::TypeSchema(), R"({"type":"bool"})");
  EXPECT_EQ(TypeTraits<DLDevice>::TypeSchema(), R"({"type":"Device"})");
  EXPECT_EQ(TypeTraits<std::nullptr_t>::TypeSchema(), R"({"type":"None"})");
  EXPECT_EQ(TypeTraits<ffi::AnyView>::TypeSchema(), R"({"type":"Any"})");
  EXPECT_EQ(TypeTraits<String>::TypeSchema(), R"({"type":"ffi.String"})");
  EXPECT_EQ(TypeTraits<std::string>::TypeSchema(), R"({"type":"std::string"})");
  EXPECT_EQ(TypeTraits<ffi::Tensor>::TypeSchema(), R"({"type":"ffi.Tensor"})");
  EXPECT_EQ(TypeTraits<Expr>::TypeSchema(), ffi::details::TypeSchema<Expr>::v());
  EXPECT_EQ((TypeTraits<Map<String, Array<int>>>::TypeSchema()),
            R"({"type":"ffi.Map","args":[{"type":"ffi.String"},)"
            R"({"type":"ffi.Array","args":[{"type":"int"}]}]})");
  EXPECT_EQ(TypeTraits<ffi::List<ffi::Optional<double>>>::TypeSchema(),
            R"({"type":"ffi.List","args":[{"type":"Optional","args":[{"type":"float"}]}]})");
  EXPECT_EQ((TypeTraits<ffi::Tuple<int, Variant<bool, String>>>::TypeSchema()),
            R"({"type":"Tuple","args":[{"type":"int"},)"
            R"({"type":"Variant","args":[{"type":"bool"},{"type":"ffi.String"}]}]})");
  EXPECT_EQ(TypeTraits<ffi::Expected<void>>::TypeSchema(),
            R"({"type":"Expected","args":[{"type":"None"},{"type":"ffi.Error"}]})");
  EXPECT_EQ(TypeTraits<ffi::TypedFunction<int(String)>>::TypeSchema(),
            R"({"type":"ffi.Function","named_args":{"return":[{"type":"int"}],)"
            R"("params":[{"type":"ffi.String"}]}})");
  // A (nullable) ObjectPtr is an Optional of its object type, as TVM-FFI names it.
  EXPECT_EQ(TypeTraits<ObjectPtr<BaseObj>>::TypeSchema(),
            R"({"type":"Optional","args":[{"type":"test.traits.Base"}]})");
}

TEST(TypeSubsumes, Rules) {
  using ffi::type_subsumes_v;
  static_assert(type_subsumes_v<Any, int>);
  static_assert(type_subsumes_v<ObjectRef, Expr>);
  static_assert(!type_subsumes_v<Expr, ObjectRef>);
  static_assert(!type_subsumes_v<int64_t, double>);
  static_assert(type_subsumes_v<Array<Any>, Array<int>>);
  static_assert(type_subsumes_v<Array<Array<Any>>, Array<Array<int>>>);
  static_assert(!type_subsumes_v<Array<Array<int>>, Array<Array<Any>>>);
  static_assert(type_subsumes_v<Map<String, Any>, Map<String, Expr>>);
  static_assert(type_subsumes_v<Variant<int, Expr>, Expr>);
  static_assert(type_subsumes_v<Array<Variant<int, Expr>>, Array<Expr>>);
  static_assert(type_subsumes_v<ObjectPtr<BaseObj>, ObjectPtr<DerivedObj>>);
  static_assert(!type_subsumes_v<ObjectPtr<DerivedObj>, ObjectPtr<BaseObj>>);
  static_assert(type_subsumes_v<Array<ObjectPtr<BaseObj>>, Array<ObjectPtr<DerivedObj>>>);
}

TEST(TypeSubsumes, NestedContainersShareStorage) {
  Array<Array<int>> nested({Array<int>({1, 2}), Array<int>({3})});
  Array<Array<Any>> wide = nested;  // implicit: no element is looked at
  EXPECT_EQ(wide.get(), nested.get());
  Array<Variant<int, Expr>> variants = Array<Expr>({Expr("a", 1)});
  EXPECT_EQ(variants.size(), 1u);
  Array<ObjectPtr<DerivedObj>> derived({ffi::make_object<DerivedObj>()});
  Array<ObjectPtr<BaseObj>> bases = derived;
  EXPECT_EQ(bases.get(), derived.get());
  Map<String, Array<Any>> map = Map<String, Array<int>>({{"k", Array<int>({1})}});
  EXPECT_EQ(map.size(), 1u);
  // The reverse needs a check of the elements, so it is not implicit.
  static_assert(!std::is_convertible_v<Array<Array<Any>>, Array<Array<int>>>);
}

TEST(TypeTraits, AUserIntegerTypeDerivesItsTraitsFromTypeTraitsIntBase) {
  Any held = Meters(5);
  EXPECT_EQ(held.type_index(), kTVMFFIInt);
  EXPECT_EQ(held.cast<int64_t>(), 5);
  EXPECT_EQ(held.cast<Meters>().value, 5);
  EXPECT_EQ(Any(true).cast<Meters>().value, 1);  // a bool reads as an int, as for int64_t
  EXPECT_FALSE(Any(String("five")).try_cast<Meters>().has_value());
  Array<Meters> lengths{Meters(1), Meters(2)};
  EXPECT_EQ(lengths[1].value, 2);
  Function twice = Function::FromTyped([](Meters m) { return Meters(2 * m.value); });
  EXPECT_EQ(twice(21).cast<Meters>().value, 42);
  EXPECT_EQ(std::string(ffi::TypeTraits<Meters>::TypeStr()), "int");
  EXPECT_EQ(ffi::TypeTraits<Meters>::TypeSchema(), R"({"type":"int"})");
  // The built-in integer traits share the base.
  static_assert(std::is_base_of_v<ffi::TypeTraitsIntBase<int32_t>, ffi::TypeTraits<int32_t>>);
}

}  // namespace
