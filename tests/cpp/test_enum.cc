// Enums (enum.h, reflection/enum_def.h): members defined with EnumDef, found by either index,
// their extensible attributes, the shared state's layout as reflection reports it, AnyString, and
// the runtime's readers (JSON graphs, repr, structural equality) of enum members.
#include <ffi/enum.h>
#include <ffi/extra/json.h>
#include <ffi/extra/serialization.h>
#include <ffi/extra/structural_equal.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/enum_def.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = ffi::reflection;

class ColorObj : public ffi::EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.enum.Color", ColorObj, ffi::EnumObj);
};

class LevelObj : public ffi::IntEnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.enum.Level", LevelObj, ffi::IntEnumObj);
};

class EmptyObj : public ffi::EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.enum.Empty", EmptyObj, ffi::EnumObj);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<ColorObj>(refl::init(false));
  refl::EnumDef<ColorObj>("red").set_attr("rgb", int64_t{0xff0000});
  refl::EnumDef<ColorObj>("a_color_with_a_long_name").set_attr("rgb", int64_t{0x00ff00});
  refl::ObjectDef<LevelObj>(refl::init(false));
  refl::EnumDef<LevelObj>("low", -5);
  refl::EnumDef<LevelObj>("max", INT64_MAX);
  refl::ObjectDef<EmptyObj>(refl::init(false));
}

TEST(Enum, MembersByEitherIndex) {
  ffi::Enum red = ffi::EnumObj::_GetByStrIndex<ColorObj>("red");
  EXPECT_EQ(red->_int_index, 0);
  EXPECT_EQ(ffi::String(red->_str_index), "red");
  EXPECT_TRUE(red.same_as(ffi::EnumObj::_GetByIntIndex<ColorObj>(0)));
  ffi::Enum green = ffi::EnumObj::_GetByIntIndex<ColorObj>(1);
  EXPECT_EQ(green->_str_index.get(), "a_color_with_a_long_name");  // a string object, not inline
  EXPECT_TRUE(green->IsInstance<ColorObj>());

  ffi::Enum low = ffi::EnumObj::_GetByIntIndex<LevelObj>(-5);
  EXPECT_EQ(low->_str_index, ffi::AnyString("low"));
  EXPECT_EQ(ffi::EnumObj::_GetByStrIndex<LevelObj>("max")->_int_index, INT64_MAX);
}

TEST(Enum, MissingMemberIsValueError) {
  ffi::Error e = ExpectError([] { ffi::EnumObj::_GetByStrIndex<ColorObj>("blue"); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("testing.enum.Color"), std::string::npos);
  EXPECT_NE(e.message().find("\"blue\""), std::string::npos);
  EXPECT_EQ(ExpectError([] { ffi::EnumObj::_GetByIntIndex<LevelObj>(7); }).kind(), "ValueError");
  // An enum class with no members has no state at all.
  EXPECT_EQ(ExpectError([] { ffi::EnumObj::_GetByIntIndex<EmptyObj>(0); }).kind(), "ValueError");
  EXPECT_FALSE(refl::EnumDef<EmptyObj>::IsDefined("x"));
}

TEST(Enum, DuplicateIndexIsValueError) {
  EXPECT_TRUE(refl::EnumDef<ColorObj>::IsDefined("red"));
  EXPECT_FALSE(refl::EnumDef<ColorObj>::IsDefined("blue"));
  EXPECT_EQ(ExpectError([] { refl::EnumDef<ColorObj>("red"); }).kind(), "ValueError");
  EXPECT_EQ(ExpectError([] { refl::EnumDef<LevelObj>("other", -5); }).kind(), "ValueError");
  // The failed definitions added nothing.
  ffi::AnyView state =
      refl::TypeAttrColumn(ffi::type_attr::kEnumState)[ColorObj::RuntimeTypeIndex()];
  EXPECT_EQ(state.cast<ffi::EnumState>()->entries.size(), 2u);
}

TEST(Enum, StateHoldsMembersIndexesAndAttributes) {
  ffi::EnumState state =
      refl::TypeAttrColumn(ffi::type_attr::kEnumState)[ColorObj::RuntimeTypeIndex()]
          .cast<ffi::EnumState>();
  ASSERT_EQ(state->entries.size(), 2u);
  ffi::ObjectRef red = state->entries[0];
  EXPECT_TRUE(state->indexes.at(ffi::Any(int64_t{0})).same_as(red));
  EXPECT_TRUE(state->indexes.at(ffi::Any(ffi::String("red"))).same_as(red));
  ffi::Dict<ffi::ObjectRef, ffi::Any> rgb = state->attrs.at("rgb");
  EXPECT_EQ(rgb.at(red).cast<int64_t>(), 0xff0000);
  EXPECT_EQ(rgb.at(state->entries[1]).cast<int64_t>(), 0x00ff00);
}

TEST(Enum, ReflectionSeesTheIndices) {
  ffi::Enum green = ffi::EnumObj::_GetByIntIndex<ColorObj>(1);
  const TVMFFIFieldInfo* name = refl::GetFieldInfo("ffi.Enum", "_str_index");
  EXPECT_EQ(name->size, 16);  // the reference's String layout
  EXPECT_EQ(refl::FieldGetter(name)(green.get()).cast<ffi::String>(), "a_color_with_a_long_name");
  const TVMFFIFieldInfo* value = refl::GetFieldInfo("ffi.IntEnum", "value");
  ffi::Enum low = ffi::EnumObj::_GetByIntIndex<LevelObj>(-5);
  EXPECT_EQ(refl::FieldGetter(value)(low.get()).cast<int64_t>(), -5);
}

TEST(Enum, RuntimeReadersUseTheMember) {
  ffi::Enum red = ffi::EnumObj::_GetByStrIndex<ColorObj>("red");
  ffi::Function repr = ffi::Function::GetGlobalRequired("ffi.ReprPrint");
  EXPECT_EQ(repr(red).cast<ffi::String>(), "testing.enum.Color.red");
  // JSON graphs carry the index and come back as the same member.
  ffi::Function to_json = ffi::Function::GetGlobalRequired("ffi.ToJSONGraphString");
  ffi::Function from_json = ffi::Function::GetGlobalRequired("ffi.FromJSONGraphString");
  ffi::String text = to_json(red, nullptr).cast<ffi::String>();
  EXPECT_NE(std::string(text.view()).find("\"red\""), std::string::npos);
  EXPECT_TRUE(from_json(text).cast<ffi::ObjectRef>().same_as(red));
  ffi::Enum low = ffi::EnumObj::_GetByIntIndex<LevelObj>(-5);
  EXPECT_TRUE(from_json(to_json(low, nullptr)).cast<ffi::ObjectRef>().same_as(low));
  // Members are singletons: structurally equal to themselves only.
  ffi::Function equal = ffi::Function::GetGlobalRequired("ffi.StructuralEqual");
  EXPECT_TRUE(equal(red, red, false, false).cast<bool>());
  EXPECT_FALSE(equal(red, ffi::EnumObj::_GetByIntIndex<ColorObj>(1), false, false).cast<bool>());
}

TEST(AnyString, HoldsShortAndLongStrings) {
  ffi::AnyString empty;
  EXPECT_EQ(empty.get(), "");
  EXPECT_EQ(empty.as_any().type_index(), kTVMFFISmallStr);
  ffi::AnyString small("abc");
  EXPECT_EQ(small.as_any().type_index(), kTVMFFISmallStr);
  ffi::AnyString large(ffi::String("more than seven bytes"));
  EXPECT_EQ(large.as_any().type_index(), kTVMFFIStr);
  EXPECT_EQ(ffi::String(large), "more than seven bytes");
  large = ffi::String("x");
  EXPECT_EQ(large, ffi::AnyString("x"));
  EXPECT_NE(large, small);
  // Into and out of an Any as a String.
  ffi::Any held = ffi::AnyString("a string object here");
  EXPECT_EQ(held.type_index(), kTVMFFIStr);
  EXPECT_EQ(held.cast<ffi::AnyString>().get(), "a string object here");
  EXPECT_FALSE(ffi::Any(int64_t{1}).as<ffi::AnyString>().has_value());
}

}  // namespace
