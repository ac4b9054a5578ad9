// AnyView and Any: how each kind of value is stored, strict and converting reads, errors, and
// the ownership rules (reference counts, views versus owned values).
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::AnyView;
using ffi::ObjectRef;
using ffi::Optional;
using ffi::String;

class BoxObj : public ffi::Object {
 public:
  explicit BoxObj(int v) : value(v) {}
  int value;
  FFI_DECLARE_OBJECT_INFO("test.any.Box", BoxObj, ffi::Object);
};

class Box : public ObjectRef {
 public:
  explicit Box(int v) : ObjectRef(ffi::make_object<BoxObj>(v)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(Box, ObjectRef, BoxObj);
};

class OtherObj : public ffi::Object {
 public:
  FFI_DECLARE_OBJECT_INFO("test.any.Other", OtherObj, ffi::Object);
};

const char* const kLong = "a string clearly longer than seven bytes";

// ---------------------------------------------------------------------------------------------
// POD values
// ---------------------------------------------------------------------------------------------

TEST(AnyPod, NoneByDefault) {
  AnyView v;
  Any a;
  EXPECT_EQ(v.type_index(), kTVMFFINone);
  EXPECT_TRUE(v.is_none());
  EXPECT_EQ(a.type_index(), kTVMFFINone);
  EXPECT_TRUE(a.is_none());
  EXPECT_EQ(a.GetTypeName(), "None");
  EXPECT_EQ(a.raw()->v_int64, 0);
  Any n = nullptr;
  EXPECT_TRUE(n.is_none());
  EXPECT_TRUE(n.as<std::nullptr_t>().has_value());
  EXPECT_FALSE(Any(0).as<std::nullptr_t>().has_value());
}

TEST(AnyPod, Bool) {
  Any t = true;
  Any f = false;
  EXPECT_EQ(t.type_index(), kTVMFFIBool);
  EXPECT_EQ(t.raw()->v_int64, 1);
  EXPECT_EQ(f.raw()->v_int64, 0);
  EXPECT_EQ(t.as<bool>(), std::optional<bool>(true));
  EXPECT_EQ(f.as<bool>(), std::optional<bool>(false));
  EXPECT_EQ(t.GetTypeName(), "bool");
  // bool -> int is a conversion, not a strict match.
  EXPECT_FALSE(t.as<int>().has_value());
  EXPECT_EQ(t.try_cast<int>(), std::optional<int>(1));
  EXPECT_EQ(t.cast<int64_t>(), 1);
  EXPECT_EQ(f.try_cast<double>(), std::optional<double>(0.0));
  AnyView v = true;
  EXPECT_EQ(v.type_index(), kTVMFFIBool);
}

TEST(AnyPod, IntegerTypes) {
  Any i8 = int8_t{-5};
  Any u8 = uint8_t{250};
  Any i32 = int32_t{-70000};
  Any i64 = int64_t{1} << 40;
  Any u64 = std::numeric_limits<uint64_t>::max();
  Any sz = size_t{123};
  for (const Any* a : {&i8, &u8, &i32, &i64, &u64, &sz}) {
    EXPECT_EQ(a->type_index(), kTVMFFIInt);
    EXPECT_EQ(a->GetTypeName(), "int");
  }
  EXPECT_EQ(i8.raw()->v_int64, -5);
  EXPECT_EQ(u8.raw()->v_int64, 250);
  EXPECT_EQ(i32.as<int32_t>(), std::optional<int32_t>(-70000));
  EXPECT_EQ(i64.as<int64_t>(), std::optional<int64_t>(int64_t{1} << 40));
  EXPECT_EQ(u64.cast<uint64_t>(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(sz.cast<size_t>(), 123u);
  EXPECT_EQ(i8.cast<int>(), -5);
  // int -> bool converts (non-zero is true); int -> double converts; neither is strict.
  EXPECT_FALSE(i32.as<bool>().has_value());
  EXPECT_EQ(i32.try_cast<bool>(), std::optional<bool>(true));
  EXPECT_EQ(Any(0).try_cast<bool>(), std::optional<bool>(false));
  EXPECT_FALSE(i32.as<double>().has_value());
  EXPECT_EQ(i32.try_cast<double>(), std::optional<double>(-70000.0));
  EXPECT_DOUBLE_EQ(i64.cast<double>(), 1099511627776.0);
  AnyView v = 17;
  EXPECT_EQ(v.type_index(), kTVMFFIInt);
  EXPECT_EQ(v.raw()->v_int64, 17);
}

TEST(AnyPod, Double) {
  Any d = 2.5;
  Any f = 1.25f;
  EXPECT_EQ(d.type_index(), kTVMFFIFloat);
  EXPECT_EQ(f.type_index(), kTVMFFIFloat);
  EXPECT_EQ(d.raw()->v_float64, 2.5);
  EXPECT_EQ(d.as<double>(), std::optional<double>(2.5));
  EXPECT_EQ(f.as<float>(), std::optional<float>(1.25f));
  EXPECT_EQ(d.GetTypeName(), "float");
  // double -> int is refused, even with try_cast.
  EXPECT_FALSE(d.as<int>().has_value());
  EXPECT_FALSE(d.try_cast<int>().has_value());
  EXPECT_FALSE(d.try_cast<bool>().has_value());
  ffi::Error e = CatchError([&] { d.cast<int>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `float` to `int`");
}

TEST(AnyPod, OpaquePointer) {
  int target = 0;
  void* p = &target;
  Any a = p;
  AnyView v = p;
  EXPECT_EQ(a.type_index(), kTVMFFIOpaquePtr);
  EXPECT_EQ(v.type_index(), kTVMFFIOpaquePtr);
  EXPECT_EQ(a.as<void*>(), std::optional<void*>(p));
  EXPECT_EQ(v.cast<void*>(), p);
  EXPECT_EQ(a.GetTypeName(), "void*");
  EXPECT_FALSE(a.try_cast<int64_t>().has_value());
  // A null pointer is still a pointer (as the reference stores it); None reads back as a null
  // pointer only through try_cast.
  Any null_ptr = static_cast<void*>(nullptr);
  EXPECT_EQ(null_ptr.type_index(), kTVMFFIOpaquePtr);
  EXPECT_FALSE(null_ptr.is_none());
  EXPECT_EQ(null_ptr.as<void*>(), std::optional<void*>(nullptr));
  std::optional<void*> from_none = Any().try_cast<void*>();
  ASSERT_TRUE(from_none.has_value());
  EXPECT_EQ(*from_none, nullptr);
  EXPECT_EQ(Any().cast<void*>(), nullptr);
  EXPECT_FALSE(Any(1).try_cast<void*>().has_value());
}

TEST(AnyPod, Device) {
  DLDevice dev{kDLCUDA, 3};
  Any a = dev;
  AnyView v = dev;
  EXPECT_EQ(a.type_index(), kTVMFFIDevice);
  EXPECT_EQ(v.type_index(), kTVMFFIDevice);
  DLDevice back = a.cast<DLDevice>();
  EXPECT_EQ(back.device_type, kDLCUDA);
  EXPECT_EQ(back.device_id, 3);
  EXPECT_EQ(a.raw()->v_device.device_id, 3);
  EXPECT_EQ(a.GetTypeName(), "Device");
  EXPECT_FALSE(a.try_cast<DLDataType>().has_value());
  EXPECT_FALSE(Any(1).try_cast<DLDevice>().has_value());
}

TEST(AnyPod, DataType) {
  DLDataType dt{kDLFloat, 16, 4};
  Any a = dt;
  EXPECT_EQ(a.type_index(), kTVMFFIDataType);
  std::optional<DLDataType> back = a.as<DLDataType>();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->code, kDLFloat);
  EXPECT_EQ(back->bits, 16);
  EXPECT_EQ(back->lanes, 4);
  EXPECT_EQ(a.GetTypeName(), "DataType");
  EXPECT_FALSE(a.try_cast<DLDevice>().has_value());
  ffi::Error e = CatchError([&] { a.cast<int>(); });
  EXPECT_EQ(e.message(), "Cannot convert from type `DataType` to `int`");
}

TEST(AnyPod, DLTensorPointerIsAView) {
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 1;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  DLTensor* ptr = &t;
  AnyView v = ptr;
  EXPECT_EQ(v.type_index(), kTVMFFIDLTensorPtr);
  EXPECT_EQ(v.raw()->v_ptr, ptr);
  EXPECT_EQ(v.as<DLTensor*>(), std::optional<DLTensor*>(ptr));
  EXPECT_EQ(v.GetTypeName(), "DLTensor*");
  EXPECT_FALSE(v.try_cast<void*>().has_value());
  AnyView null_view = static_cast<DLTensor*>(nullptr);
  EXPECT_TRUE(null_view.is_none());

  // A borrowed tensor cannot become an owned value.
  ffi::Error e = CatchError([&] { Any owned{AnyView(ptr)}; });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("DLTensor*"), std::string::npos) << e.message();
  // Nor through the C API.
  TVMFFIAny out{};
  out.type_index = kTVMFFINone;
  EXPECT_NE(TVMFFIAnyViewToOwnedAny(v.raw(), &out), 0);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  EXPECT_EQ(std::string(cell->kind.data, cell->kind.size), "TypeError");
  TVMFFIObjectDecRef(err);
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

TEST(AnyString, RawCStringViewAndOwnedCopy) {
  std::string storage(kLong);
  const char* cstr = storage.c_str();
  AnyView v = cstr;
  EXPECT_EQ(v.type_index(), kTVMFFIRawStr);
  EXPECT_EQ(v.raw()->v_c_str, cstr);  // borrowed, not copied
  EXPECT_EQ(v.GetTypeName(), "str");
  EXPECT_EQ(v.cast<std::string>(), storage);
  EXPECT_EQ(v.cast<String>(), storage);
  // Strict reads only accept owned string kinds.
  EXPECT_FALSE(v.as<String>().has_value());

  Any owned = v;  // AnyView -> Any copies the characters into a String
  EXPECT_EQ(owned.type_index(), kTVMFFIStr);
  ASSERT_TRUE(owned.as<String>().has_value());
  EXPECT_NE(owned.as<String>()->data(), cstr);
  storage.assign(storage.size(), 'z');  // the original may change or go away
  EXPECT_EQ(owned.cast<std::string>(), kLong);

  const char* small = "tiny";
  Any owned_small = AnyView(small);
  EXPECT_EQ(owned_small.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(owned_small.cast<std::string>(), "tiny");
}

TEST(AnyString, StringLiteralViewIsABorrowedCString) {
  // A literal is a const char array: the view should borrow it like a const char*, not refer to
  // a temporary copy.
  static const char kLiteral[] = "a literal that does not fit in a small string";
  AnyView v(kLiteral);
  // Only the view's own 16 bytes are read until it is known to borrow the literal: a view of a
  // freed temporary must not be dereferenced here (it would abort the sanitizer build).
  ASSERT_EQ(v.type_index(), kTVMFFIRawStr) << "the view holds a " << v.GetTypeName();
  EXPECT_EQ(v.raw()->v_c_str, kLiteral);
  EXPECT_EQ(v.cast<std::string>(), kLiteral);
}

TEST(AnyString, NullCStringIsNone) {
  const char* null_str = nullptr;
  AnyView v = null_str;
  EXPECT_TRUE(v.is_none());
  Any from_view = v;
  EXPECT_TRUE(from_view.is_none());
  // Storing a null C string directly must agree with the view: None, not std::string(nullptr).
  std::optional<Any> owned;
  EXPECT_NO_THROW(owned.emplace(null_str));
  ASSERT_TRUE(owned.has_value());
  EXPECT_TRUE(owned->is_none());
}

TEST(AnyString, ConstCharPointerIntoAnyIsOwned) {
  std::string storage = kLong;
  Any a = storage.c_str();
  EXPECT_EQ(a.type_index(), kTVMFFIStr);
  EXPECT_NE(a.as<String>()->data(), storage.c_str());
  Any lit = "abc";
  EXPECT_EQ(lit.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(lit.cast<String>(), "abc");
}

TEST(AnyString, StdString) {
  std::string small = "hey";
  std::string large = kLong;
  AnyView v = large;
  EXPECT_EQ(v.type_index(), kTVMFFIRawStr);
  EXPECT_EQ(v.raw()->v_c_str, large.c_str());
  Any a_small = small;
  Any a_large = large;
  EXPECT_EQ(a_small.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(a_small.raw()->small_str_len, 3u);
  EXPECT_EQ(a_large.type_index(), kTVMFFIStr);
  EXPECT_EQ(a_small.cast<std::string>(), small);
  EXPECT_EQ(a_large.cast<std::string>(), large);
  EXPECT_EQ(a_large.as<std::string>(), std::optional<std::string>(large));
  EXPECT_FALSE(Any(3).try_cast<std::string>().has_value());
}

TEST(AnyString, SmallAndLargeString) {
  String small("1234567");
  String large("12345678");
  Any a_small = small;
  Any a_large = large;
  EXPECT_EQ(a_small.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(a_small.raw()->small_str_len, 7u);
  EXPECT_EQ(std::memcmp(a_small.raw()->v_bytes, "1234567", 7), 0);
  EXPECT_EQ(small.use_count(), 1u);  // small strings travel by value
  EXPECT_EQ(a_large.type_index(), kTVMFFIStr);
  EXPECT_EQ(large.use_count(), 2u);  // large strings share the object
  EXPECT_TRUE(a_large.cast<String>().same_as(large));
  EXPECT_EQ(a_small.cast<String>(), "1234567");
  // A view of a String always refers to the object, whatever its length.
  AnyView v_small = small;
  EXPECT_EQ(v_small.type_index(), kTVMFFIStr);
  EXPECT_EQ(small.use_count(), 1u);
  EXPECT_TRUE(v_small.cast<String>().same_as(small));
  EXPECT_EQ(a_small.GetTypeName(), "str");
  EXPECT_EQ(a_large.GetTypeName(), "str");
}

TEST(AnyString, Bytes) {
  ffi::Bytes small(std::string("a\0b", 3));
  ffi::Bytes large(std::string("0123456789\0abc", 14));
  Any a_small = small;
  Any a_large = large;
  EXPECT_EQ(a_small.type_index(), kTVMFFISmallBytes);
  EXPECT_EQ(a_small.raw()->small_str_len, 3u);
  EXPECT_EQ(a_large.type_index(), kTVMFFIBytes);
  EXPECT_EQ(a_small.GetTypeName(), "bytes");
  ffi::Bytes back = a_large.cast<ffi::Bytes>();
  EXPECT_EQ(back.size(), 14u);
  EXPECT_TRUE(back == large);
  EXPECT_EQ(a_small.cast<ffi::Bytes>().view(), std::string_view("a\0b", 3));
  // Bytes and strings do not mix.
  EXPECT_FALSE(a_small.try_cast<String>().has_value());
  // A std::string holds any bytes, so it accepts both (as TVM-FFI does).
  EXPECT_EQ(a_large.try_cast<std::string>(), std::string(large.view()));
  EXPECT_FALSE(Any(String("x")).try_cast<ffi::Bytes>().has_value());
  ffi::Error e = CatchError([&] { a_large.cast<String>(); });
  EXPECT_EQ(e.message(), "Cannot convert from type `bytes` to `str`");
}

TEST(AnyString, ByteArrayViewBecomesOwnedBytes) {
  std::string storage("raw\0bytes here", 14);
  TVMFFIByteArray arr{storage.data(), storage.size()};
  TVMFFIAny raw{};
  raw.type_index = kTVMFFIByteArrayPtr;
  raw.v_ptr = &arr;
  AnyView v = AnyView::FromRaw(raw);
  EXPECT_EQ(v.GetTypeName(), "bytes");
  EXPECT_EQ(v.cast<ffi::Bytes>().view(), std::string_view(storage));
  Any owned = v;
  EXPECT_EQ(owned.type_index(), kTVMFFIBytes);
  storage.assign(storage.size(), 'q');
  EXPECT_EQ(owned.cast<ffi::Bytes>().view(), std::string_view("raw\0bytes here", 14));
}

// ---------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------

TEST(AnyObject, ObjectRefCountsThroughViewsCopiesMovesAndReset) {
  Box box(5);
  EXPECT_EQ(box.use_count(), 1u);
  {
    AnyView v = box;
    EXPECT_EQ(v.type_index(), BoxObj::RuntimeTypeIndex());
    EXPECT_EQ(box.use_count(), 1u);  // views take no reference
    Any a = box;
    EXPECT_EQ(box.use_count(), 2u);
    EXPECT_EQ(a.raw()->v_obj, ffi::detail::ObjectUnsafe::HeaderOf(box));
    Any b = a;
    EXPECT_EQ(box.use_count(), 3u);
    Any c = std::move(b);
    EXPECT_TRUE(b.is_none());
    EXPECT_EQ(box.use_count(), 3u);
    Any from_view = v;  // AnyView -> Any takes a reference
    EXPECT_EQ(box.use_count(), 4u);
    c.reset();
    EXPECT_TRUE(c.is_none());
    EXPECT_EQ(box.use_count(), 3u);
    c.reset();  // resetting None is harmless
    EXPECT_EQ(box.use_count(), 3u);
    a = Any(1);
    EXPECT_EQ(box.use_count(), 2u);
    a = from_view;
    EXPECT_EQ(box.use_count(), 3u);
    a = a;  // self-assignment keeps the reference
    EXPECT_EQ(box.use_count(), 3u);
  }
  EXPECT_EQ(box.use_count(), 1u);
}

TEST(AnyObject, TypedReadsOfObjects) {
  Box box(9);
  Any a = box;
  EXPECT_EQ(a.GetTypeName(), "test.any.Box");
  std::optional<Box> back = a.as<Box>();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ((*back)->value, 9);
  EXPECT_EQ(box.use_count(), 3u);
  back.reset();
  EXPECT_TRUE(a.as<ObjectRef>().has_value());
  EXPECT_EQ(a.cast<ObjectRef>().get(), box.get());
  EXPECT_FALSE(a.as<String>().has_value());
  ffi::Error e = CatchError([&] { a.cast<String>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `test.any.Box` to `str`");

  Any other = ObjectRef(ffi::make_object<OtherObj>());
  EXPECT_FALSE(other.as<Box>().has_value());
  EXPECT_FALSE(other.try_cast<Box>().has_value());
  e = CatchError([&] { other.cast<Box>(); });
  EXPECT_EQ(e.message(), "Cannot convert from type `test.any.Other` to `test.any.Box`");
  // Values that are not objects are not ObjectRefs.
  EXPECT_FALSE(Any(1).try_cast<ObjectRef>().has_value());
}

TEST(AnyObject, NullObjectRefIsNone) {
  Box null_box;
  Any a = null_box;
  EXPECT_TRUE(a.is_none());
  AnyView v = null_box;
  EXPECT_TRUE(v.is_none());
  // A nullable reference reads None back as null; a non-nullable String does not.
  std::optional<Box> back = a.as<Box>();
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->defined());
  EXPECT_FALSE(a.try_cast<String>().has_value());
}

TEST(AnyObject, ErrorObjectsRoundTrip) {
  ffi::Error err("ValueError", "bad value", "");
  Any a = err;
  EXPECT_EQ(a.type_index(), kTVMFFIError);
  EXPECT_EQ(a.GetTypeName(), "Error");
  ffi::Error back = a.cast<ffi::Error>();
  EXPECT_TRUE(back.same_as(err));
  EXPECT_EQ(back.message(), "bad value");
}

TEST(AnyObject, ReleaseAndFromRawRoundTrip) {
  Box box(1);
  Any a = box;
  EXPECT_EQ(box.use_count(), 2u);
  TVMFFIAny raw = a.release();
  EXPECT_TRUE(a.is_none());
  EXPECT_EQ(raw.type_index, BoxObj::RuntimeTypeIndex());
  EXPECT_EQ(box.use_count(), 2u);  // the reference travels with the raw value
  {
    Any restored = Any::FromRaw(raw);
    EXPECT_EQ(box.use_count(), 2u);
    EXPECT_EQ(restored.cast<Box>()->value, 1);
  }
  EXPECT_EQ(box.use_count(), 1u);

  // POD values round-trip too.
  TVMFFIAny raw_int = Any(int64_t{-77}).release();
  EXPECT_EQ(raw_int.type_index, kTVMFFIInt);
  EXPECT_EQ(Any::FromRaw(raw_int).cast<int64_t>(), -77);
  // And AnyView::FromRaw borrows.
  Any held = box;
  AnyView view = AnyView::FromRaw(*held.raw());
  EXPECT_EQ(box.use_count(), 2u);
  EXPECT_EQ(view.cast<Box>()->value, 1);
}

TEST(AnyObject, RValueRefViewIsMovedIntoOwned) {
  Box box(6);
  Box other = box;
  TVMFFIObject* handle = ffi::detail::ObjectUnsafe::MoveToHeader(std::move(other));
  EXPECT_EQ(box.use_count(), 2u);  // `handle` owns the second reference
  TVMFFIAny raw{};
  raw.type_index = kTVMFFIObjectRValueRef;
  raw.v_ptr = &handle;
  Any owned = AnyView::FromRaw(raw);
  EXPECT_EQ(handle, nullptr);  // moved from, not copied
  EXPECT_EQ(owned.type_index(), BoxObj::RuntimeTypeIndex());
  EXPECT_EQ(box.use_count(), 2u);
  EXPECT_TRUE(owned.cast<Box>().same_as(box));
  owned.reset();
  EXPECT_EQ(box.use_count(), 1u);
}

TEST(AnyObject, AnyViewToOwnedAnyCApi) {
  Box box(3);
  AnyView v = box;
  TVMFFIAny out{};
  out.type_index = kTVMFFINone;
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(v.raw(), &out), 0);
  EXPECT_EQ(out.v_obj, ffi::detail::ObjectUnsafe::HeaderOf(box));
  EXPECT_EQ(box.use_count(), 2u);
  Any::FromRaw(out).reset();
  EXPECT_EQ(box.use_count(), 1u);

  std::string s = kLong;
  AnyView sv = s;
  TVMFFIAny out_str{};
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(sv.raw(), &out_str), 0);
  Any owned = Any::FromRaw(out_str);
  EXPECT_EQ(owned.type_index(), kTVMFFIStr);
  EXPECT_EQ(owned.cast<std::string>(), s);
}

// ---------------------------------------------------------------------------------------------
// Optional
// ---------------------------------------------------------------------------------------------

TEST(AnyOptional, ValuesAndNone) {
  Any some = Optional<int64_t>(5);
  Any none = Optional<int64_t>();
  EXPECT_EQ(some.type_index(), kTVMFFIInt);
  EXPECT_TRUE(none.is_none());
  std::optional<Optional<int64_t>> a = some.as<Optional<int64_t>>();
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ(a->value(), 5);
  std::optional<Optional<int64_t>> b = none.as<Optional<int64_t>>();
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(b->has_value());
  // Neither None nor an int: no Optional<int>.
  EXPECT_FALSE(Any(String("text")).try_cast<Optional<int64_t>>().has_value());
  // Strictness of the inner type carries over.
  EXPECT_FALSE(Any(true).as<Optional<int64_t>>().has_value());
  EXPECT_TRUE(Any(true).try_cast<Optional<int64_t>>().has_value());
}

TEST(AnyOptional, OptionalStringAndObjects) {
  Any s = Optional<String>(String(kLong));
  EXPECT_EQ(s.type_index(), kTVMFFIStr);
  Optional<String> back = s.cast<Optional<String>>();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, kLong);
  EXPECT_FALSE(Any().cast<Optional<String>>().has_value());

  Box box(2);
  Any a = Optional<Box>(box);
  EXPECT_EQ(box.use_count(), 2u);
  EXPECT_TRUE(a.cast<Optional<Box>>().value().same_as(box));
}

TEST(AnyOptional, TypeStrAndErrors) {
  EXPECT_EQ(ffi::TypeTraits<Optional<String>>::TypeStr(), "Optional<str>");
  EXPECT_EQ(ffi::TypeTraits<Optional<int64_t>>::TypeStr(), "Optional<int>");
  EXPECT_EQ(ffi::TypeTraits<Optional<Box>>::TypeStr(), "Optional<test.any.Box>");
  ffi::Error e = CatchError([] { Any(1.5).cast<Optional<String>>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `float` to `Optional<str>`");
  // An empty Optional's value() is a RuntimeError.
  Optional<int> empty;
  e = CatchError([&] { (void)empty.value(); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(empty.value_or(4), 4);
}

// ---------------------------------------------------------------------------------------------
// Optional<T> itself: its own storage, copies, moves and reference counts
// ---------------------------------------------------------------------------------------------

/*! \brief Counts its live instances, to check that Optional makes and destroys exactly one. */
struct Tracked {
  static int live;
  int value;
  explicit Tracked(int v) : value(v) { ++live; }
  Tracked(const Tracked& o) : value(o.value) { ++live; }
  Tracked(Tracked&& o) noexcept : value(o.value) { ++live; }
  Tracked& operator=(const Tracked&) = default;
  ~Tracked() { --live; }
};
int Tracked::live = 0;

const char* const kOtherLong = "another string clearly longer than seven bytes";

TEST(Optional, EmptyByDefaultNulloptAndNullptr) {
  Optional<int64_t> by_default;
  Optional<int64_t> from_nullopt = std::nullopt;
  Optional<int64_t> from_nullptr = nullptr;
  Optional<int64_t> from_braces = {};
  for (const Optional<int64_t>* o : {&by_default, &from_nullopt, &from_nullptr, &from_braces}) {
    EXPECT_FALSE(o->has_value());
    EXPECT_FALSE(static_cast<bool>(*o));
    EXPECT_TRUE(*o == std::nullopt);
    EXPECT_TRUE(*o == nullptr);
    EXPECT_FALSE(*o != std::nullopt);
    EXPECT_FALSE(*o != nullptr);
    EXPECT_EQ(o->value_or(-3), -3);
  }
  Optional<String> empty_string = nullptr;
  EXPECT_FALSE(empty_string.has_value());
  Optional<Box> empty_box = std::nullopt;
  EXPECT_FALSE(empty_box.has_value());
  // No T is made for an empty Optional, and T needs no default constructor.
  Tracked::live = 0;
  {
    Optional<Tracked> none;
    Optional<Tracked> none_too = nullptr;
    EXPECT_FALSE(none.has_value());
    EXPECT_FALSE(none_too.has_value());
    EXPECT_EQ(Tracked::live, 0);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(Optional, HoldsAValue) {
  Optional<int64_t> five = 5;
  EXPECT_TRUE(five.has_value());
  EXPECT_TRUE(static_cast<bool>(five));
  EXPECT_TRUE(five != std::nullopt);
  EXPECT_TRUE(five != nullptr);
  EXPECT_FALSE(five == nullptr);
  EXPECT_EQ(five.value(), 5);
  EXPECT_EQ(*five, 5);
  EXPECT_EQ(five.value_or(9), 5);
  // Zero and false are values, not "nothing".
  Optional<int64_t> zero = 0;
  EXPECT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, 0);
  Optional<bool> no = false;
  EXPECT_TRUE(no.has_value());
  EXPECT_TRUE(static_cast<bool>(no));
  EXPECT_FALSE(*no);
  // operator* and operator-> give access to the value, mutable when the Optional is.
  Optional<String> s = String(kLong);
  EXPECT_EQ(s->size(), std::strlen(kLong));
  EXPECT_EQ(*s, kLong);
  *s = String("changed");
  EXPECT_EQ(s.value(), "changed");
  Optional<Box> box = Box(7);
  EXPECT_EQ((*box)->value, 7);
  EXPECT_EQ(box.value()->value, 7);
  *box = Box(8);
  EXPECT_EQ(box.value()->value, 8);
  Optional<int64_t> counter = 1;
  ++*counter;
  EXPECT_EQ(counter.value(), 2);
  // value() of an rvalue hands the value out.
  EXPECT_EQ(Optional<String>(String(kLong)).value(), kLong);
  String moved_out = std::move(s).value();
  EXPECT_EQ(moved_out, "changed");
}

TEST(Optional, ValueOfEmptyThrowsRuntimeErrorAsTheReferenceDoes) {
  Optional<int> empty;
  ffi::Error e = CatchError([&] { (void)empty.value(); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "Bad optional access");
  e = CatchError([] { (void)Optional<int>().value(); });  // the rvalue overload too
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(CatchError([] { (void)Optional<String>().value(); }).message(), "Bad optional access");
  EXPECT_EQ(CatchError([] { (void)Optional<Box>().value(); }).message(), "Bad optional access");
  struct Plain {
    int x;
  };
  EXPECT_EQ(CatchError([] { (void)Optional<Plain>().value(); }).message(), "Bad optional access");
  // Not std::bad_optional_access.
  EXPECT_THROW((void)empty.value(), ffi::Error);
}

TEST(Optional, CopyMoveAssignAndReset) {
  Optional<int64_t> a = 1;
  Optional<int64_t> copy = a;
  EXPECT_EQ(copy.value(), 1);
  EXPECT_EQ(a.value(), 1);
  Optional<int64_t> moved = std::move(copy);
  EXPECT_EQ(moved.value(), 1);
  Optional<int64_t> empty;
  Optional<int64_t> copy_of_empty = empty;
  EXPECT_FALSE(copy_of_empty.has_value());
  Optional<int64_t> move_of_empty = std::move(empty);
  EXPECT_FALSE(move_of_empty.has_value());

  // Assignment: value over value, empty over value, value over empty.
  Optional<int64_t> b = 2;
  a = b;
  EXPECT_EQ(a.value(), 2);
  a = copy_of_empty;
  EXPECT_FALSE(a.has_value());
  a = b;
  EXPECT_EQ(a.value(), 2);
  a = Optional<int64_t>(3);
  EXPECT_EQ(a.value(), 3);
  a = Optional<int64_t>();
  EXPECT_FALSE(a.has_value());
  a = 4;
  EXPECT_EQ(a.value(), 4);
  a = std::nullopt;
  EXPECT_FALSE(a.has_value());
  a = 5;
  a = nullptr;
  EXPECT_FALSE(a.has_value());

  // Self-assignment keeps the value.
  a = 6;
  Optional<int64_t>& alias = a;
  a = alias;
  EXPECT_EQ(a.value(), 6);
  a = std::move(alias);
  EXPECT_EQ(a.value(), 6);

  a.reset();
  EXPECT_FALSE(a.has_value());
  a.reset();  // resetting an empty Optional is harmless
  EXPECT_FALSE(a.has_value());
}

TEST(Optional, MakesAndDestroysExactlyOneValue) {
  Tracked::live = 0;
  {
    Optional<Tracked> a = Tracked(1);
    EXPECT_EQ(Tracked::live, 1);
    Optional<Tracked> b = a;
    EXPECT_EQ(Tracked::live, 2);
    Optional<Tracked> c = std::move(b);  // b keeps a moved-from value, as std::optional does
    EXPECT_EQ(Tracked::live, 3);
    EXPECT_EQ(c->value, 1);
    b.reset();
    EXPECT_EQ(Tracked::live, 2);
    c = a;  // copy-assign over a value: the old one is destroyed
    EXPECT_EQ(Tracked::live, 2);
    c = Optional<Tracked>();
    EXPECT_EQ(Tracked::live, 1);
    c = std::move(a);
    EXPECT_EQ(Tracked::live, 2);
    Optional<Tracked>& alias = c;
    c = alias;
    EXPECT_EQ(Tracked::live, 2);
    EXPECT_EQ((*c).value, 1);
    a.reset();
    c.reset();
    EXPECT_EQ(Tracked::live, 0);
    c = Tracked(2);
    EXPECT_EQ(Tracked::live, 1);
  }
  EXPECT_EQ(Tracked::live, 0);  // the destructor destroys the value
}

TEST(Optional, ReferenceCountsOfObjects) {
  String s(kLong);
  ASSERT_EQ(s.use_count(), 1u);
  {
    Optional<String> a = s;
    EXPECT_EQ(s.use_count(), 2u);
    Optional<String> b = a;  // copy: one more reference
    EXPECT_EQ(s.use_count(), 3u);
    Optional<String> c = std::move(b);  // move: the reference changes hands
    EXPECT_EQ(s.use_count(), 3u);
    b.reset();
    EXPECT_EQ(s.use_count(), 3u);
    c.reset();
    EXPECT_EQ(s.use_count(), 2u);
    c = a;  // copy-assign into an empty Optional
    EXPECT_EQ(s.use_count(), 3u);
    c = a;  // copy-assign over the same object
    EXPECT_EQ(s.use_count(), 3u);
    Optional<String>& alias = c;
    c = alias;
    EXPECT_EQ(s.use_count(), 3u);
    c = std::move(alias);
    EXPECT_EQ(s.use_count(), 3u);
    EXPECT_TRUE(c->same_as(s));

    // Assigning over a value releases it.
    String other(kOtherLong);
    Optional<String> d = other;
    EXPECT_EQ(other.use_count(), 2u);
    d = a;
    EXPECT_EQ(other.use_count(), 1u);
    EXPECT_EQ(s.use_count(), 4u);
    d = Optional<String>(other);
    EXPECT_EQ(other.use_count(), 2u);
    EXPECT_EQ(s.use_count(), 3u);
    d = std::move(c);
    EXPECT_EQ(other.use_count(), 1u);
    EXPECT_EQ(s.use_count(), 3u);
    d = std::nullopt;
    EXPECT_EQ(s.use_count(), 2u);

    // value_or copies; the fallback is dropped when there is a value.
    String fallback(kOtherLong);
    EXPECT_TRUE(a.value_or(fallback).same_as(s));
    EXPECT_EQ(s.use_count(), 2u);
    EXPECT_EQ(fallback.use_count(), 1u);
    EXPECT_TRUE(Optional<String>().value_or(fallback).same_as(fallback));
    EXPECT_EQ(fallback.use_count(), 1u);
  }
  EXPECT_EQ(s.use_count(), 1u);  // destruction released every reference

  Box box(3);
  {
    Optional<Box> a = box;
    Optional<Box> b = a;
    EXPECT_EQ(box.use_count(), 3u);
    Optional<Optional<Box>> nested = a;
    EXPECT_EQ(box.use_count(), 4u);
    nested.reset();
    EXPECT_EQ(box.use_count(), 3u);
  }
  EXPECT_EQ(box.use_count(), 1u);
}

TEST(Optional, NestedOptionalTellsOuterFromInnerEmpty) {
  Optional<Optional<int64_t>> outer_empty;
  Optional<Optional<int64_t>> inner_empty = Optional<int64_t>();
  Optional<Optional<int64_t>> full = Optional<int64_t>(3);
  EXPECT_FALSE(outer_empty.has_value());
  ASSERT_TRUE(inner_empty.has_value());
  EXPECT_FALSE(inner_empty->has_value());
  ASSERT_TRUE(full.has_value());
  ASSERT_TRUE(full->has_value());
  EXPECT_EQ(full.value().value(), 3);
  // nullopt and nullptr empty the outer Optional.
  Optional<Optional<int64_t>> from_nullopt = std::nullopt;
  Optional<Optional<int64_t>> from_nullptr = nullptr;
  EXPECT_FALSE(from_nullopt.has_value());
  EXPECT_FALSE(from_nullptr.has_value());
  // Copies and moves keep the distinction.
  Optional<Optional<int64_t>> copy = inner_empty;
  ASSERT_TRUE(copy.has_value());
  EXPECT_FALSE(copy->has_value());
  Optional<Optional<int64_t>> moved = std::move(copy);
  ASSERT_TRUE(moved.has_value());
  EXPECT_FALSE(moved->has_value());
  moved = outer_empty;
  EXPECT_FALSE(moved.has_value());
  moved = full;
  EXPECT_EQ(**moved, 3);
  // value() throws on either level.
  ffi::Error e = CatchError([&] { (void)outer_empty.value(); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  e = CatchError([&] { (void)inner_empty.value().value(); });
  EXPECT_EQ(e.message(), "Bad optional access");
  // Through Any: None is the outer nothing, an int the full value, a string no conversion.
  Optional<Optional<int64_t>> from_none = Any().cast<Optional<Optional<int64_t>>>();
  EXPECT_FALSE(from_none.has_value());
  Optional<Optional<int64_t>> from_int = Any(int64_t{8}).cast<Optional<Optional<int64_t>>>();
  ASSERT_TRUE(from_int.has_value());
  ASSERT_TRUE(from_int->has_value());
  EXPECT_EQ(**from_int, 8);
  EXPECT_FALSE(Any(String("x")).try_cast<Optional<Optional<int64_t>>>().has_value());
}

TEST(Optional, OfNullptrHoldsNullptrAsAValue) {
  Optional<std::nullptr_t> from_nullptr = nullptr;
  EXPECT_TRUE(from_nullptr.has_value());
  EXPECT_EQ(from_nullptr.value(), nullptr);
  Optional<std::nullptr_t> by_default;
  EXPECT_FALSE(by_default.has_value());
  Optional<std::nullptr_t> from_nullopt = std::nullopt;
  EXPECT_FALSE(from_nullopt.has_value());
  EXPECT_EQ(CatchError([&] { (void)by_default.value(); }).message(), "Bad optional access");
  // The None of an Any converts to nullptr.
  ffi::Optional<std::nullptr_t> none =
      ffi::TypeTraits<std::nullptr_t>::TryCastFromAnyView(Any().raw());
  EXPECT_TRUE(none.has_value());
  EXPECT_FALSE(ffi::TypeTraits<std::nullptr_t>::TryCastFromAnyView(Any(0).raw()).has_value());
}

TEST(Optional, FromStdOptional) {
  Optional<int64_t> four = std::optional<int64_t>(4);
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(*four, 4);
  Optional<int64_t> none = std::optional<int64_t>();
  EXPECT_FALSE(none.has_value());
  const std::optional<int64_t> const_lvalue = 6;
  Optional<int64_t> six = const_lvalue;
  EXPECT_EQ(six.value(), 6);
  // Arguments and return values convert implicitly.
  auto take = [](Optional<int64_t> x) { return x.value_or(-1); };
  EXPECT_EQ(take(std::optional<int64_t>(2)), 2);
  EXPECT_EQ(take(std::optional<int64_t>()), -1);
  // An object is copied from an lvalue and moved from an rvalue.
  String s(kLong);
  std::optional<String> std_opt = s;
  EXPECT_EQ(s.use_count(), 2u);
  {
    Optional<String> copied = std_opt;
    EXPECT_EQ(s.use_count(), 3u);
    Optional<String> moved = std::move(std_opt);
    EXPECT_EQ(s.use_count(), 3u);
    EXPECT_TRUE(moved->same_as(s));
    EXPECT_TRUE(copied->same_as(s));
  }
  std_opt.reset();
  EXPECT_EQ(s.use_count(), 1u);
  Optional<String> no_string = std::optional<String>();
  EXPECT_FALSE(no_string.has_value());
}

TEST(Optional, TryCastFromAnyViewReturnsFfiOptionalAndAnyReturnsStdOptional) {
  using ffi::TypeTraits;
  const TVMFFIAny* raw = nullptr;
  static_assert(
      std::is_same_v<decltype(TypeTraits<int64_t>::TryCastFromAnyView(raw)), Optional<int64_t>>);
  static_assert(
      std::is_same_v<decltype(TypeTraits<double>::TryCastFromAnyView(raw)), Optional<double>>);
  static_assert(
      std::is_same_v<decltype(TypeTraits<bool>::TryCastFromAnyView(raw)), Optional<bool>>);
  static_assert(
      std::is_same_v<decltype(TypeTraits<void*>::TryCastFromAnyView(raw)), Optional<void*>>);
  static_assert(
      std::is_same_v<decltype(TypeTraits<DLDevice>::TryCastFromAnyView(raw)), Optional<DLDevice>>);
  static_assert(std::is_same_v<decltype(TypeTraits<DLDataType>::TryCastFromAnyView(raw)),
                               Optional<DLDataType>>);
  static_assert(
      std::is_same_v<decltype(TypeTraits<String>::TryCastFromAnyView(raw)), Optional<String>>);
  static_assert(std::is_same_v<decltype(TypeTraits<std::string>::TryCastFromAnyView(raw)),
                               Optional<std::string>>);
  static_assert(std::is_same_v<decltype(TypeTraits<Box>::TryCastFromAnyView(raw)), Optional<Box>>);
  static_assert(std::is_same_v<decltype(TypeTraits<Optional<int64_t>>::TryCastFromAnyView(raw)),
                               Optional<Optional<int64_t>>>);
  static_assert(std::is_same_v<decltype(TypeTraits<Any>::TryCastFromAnyView(raw)), Optional<Any>>);
  static_assert(
      std::is_same_v<decltype(TypeTraits<AnyView>::TryCastFromAnyView(raw)), Optional<AnyView>>);
  // Any and AnyView keep std::optional in their API.
  Any any;
  AnyView view;
  static_assert(std::is_same_v<decltype(any.as<int64_t>()), std::optional<int64_t>>);
  static_assert(std::is_same_v<decltype(any.try_cast<int64_t>()), std::optional<int64_t>>);
  static_assert(std::is_same_v<decltype(any.as<String>()), std::optional<String>>);
  static_assert(std::is_same_v<decltype(view.try_cast<Box>()), std::optional<Box>>);
  static_assert(
      std::is_same_v<decltype(view.as<Optional<int64_t>>()), std::optional<Optional<int64_t>>>);
  static_assert(std::is_same_v<decltype(any.cast<Optional<String>>()), Optional<String>>);

  // And the values are the right ones.
  Any five = int64_t{5};
  Optional<int64_t> got = TypeTraits<int64_t>::TryCastFromAnyView(five.raw());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, 5);
  EXPECT_FALSE(TypeTraits<String>::TryCastFromAnyView(five.raw()).has_value());
  Optional<double> widened = TypeTraits<double>::TryCastFromAnyView(five.raw());
  ASSERT_TRUE(widened.has_value());
  EXPECT_EQ(*widened, 5.0);
  Box box(1);
  Any held = box;
  {
    Optional<Box> back = TypeTraits<Box>::TryCastFromAnyView(held.raw());
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(back->same_as(box));
    EXPECT_EQ(box.use_count(), 3u);
  }
  EXPECT_EQ(box.use_count(), 2u);
  Optional<Optional<int64_t>> none = TypeTraits<Optional<int64_t>>::TryCastFromAnyView(Any().raw());
  ASSERT_TRUE(none.has_value());  // None converts to an empty Optional<int64_t>
  EXPECT_FALSE(none->has_value());
  std::optional<int64_t> through_any = five.try_cast<int64_t>();
  EXPECT_EQ(through_any, std::optional<int64_t>(5));
  EXPECT_EQ(five.as<String>(), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// cast errors
// ---------------------------------------------------------------------------------------------

TEST(AnyCast, TypeErrorNamesBothTypes) {
  Any a = 1;
  try {
    a.cast<String>();
    FAIL() << "cast<String>() of an int did not throw";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_EQ(e.message(), "Cannot convert from type `int` to `str`");
    EXPECT_NE(std::string(e.what()).find("TypeError: Cannot convert from type `int` to `str`"),
              std::string::npos);
  }
  EXPECT_EQ(CatchError([] { Any().cast<int>(); }).message(),
            "Cannot convert from type `None` to `int`");
  EXPECT_EQ(CatchError([] { Any(String("s")).cast<bool>(); }).message(),
            "Cannot convert from type `str` to `bool`");
  EXPECT_EQ(CatchError([] { Any(2).cast<DLDevice>(); }).message(),
            "Cannot convert from type `int` to `Device`");
  // The value is untouched by a failed cast.
  EXPECT_EQ(a.cast<int>(), 1);
}

TEST(AnyCast, AnyAndAnyViewAsTargets) {
  Box box(4);
  Any a = box;
  Any copy = a.cast<Any>();
  EXPECT_EQ(box.use_count(), 3u);
  AnyView view = a.cast<AnyView>();
  EXPECT_EQ(box.use_count(), 3u);
  EXPECT_EQ(view.raw()->v_obj, a.raw()->v_obj);
  EXPECT_EQ(ffi::TypeTraits<Any>::TypeStr(), "Any");
}

TEST(AnyUnsafe, MovesAndUncheckedCastsAsTVMFFI) {
  Any a = String("a string that is not small");
  TVMFFIAny raw = ffi::details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(a));
  EXPECT_TRUE(a == nullptr);
  EXPECT_EQ(raw.type_index, kTVMFFIStr);
  Any back = ffi::details::AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
  EXPECT_EQ(raw.type_index, kTVMFFINone);  // ownership left the raw value
  EXPECT_TRUE(ffi::details::AnyUnsafe::CheckAnyStrict<String>(back));
  EXPECT_FALSE(ffi::details::AnyUnsafe::CheckAnyStrict<int64_t>(back));
  EXPECT_EQ(ffi::details::AnyUnsafe::CopyFromAnyViewAfterCheck<String>(back),
            "a string that is not small");
  auto* obj = ffi::details::AnyUnsafe::RawObjectPtrFromAnyAfterCheck<ffi::StringObj>(back);
  EXPECT_EQ(std::string_view(obj->data, obj->size), "a string that is not small");
  EXPECT_EQ(ffi::details::AnyUnsafe::GetMismatchTypeInfo<int64_t>(back), "str");
  String moved = ffi::details::AnyUnsafe::MoveFromAnyAfterCheck<String>(std::move(back));
  EXPECT_TRUE(back == nullptr);
  AnyView view = moved;
  EXPECT_EQ(view.CopyToTVMFFIAny().v_obj,
            ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(Any(view))->v_obj);
}

TEST(Any, AsOrThrowIsStrict) {
  Any i = int64_t{3};
  EXPECT_EQ(i.as_or_throw<int64_t>(), 3);
  EXPECT_EQ(AnyView(i).as_or_throw<int64_t>(), 3);
  // No conversion: an int is not a float here, though cast<double> converts it.
  ffi::Error e = ExpectError([&] { i.as_or_throw<double>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot treat type `int` as type `float`");
  EXPECT_EQ(i.cast<double>(), 3.0);
}

TEST(Any, StoringADLTensorPointerIsARuntimeError) {
  // It compiles (code written for the reference returns DLTensor* from typed functions), and
  // refuses at run time: a view cannot be owned.
  DLTensor t{};
  ffi::Error e = ExpectError([&] { Any held(&t); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("does not own"), std::string::npos);
  EXPECT_EQ(AnyView(&t).as<DLTensor*>().value(), &t);  // a view holds it
}
}  // namespace
