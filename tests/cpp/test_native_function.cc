// reflection::NativeFunctionView / NativeFunction: hooks held by type attributes, in their native
// form (a C function pointer, made by FromNative from a throwing or an Expected-returning C++
// function) and their packed form (a Function); storing them in Any and in type attributes;
// Map keys hashed and compared by a type's native __any_hash__ / __any_equal__ hooks; enum
// members' native attributes.
#include <ffi/container/map.h>
#include <ffi/enum.h>
#include <ffi/ffi.h>
#include <ffi/reflection/enum_def.h>
#include <ffi/reflection/native_function.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;
using ffi::Any;
using ffi::AnyView;
using ffi::Expected;
using ffi::reflection::NativeFunction;
using ffi::reflection::NativeFunctionView;
namespace refl = ffi::reflection;

using Twice = NativeFunctionView<int64_t(int64_t)>;

int64_t TwiceOrThrow(int64_t x) {
  if (x < 0) FFI_THROW(ValueError) << "negative: " << x;
  if (x == 13) throw std::runtime_error("unlucky");
  return 2 * x;
}

Expected<int64_t> TwiceExpected(int64_t x) noexcept {
  if (x < 0) return ffi::Error("IndexError", "negative", "");
  return 2 * x;
}

void Nothing(int64_t) {}

TEST(NativeFunction, NativeFormCallsDirectlyAndReturnsErrors) {
  Twice twice = Twice::FromNative<&TwiceOrThrow>();
  EXPECT_EQ(twice(4), 8);
  Expected<int64_t> failed = twice.CallExpected(-1);
  ASSERT_TRUE(failed.is_err());
  EXPECT_EQ(failed.error().kind(), "ValueError");
  EXPECT_EQ(failed.error().message(), "negative: -1");
  EXPECT_EQ(twice.CallExpected(13).error().kind(), "InternalError");  // std::exception
  EXPECT_EQ(ExpectError([&] { twice(-2); }).kind(), "ValueError");

  Twice expected = Twice::FromNative<&TwiceExpected>();
  EXPECT_EQ(expected(5), 10);
  EXPECT_EQ(expected.CallExpected(-5).error().kind(), "IndexError");

  auto nothing = NativeFunctionView<void(int64_t)>::FromNative<&Nothing>();
  EXPECT_TRUE(nothing.CallExpected(1).is_ok());
}

TEST(NativeFunction, PackedFormCallsTheFunction) {
  ffi::TypedFunction<int64_t(int64_t)> typed([](int64_t x) { return x + 100; });
  Twice packed(typed);
  EXPECT_EQ(packed(1), 101);
  ffi::TypedFunction<int64_t(int64_t)> failing(
      [](int64_t) -> int64_t { FFI_THROW(KeyError) << "nope"; });
  EXPECT_EQ(Twice(failing).CallExpected(0).error().kind(), "KeyError");
  ffi::Function wrong = ffi::Function::FromTyped([](int64_t) { return std::string("text"); });
  EXPECT_EQ(Twice(wrong).CallExpected(0).error().kind(), "TypeError");  // result type checked
  EXPECT_EQ(ExpectError([] { Twice{ffi::Function()}; }).kind(), "ValueError");
}

TEST(NativeFunction, TravelsInAnyKeepingTheFunctionAlive) {
  Any native = Twice::FromNative<&TwiceOrThrow>();
  EXPECT_EQ(native.type_index(), kTVMFFIOpaquePtr);
  EXPECT_EQ(native.cast<Twice>()(3), 6);

  NativeFunction<int64_t(int64_t)> owned(
      ffi::TypedFunction<int64_t(int64_t)>([](int64_t x) { return -x; }));
  Any held = owned;
  EXPECT_EQ(held.type_index(), kTVMFFIFunction);
  NativeFunction<int64_t(int64_t)> back = held.cast<NativeFunction<int64_t(int64_t)>>();
  held = Any();
  owned = back;  // the function lives while an owner does
  EXPECT_EQ(owned(4), -4);
  EXPECT_EQ(owned.view()(5), -5);
  EXPECT_FALSE(Any(1).try_cast<Twice>().has_value());
  EXPECT_FALSE(Any().try_cast<Twice>().has_value());
}

/*! \brief A key type whose maps compare keys by `id` alone (the name is ignored). */
class TagObj : public ffi::Object {
 public:
  int64_t id;
  std::string name;
  TagObj(int64_t id, std::string name) : id(id), name(std::move(name)) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.native.Tag", TagObj, ffi::Object);
};

int64_t TagHash(const Any& v) { return v.cast<const TagObj*>()->id; }
bool TagEqual(const Any& a, const Any& b) {
  return a.cast<const TagObj*>()->id == b.cast<const TagObj*>()->id;
}

FFI_STATIC_INIT_BLOCK() {
  refl::TypeAttrDef<TagObj>()
      .native_fn_attr<&TagHash>(ffi::type_attr::kAnyHash)
      .native_fn_attr<&TagEqual>(ffi::type_attr::kAnyEqual);
}

TEST(NativeFunction, MapKeysUseNativeAnyHashAndEqual) {
  auto tag = [](int64_t id, const char* name) {
    return ffi::ObjectRef(ffi::make_object<TagObj>(id, name));
  };
  ffi::Map<ffi::ObjectRef, int64_t> m;
  m.Set(tag(1, "a"), 10);
  m.Set(tag(2, "b"), 20);
  EXPECT_EQ(m.at(tag(1, "another object, same id")), 10);
  m.Set(tag(2, "replaces"), 21);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at(tag(2, "")), 21);
  EXPECT_EQ(m.count(tag(3, "a")), 0u);
}

class ColorObj : public ffi::EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.native.Color", ColorObj, ffi::EnumObj);
};

int64_t Wavelength(int64_t scale) { return 700 * scale; }

TEST(NativeFunction, EnumMembersTakeNativeAttributes) {
  static constexpr refl::AttrKey<NativeFunctionView<int64_t(int64_t)>> kWave{"wavelength"};
  refl::EnumDef<ColorObj>("RED").set_native_fn_attr<&Wavelength>(kWave);
  ffi::EnumState state = *ffi::detail::FindEnumState(ColorObj::RuntimeTypeIndex());
  auto column = state->attrs.Get("wavelength").value();
  ffi::ObjectRef red = ffi::EnumObj::_GetByStrIndex<ColorObj>("RED");
  EXPECT_EQ(column.at(red).cast<NativeFunctionView<int64_t(int64_t)>>()(2), 1400);
}

}  // namespace
