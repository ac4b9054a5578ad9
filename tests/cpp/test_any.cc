// AnyView and Any: how strings, bytes and objects are stored, strict and converting reads, errors,
// and the ownership rules (reference counts, views versus owned values). Plain values (None, bool,
// numbers, pointers, devices, dtypes, DLTensor*): test_any_pod.cc; Optional<T> itself:
// test_optional.cc.
#include <ffi/container/array.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::AnyView;
using ffi::ObjectRef;
using ffi::Optional;
using ffi::String;

/*! \brief This suite's own Box (not testing.h's): the messages below name its type key. */
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
  EXPECT_EQ(HeapObject(small), nullptr);  // small strings are held by value
  EXPECT_EQ(a_large.type_index(), kTVMFFIStr);
  EXPECT_EQ(UseCount(large), 2u);  // large strings share the object
  EXPECT_TRUE(SameObject(a_large.cast<String>(), large));
  EXPECT_EQ(a_small.cast<String>(), "1234567");
  // A view of a String is its cell: inline bytes stay inline, a large one refers to the object.
  AnyView v_small = small;
  EXPECT_EQ(v_small.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(v_small.cast<String>(), "1234567");
  AnyView v_large = large;
  EXPECT_EQ(v_large.type_index(), kTVMFFIStr);
  EXPECT_EQ(UseCount(large), 2u);
  EXPECT_TRUE(SameObject(v_large.cast<String>(), large));
  EXPECT_EQ(a_small.GetTypeName(), "str");
  EXPECT_EQ(a_large.GetTypeName(), "str");
  // The registered type keys tell the two storages apart, as TVM-FFI's GetTypeKey does.
  EXPECT_EQ(a_small.GetTypeKey(), "ffi.SmallStr");
  EXPECT_EQ(a_large.GetTypeKey(), "ffi.String");
  EXPECT_EQ(v_large.GetTypeKey(), "ffi.String");
  EXPECT_EQ(AnyView(int64_t{1}).GetTypeKey(), "int");
  EXPECT_EQ(Any().GetTypeKey(), "None");
  EXPECT_EQ(ffi::TypeIndexToTypeKey(kTVMFFITensor), "ffi.Tensor");
  EXPECT_EQ(ffi::TypeIndexToTypeKey(100000), "<type index 100000>");
}

TEST(AnyString, Bytes) {
  ffi::Bytes small(std::string_view("a\0b", 3));
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
    const Any& same = a;  // through a reference: compilers warn about a literal `a = a`
    a = same;             // self-assignment keeps the reference
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

TEST(AnyObject, AsAnObjectTypeGivesABorrowedPointer) {
  Box box(7);
  Any owned = box;
  AnyView view = box;
  const BoxObj* p = owned.as<BoxObj>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, 7);
  EXPECT_EQ(view.as<BoxObj>(), p);
  EXPECT_EQ(view.as<ffi::Object>(), static_cast<const ffi::Object*>(p));
  EXPECT_EQ(box.use_count(), 2u);  // the Any's and box's: the pointer takes none
  EXPECT_EQ(owned.as<OtherObj>(), nullptr);
  EXPECT_EQ(Any(5).as<BoxObj>(), nullptr);
  EXPECT_EQ(Any().as<BoxObj>(), nullptr);
  EXPECT_EQ(Any(5).as<int>(), std::optional<int>(5));  // value types stay optional
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

TEST(AnyView, OfATemporaryAnyHeldElsewhere) {
  // As TVM-FFI allows: a view of the Any an Array returns for an element stays valid while the
  // Array holds the element.
  ffi::Array<Any> arr({String("a longer string than seven bytes"), 2});
  AnyView first = arr[0];
  EXPECT_EQ(first.cast<String>(), "a longer string than seven bytes");
  std::vector<AnyView> views;
  Any kept = arr[1];
  views.emplace_back(std::move(kept));  // binds to the Any, which still holds the value
  EXPECT_EQ(views[0].cast<int>(), 2);
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
