// How Optional<T> is laid out, as the reference's (so object fields read the same under either
// header set): an Optional of a reference is the one pointer; of a number, device, dtype, pointer,
// String or Bytes, a TVMFFIAny holding the value or None; of a Variant, the Variant's Any; a
// nested Optional, an Any in which an empty inner Optional is nothing. The rest of Optional:
// test_optional.cc.
#include <ffi/container/array.h>
#include <ffi/container/variant.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::ObjectRef;
using ffi::Optional;
using ffi::String;

// A nested Optional is an Any holding the inner value, as TVM-FFI's; an empty inner Optional
// is nothing, as the same value is after a round trip through an Any.
static_assert(sizeof(Optional<Optional<int>>) == sizeof(TVMFFIAny));
static_assert(sizeof(Optional<Optional<int64_t>>) == sizeof(TVMFFIAny));
static_assert(sizeof(Optional<Optional<String>>) == sizeof(TVMFFIAny));
static_assert(sizeof(Optional<Optional<Box>>) == sizeof(TVMFFIAny));
static_assert(sizeof(Optional<Optional<Optional<bool>>>) == sizeof(TVMFFIAny));

TEST(Optional, NestedOptionalIsAnAnyAndAnEmptyInnerIsNothing) {
  Optional<Optional<int64_t>> outer_empty;
  Optional<Optional<int64_t>> inner_empty = Optional<int64_t>();
  Optional<Optional<int64_t>> full = Optional<int64_t>(3);
  EXPECT_FALSE(outer_empty.has_value());
  EXPECT_FALSE(inner_empty.has_value());
  EXPECT_FALSE(inner_empty->has_value());  // `*` and `->` give an empty inner Optional
  ASSERT_TRUE(full.has_value());
  ASSERT_TRUE(full->has_value());
  EXPECT_EQ(full.value().value(), 3);
  // The bytes are those of an Any holding the value.
  const auto* raw = reinterpret_cast<const TVMFFIAny*>(&full);
  EXPECT_EQ(raw->type_index, kTVMFFIInt);
  EXPECT_EQ(raw->v_int64, 3);
  EXPECT_EQ(reinterpret_cast<const TVMFFIAny*>(&inner_empty)->type_index, kTVMFFINone);
  // nullopt and nullptr empty it.
  Optional<Optional<int64_t>> from_nullopt = std::nullopt;
  Optional<Optional<int64_t>> from_nullptr = nullptr;
  EXPECT_FALSE(from_nullopt.has_value());
  EXPECT_FALSE(from_nullptr.has_value());
  // Copies, moves and assignments.
  Optional<Optional<int64_t>> copy = full;
  EXPECT_EQ(**copy, 3);
  Optional<Optional<int64_t>> moved = std::move(copy);
  EXPECT_EQ(**moved, 3);
  EXPECT_FALSE(copy.has_value());  // NOLINT(bugprone-use-after-move): moving leaves nothing
  moved = outer_empty;
  EXPECT_FALSE(moved.has_value());
  moved = full;
  EXPECT_EQ(**moved, 3);
  moved = Optional<int64_t>();
  EXPECT_FALSE(moved.has_value());
  EXPECT_TRUE(full == Optional<Optional<int64_t>>(Optional<int64_t>(3)));
  EXPECT_TRUE(inner_empty == outer_empty);
  // value() throws when there is nothing.
  ffi::Error e = CatchError([&] { (void)outer_empty.value(); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "Bad optional access");
  // Through Any: None is nothing, an int the full value, a string no conversion.
  Optional<Optional<int64_t>> from_none = Any().cast<Optional<Optional<int64_t>>>();
  EXPECT_FALSE(from_none.has_value());
  Optional<Optional<int64_t>> from_int = Any(int64_t{8}).cast<Optional<Optional<int64_t>>>();
  ASSERT_TRUE(from_int.has_value());
  EXPECT_EQ(**from_int, 8);
  EXPECT_FALSE(Any(String("x")).try_cast<Optional<Optional<int64_t>>>().has_value());
  Any back = full;
  EXPECT_EQ(back.cast<int64_t>(), 3);
}

TEST(Optional, NestedOptionalOfAReferenceCarriesTheObjectsTypeIndex) {
  Box box(5);
  Optional<Optional<Box>> nested = Optional<Box>(box);
  const auto* raw = reinterpret_cast<const TVMFFIAny*>(&nested);
  EXPECT_EQ(raw->type_index, box->type_index());  // as an Any holding the object
  EXPECT_EQ(raw->v_obj, ffi::detail::ObjectUnsafe::HeaderOf(box));
  EXPECT_EQ(box.use_count(), 2u);
  EXPECT_EQ((*nested)->value, 5);
  nested = Optional<Box>();
  EXPECT_FALSE(nested.has_value());
  EXPECT_EQ(raw->type_index, kTVMFFINone);
  EXPECT_EQ(box.use_count(), 1u);
  Optional<Optional<String>> text = Optional<String>(String("a nested string"));
  EXPECT_EQ(reinterpret_cast<const TVMFFIAny*>(&text)->type_index, kTVMFFIStr);
  EXPECT_EQ(**text, "a nested string");
}

TEST(Optional, OfAReferenceIsOnePointerAndArrowReachesTheObject) {
  static_assert(sizeof(Optional<Box>) == sizeof(void*));
  static_assert(sizeof(Optional<ObjectRef>) == sizeof(void*));
  static_assert(sizeof(Optional<ffi::Array<int>>) == sizeof(void*));
  Optional<Box> box = Box(4);
  EXPECT_EQ(box->value, 4);  // BoxObj's field, as through the reference itself
  EXPECT_EQ(box.get()->value, 4);
  // A null reference is nothing; nothing reads back as None.
  Optional<ObjectRef> null_ref = ObjectRef();
  EXPECT_FALSE(null_ref.has_value());
  EXPECT_TRUE(Any(null_ref).is_none());
  EXPECT_EQ(box.use_count(), 1u);
  EXPECT_TRUE(box.unique());
  box.reset();
  EXPECT_EQ(box, std::nullopt);
}

TEST(Optional, NumbersAreLaidOutAsAnAny) {
  // As the reference's: an object field Optional<int64_t> / Optional<double> reads the same from
  // code built with either header set (tests/python/objects/test_field_layout.py reads one across
  // them).
  static_assert(sizeof(ffi::Optional<int64_t>) == sizeof(TVMFFIAny));
  static_assert(sizeof(ffi::Optional<double>) == sizeof(TVMFFIAny));
  ffi::Optional<int64_t> count = -5;
  ffi::Optional<double> scale = 2.5;
  ffi::Optional<int64_t> none;
  TVMFFIAny raw;
  std::memcpy(&raw, &count, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFIInt);
  EXPECT_EQ(raw.v_int64, -5);
  std::memcpy(&raw, &scale, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFIFloat);
  EXPECT_EQ(raw.v_float64, 2.5);
  std::memcpy(&raw, &none, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFINone);
  count.reset();
  std::memcpy(&raw, &count, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFINone);
  // Narrower numbers are widened into the Any, as the reference's, and come back by value.
  static_assert(sizeof(ffi::Optional<int>) == sizeof(TVMFFIAny));
  static_assert(sizeof(ffi::Optional<bool>) == sizeof(TVMFFIAny));
  static_assert(sizeof(ffi::Optional<float>) == sizeof(TVMFFIAny));
  ffi::Optional<int> small = -3;
  std::memcpy(&raw, &small, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFIInt);
  EXPECT_EQ(raw.v_int64, -3);
  EXPECT_EQ(*small, -3);
  small = 7;
  EXPECT_EQ(small.value(), 7);
  ffi::Optional<bool> flag = true;
  std::memcpy(&raw, &flag, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFIBool);
  EXPECT_EQ(raw.v_int64, 1);
  ffi::Optional<float> half = 0.5f;
  std::memcpy(&raw, &half, sizeof(raw));
  EXPECT_EQ(raw.type_index, kTVMFFIFloat);
  EXPECT_EQ(raw.v_float64, 0.5);
  EXPECT_EQ(half.value_or(1.0f), 0.5f);
  half = std::nullopt;
  EXPECT_FALSE(half.has_value());
  EXPECT_EQ(half.value_or(1.0f), 1.0f);
  EXPECT_THROW(half.value(), ffi::Error);
  EXPECT_TRUE(ffi::Optional<int>(2) == ffi::Optional<int>(2));
  EXPECT_TRUE(ffi::Optional<int>(2) != ffi::Optional<int>());
  EXPECT_TRUE(ffi::Optional<int>(2) == 2);
}

TEST(Optional, DevicesDtypesPointersAndStringsAreLaidOutAsAnAny) {
  static_assert(sizeof(Optional<DLDevice>) == sizeof(TVMFFIAny));
  static_assert(sizeof(Optional<DLDataType>) == sizeof(TVMFFIAny));
  static_assert(sizeof(Optional<void*>) == sizeof(TVMFFIAny));
  static_assert(sizeof(Optional<String>) == sizeof(TVMFFIAny));
  static_assert(sizeof(Optional<ffi::Bytes>) == sizeof(TVMFFIAny));
  Optional<DLDevice> device = DLDevice{kDLCUDA, 3};
  const auto* raw = reinterpret_cast<const TVMFFIAny*>(&device);
  EXPECT_EQ(raw->type_index, kTVMFFIDevice);
  EXPECT_EQ(raw->v_device.device_type, kDLCUDA);
  EXPECT_EQ(raw->v_device.device_id, 3);
  Optional<DLDataType> dtype = DLDataType{kDLFloat, 16, 1};
  raw = reinterpret_cast<const TVMFFIAny*>(&dtype);
  EXPECT_EQ(raw->type_index, kTVMFFIDataType);
  EXPECT_EQ(raw->v_dtype.bits, 16);
  int target = 0;
  Optional<void*> ptr = static_cast<void*>(&target);
  raw = reinterpret_cast<const TVMFFIAny*>(&ptr);
  EXPECT_EQ(raw->type_index, kTVMFFIOpaquePtr);
  EXPECT_EQ(raw->v_ptr, &target);
  // A String's Optional is its cell: inline bytes or the object, None when empty.
  Optional<String> text = String("short");
  raw = reinterpret_cast<const TVMFFIAny*>(&text);
  EXPECT_EQ(raw->type_index, kTVMFFISmallStr);
  EXPECT_EQ(raw->small_str_len, 5u);
  EXPECT_EQ(text->size(), 5u);
  text = String("a string long enough for an object");
  EXPECT_EQ(raw->type_index, kTVMFFIStr);
  EXPECT_EQ(UseCount(*text), 1u);
  Optional<String> moved = std::move(text);
  EXPECT_FALSE(text.has_value());  // NOLINT(bugprone-use-after-move): moving leaves nothing
  EXPECT_EQ(raw->type_index, kTVMFFINone);
  EXPECT_EQ(UseCount(*moved), 1u);
  String out = std::move(moved).value();
  EXPECT_FALSE(moved.has_value());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(UseCount(out), 1u);
  text.reset();
  EXPECT_EQ(*text, "");  // an empty one reads as ""
}

TEST(Optional, OfAVariantIsTheVariantsAny) {
  using V = ffi::Variant<int64_t, String, Box>;
  static_assert(sizeof(Optional<V>) == sizeof(TVMFFIAny));
  Optional<V> none;
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(reinterpret_cast<const TVMFFIAny*>(&none)->type_index, kTVMFFINone);
  Box box(4);
  Optional<V> held = V(box);
  ASSERT_TRUE(held.has_value());
  const auto* raw = reinterpret_cast<const TVMFFIAny*>(&held);
  EXPECT_EQ(raw->type_index, box->type_index());
  EXPECT_EQ(box.use_count(), 2u);
  EXPECT_EQ(held->get<Box>()->value, 4);
  held = V(int64_t{9});
  EXPECT_EQ(box.use_count(), 1u);
  EXPECT_EQ(raw->type_index, kTVMFFIInt);
  EXPECT_EQ(held.value().get<int64_t>(), 9);
  held = std::nullopt;
  EXPECT_FALSE(held.has_value());
  EXPECT_EQ(CatchError([&] { (void)held.value(); }).message(), "Bad optional access");
  // Through Any: None is nothing, a held value comes back.
  EXPECT_FALSE(Any().cast<Optional<V>>().has_value());
  Optional<V> text = Any(String("from an any, long")).cast<Optional<V>>();
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->get<String>(), "from an any, long");
  Any back = text;
  EXPECT_EQ(back.cast<String>(), "from an any, long");
}

}  // namespace
