// Parameter names and defaults of exports (ffi/named_args.h): the exported C function fills omitted
// trailing arguments, refuses too few or too many, and its metadata names the parameters and
// carries the reference's "type_schema"; and the runtime's KWARGS constructor
// (src/runtime/extra/kwargs.cc) makes reflected objects from fields given by position and by name.
#include <ffi/named_args.h>
#include <ffi/reflection/registry.h>

#include <string>

#include "testing.h"

namespace {
using namespace ffi_testing;

double Affine(double x, double scale, int64_t shift, bool negate, ffi::String tag,
              ffi::Optional<int64_t> extra) {
  double y = x * scale + static_cast<double>(shift) + static_cast<double>(tag.size()) +
             (extra.has_value() ? static_cast<double>(*extra) : 0.0);
  return negate ? -y : y;
}
}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC_ARGS(test_affine, Affine, ffi::arg("x"), ffi::arg("scale") = 2.0,
                               ffi::arg("shift") = 1, ffi::arg("negate") = false,
                               ffi::arg("tag") = "ab", ffi::arg("extra") = std::nullopt);
FFI_DLL_EXPORT_TYPED_FUNC(test_plain_add, [](int64_t a, int64_t b) { return a + b; });
// An int default for floating-point parameters: the metadata writes it as the float it becomes.
FFI_DLL_EXPORT_TYPED_FUNC_ARGS(
    test_scaled, [](double x, ffi::Optional<double> k) { return x * k.value_or(1.0); },
    ffi::arg("x"), ffi::arg("k") = 3);

namespace {

/*! \brief Calls an export through the C convention with `n` of the given arguments. */
ffi::Any CallExport(TVMFFISafeCallType fn, std::initializer_list<ffi::AnyView> args) {
  ffi::Any result;
  int rc = fn(nullptr, reinterpret_cast<const TVMFFIAny*>(args.begin()),
              static_cast<int32_t>(args.size()), const_cast<TVMFFIAny*>(result.raw()));
  if (rc != 0) throw TakeRaised();
  return result;
}

std::string Metadata(TVMFFISafeCallType fn) {
  ffi::Any result;
  EXPECT_EQ(fn(nullptr, nullptr, 0, const_cast<TVMFFIAny*>(result.raw())), 0);
  return std::string(result.cast<ffi::String>().view());
}

TEST(FunctionArgs, OmittedTrailingArgumentsTakeTheirDefaults) {
  // 3 * 2.0 + 1 + len("ab")
  EXPECT_EQ(CallExport(__tvm_ffi_test_affine, {3.0}).cast<double>(), 9.0);
  EXPECT_EQ(CallExport(__tvm_ffi_test_affine, {3.0, 1.0}).cast<double>(), 6.0);
  EXPECT_EQ(CallExport(__tvm_ffi_test_affine, {3.0, 1.0, 0, true}).cast<double>(), -5.0);
  EXPECT_EQ(CallExport(__tvm_ffi_test_affine, {3.0, 1.0, 0, false, "abcd"}).cast<double>(), 7.0);
  EXPECT_EQ(CallExport(__tvm_ffi_test_affine, {3.0, 1.0, 0, false, "", 10}).cast<double>(), 13.0);
}

TEST(FunctionArgs, TooFewOrTooManyArgumentsAreTypeErrors) {
  ffi::Error none = ExpectError([] { CallExport(__tvm_ffi_test_affine, {}); });
  EXPECT_EQ(none.kind(), "TypeError");
  EXPECT_NE(std::string(none.message()).find("Expected 1 to 6 but got 0"), std::string::npos)
      << none.message();
  ffi::Error many = ExpectError([] {
    CallExport(__tvm_ffi_test_affine, {1.0, 1.0, 1, true, "", 1, 1});
  });
  EXPECT_EQ(many.kind(), "TypeError");
  // A wrong type in a given argument is still reported by position.
  ffi::Error type = ExpectError([] { CallExport(__tvm_ffi_test_affine, {1.0, "x"}); });
  EXPECT_NE(std::string(type.message()).find("argument #1"), std::string::npos) << type.message();
}

TEST(FunctionArgs, MetadataNamesParametersAndDefaults) {
  std::string meta = Metadata(__tvm_ffi__metadata_test_affine);
  EXPECT_NE(meta.find("\"arg_names\": [\"x\", \"scale\", \"shift\", \"negate\", \"tag\", "
                      "\"extra\"]"),
            std::string::npos)
      << meta;
  EXPECT_NE(meta.find("\"arg_defaults\": {\"scale\": 2.0, \"shift\": 1, \"negate\": false, "
                      "\"tag\": \"ab\", \"extra\": null}"),
            std::string::npos)
      << meta;
  EXPECT_NE(meta.find("\"signature\": \"test_affine(0: float"), std::string::npos) << meta;
  std::string scaled = Metadata(__tvm_ffi__metadata_test_scaled);
  EXPECT_NE(scaled.find("\"arg_defaults\": {\"k\": 3.0}"), std::string::npos) << scaled;
  EXPECT_NE(meta.find("\"type_schema\": \"{\\\"type\\\":\\\"ffi.Function\\\""), std::string::npos)
      << meta;
}

TEST(FunctionArgs, PlainExportsCarryTheTypeSchemaToo) {
  std::string meta = Metadata(__tvm_ffi__metadata_test_plain_add);
  EXPECT_NE(meta.find("\"type_schema\": \"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":"
                      "{\\\"return\\\":[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":"
                      "\\\"int\\\"},{\\\"type\\\":\\\"int\\\"}]}}\""),
            std::string::npos)
      << meta;
  EXPECT_EQ(meta.find("arg_names"), std::string::npos);
  ffi::Error wrong = ExpectError([] { CallExport(__tvm_ffi_test_plain_add, {int64_t{1}}); });
  EXPECT_NE(std::string(wrong.message()).find("Expected 2 but got 1"), std::string::npos);
}

// ---- the runtime's generated constructor (KWARGS protocol) ------------------------------------

class KwPointObj : public ffi::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  ffi::String label;
  int64_t hidden = 0;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("test.args.KwPoint", KwPointObj, ffi::Object);
};

FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::ObjectDef<KwPointObj>()
      .def_rw("x", &KwPointObj::x)
      .def_rw("y", &KwPointObj::y, refl::default_value(0.5))
      .def_rw("label", &KwPointObj::label, refl::default_value("p"), refl::kw_only(true))
      .def_ro("hidden", &KwPointObj::hidden, refl::init(false), refl::default_value(7));
}

ffi::Function PointInit() {
  TVMFFIByteArray name{"__ffi_init__", 12};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
  EXPECT_NE(column, nullptr);
  int32_t index = KwPointObj::RuntimeTypeIndex();
  return ffi::AnyView::FromRaw(column->data[index - column->begin_index]).cast<ffi::Function>();
}

const KwPointObj* AsPoint(const ffi::Any& any) {
  return static_cast<const KwPointObj*>(any.cast<ffi::ObjectRef>().get());
}

TEST(KwargsInit, PositionalKeywordsAndDefaults) {
  ffi::Function init = PointInit();
  ffi::Any kw = ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")();
  EXPECT_TRUE(kw.cast<ffi::ObjectRef>().same_as(
      ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")().cast<ffi::ObjectRef>()));
  ffi::Any p = init(3);
  EXPECT_EQ(AsPoint(p)->x, 3);
  EXPECT_EQ(AsPoint(p)->y, 0.5);
  EXPECT_EQ(AsPoint(p)->label, "p");
  EXPECT_EQ(AsPoint(p)->hidden, 7);
  ffi::Any q = init(1, 2.5, kw, "label", "q");
  EXPECT_EQ(AsPoint(q)->y, 2.5);
  EXPECT_EQ(AsPoint(q)->label, "q");
  ffi::Any r = init(kw, "y", 4.0, "x", 9);
  EXPECT_EQ(AsPoint(r)->x, 9);
  EXPECT_EQ(AsPoint(r)->y, 4.0);
}

TEST(KwargsInit, BadCallsAreTypeErrors) {
  ffi::Function init = PointInit();
  ffi::Any kw = ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")();
  auto message = [&](auto&&... args) {
    ffi::Error e = ExpectError([&] { init(args...); });
    EXPECT_EQ(e.kind(), "TypeError");
    return std::string(e.message());
  };
  EXPECT_EQ(message(), "test.args.KwPoint.__ffi_init__() missing required argument: 'x'");
  EXPECT_EQ(message(1, 2.0, 3),
            "test.args.KwPoint.__ffi_init__() takes at most 2 positional argument(s), but 3 "
            "were given");
  EXPECT_EQ(message(kw, "z", 1),
            "test.args.KwPoint.__ffi_init__() got an unexpected keyword argument 'z'");
  EXPECT_EQ(message(kw, "hidden", 1),
            "test.args.KwPoint.__ffi_init__() got an unexpected keyword argument 'hidden'");
  EXPECT_EQ(message(1, kw, "x", 2),
            "test.args.KwPoint.__ffi_init__() got multiple values for argument 'x'");
  EXPECT_EQ(message(1, kw, "y"),
            "test.args.KwPoint.__ffi_init__() KWARGS requires an even number of key-value "
            "arguments");
  EXPECT_NE(message(kw, "x", "no").find("field 'x'"), std::string::npos);
}

}  // namespace

// ---- global functions with parameter names ----------------------------------------------------

namespace {
int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
}  // namespace

FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef().def("test.args.clamp", Clamp, "Clamps v into [lo, hi].",
                                   ffi::arg("v"), ffi::arg("lo") = 0, ffi::arg("hi") = 10);
}

namespace {
TEST(GlobalDefArgs, DefaultsAndMetadata) {
  ffi::Function clamp = ffi::Function::GetGlobalRequired("test.args.clamp");
  EXPECT_EQ(clamp(int64_t{42}).cast<int64_t>(), 10);
  EXPECT_EQ(clamp(int64_t{-3}).cast<int64_t>(), 0);
  EXPECT_EQ(clamp(int64_t{42}, int64_t{-5}, int64_t{50}).cast<int64_t>(), 42);
  EXPECT_EQ(ExpectError([&] { clamp(); }).kind(), "TypeError");
  std::string meta(ffi::Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata")("test.args.clamp")
                       .cast<ffi::String>()
                       .view());
  EXPECT_NE(meta.find("\"arg_names\": [\"v\", \"lo\", \"hi\"], \"arg_defaults\": {\"lo\": 0, "
                      "\"hi\": 10}"),
            std::string::npos)
      << meta;
  EXPECT_NE(meta.find("\"type_schema\":"), std::string::npos) << meta;
}
}  // namespace
