// Optional<T> itself (optional.h): its own storage, copies, moves and reference counts, nested
// optionals, and its conversions through Any. (How an Any holds an Optional: test_any.cc.)
#include <ffi/container/array.h>
#include <ffi/container/variant.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstring>
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
  FFI_DECLARE_OBJECT_INFO("test.optional.Box", BoxObj, ffi::Object);
};

class Box : public ObjectRef {
 public:
  explicit Box(int v) : ObjectRef(ffi::make_object<BoxObj>(v)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(Box, ObjectRef, BoxObj);
};

const char* const kLong = "a string clearly longer than seven bytes";

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
  ASSERT_EQ(UseCount(s), 1u);
  {
    Optional<String> a = s;
    EXPECT_EQ(UseCount(s), 2u);
    Optional<String> b = a;  // copy: one more reference
    EXPECT_EQ(UseCount(s), 3u);
    Optional<String> c = std::move(b);  // move: the reference changes hands
    EXPECT_EQ(UseCount(s), 3u);
    b.reset();
    EXPECT_EQ(UseCount(s), 3u);
    c.reset();
    EXPECT_EQ(UseCount(s), 2u);
    c = a;  // copy-assign into an empty Optional
    EXPECT_EQ(UseCount(s), 3u);
    c = a;  // copy-assign over the same object
    EXPECT_EQ(UseCount(s), 3u);
    Optional<String>& alias = c;
    c = alias;
    EXPECT_EQ(UseCount(s), 3u);
    c = std::move(alias);
    EXPECT_EQ(UseCount(s), 3u);
    EXPECT_TRUE(SameObject(c.value(), s));

    // Assigning over a value releases it.
    String other(kOtherLong);
    Optional<String> d = other;
    EXPECT_EQ(UseCount(other), 2u);
    d = a;
    EXPECT_EQ(UseCount(other), 1u);
    EXPECT_EQ(UseCount(s), 4u);
    d = Optional<String>(other);
    EXPECT_EQ(UseCount(other), 2u);
    EXPECT_EQ(UseCount(s), 3u);
    d = std::move(c);
    EXPECT_EQ(UseCount(other), 1u);
    EXPECT_EQ(UseCount(s), 3u);
    d = std::nullopt;
    EXPECT_EQ(UseCount(s), 2u);

    // value_or copies; the fallback is dropped when there is a value.
    String fallback(kOtherLong);
    EXPECT_TRUE(SameObject(a.value_or(fallback), s));
    EXPECT_EQ(UseCount(s), 2u);
    EXPECT_EQ(UseCount(fallback), 1u);
    EXPECT_TRUE(SameObject(Optional<String>().value_or(fallback), fallback));
    EXPECT_EQ(UseCount(fallback), 1u);
  }
  EXPECT_EQ(UseCount(s), 1u);  // destruction released every reference

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
  EXPECT_EQ(UseCount(s), 2u);
  {
    Optional<String> copied = std_opt;
    EXPECT_EQ(UseCount(s), 3u);
    Optional<String> moved = std::move(std_opt);
    EXPECT_EQ(UseCount(s), 3u);
    EXPECT_TRUE(SameObject(moved.value(), s));
    EXPECT_TRUE(SameObject(copied.value(), s));
  }
  std_opt.reset();
  EXPECT_EQ(UseCount(s), 1u);
  Optional<String> no_string = std::optional<String>();
  EXPECT_FALSE(no_string.has_value());
}

TEST(Optional, TryCastFromAnyViewReturnsACastResultAndAnyReturnsStdOptional) {
  using ffi::TypeTraits;
  const TVMFFIAny* raw = nullptr;
  static_assert(std::is_same_v<decltype(TypeTraits<int64_t>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<int64_t>>);
  static_assert(std::is_same_v<decltype(TypeTraits<double>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<double>>);
  static_assert(std::is_same_v<decltype(TypeTraits<bool>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<bool>>);
  static_assert(std::is_same_v<decltype(TypeTraits<void*>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<void*>>);
  static_assert(std::is_same_v<decltype(TypeTraits<DLDevice>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<DLDevice>>);
  static_assert(std::is_same_v<decltype(TypeTraits<DLDataType>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<DLDataType>>);
  static_assert(std::is_same_v<decltype(TypeTraits<String>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<String>>);
  static_assert(std::is_same_v<decltype(TypeTraits<std::string>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<std::string>>);
  static_assert(std::is_same_v<decltype(TypeTraits<Box>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<Box>>);
  static_assert(std::is_same_v<decltype(TypeTraits<Optional<int64_t>>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<Optional<int64_t>>>);
  static_assert(std::is_same_v<decltype(TypeTraits<Any>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<Any>>);
  static_assert(std::is_same_v<decltype(TypeTraits<AnyView>::TryCastFromAnyView(raw)),
                               ffi::detail::CastResult<AnyView>>);
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
    EXPECT_TRUE(back.value().same_as(box));
    EXPECT_EQ(box.use_count(), 3u);
  }
  EXPECT_EQ(box.use_count(), 2u);
  // The cast result tells "converted to an empty Optional<int64_t>" from "did not convert".
  ffi::detail::CastResult<Optional<int64_t>> none =
      TypeTraits<Optional<int64_t>>::TryCastFromAnyView(Any().raw());
  ASSERT_TRUE(none.has_value());  // None converts to an empty Optional<int64_t>
  EXPECT_FALSE(none->has_value());
  std::optional<int64_t> through_any = five.try_cast<int64_t>();
  EXPECT_EQ(through_any, std::optional<int64_t>(5));
  EXPECT_EQ(five.as<String>(), std::nullopt);
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

TEST(Optional, OfAReferenceComparesIdentityAndValues) {
  Box b(1);
  Optional<Box> x = b, y = b, other = Box(1), none;
  EXPECT_TRUE(x.same_as(y));
  EXPECT_TRUE(x.same_as(b));
  EXPECT_FALSE(x.same_as(other));
  EXPECT_EQ(x, y);      // no `==` on Box: the same object
  EXPECT_NE(x, other);  // another object with the same value
  EXPECT_NE(x, none);
  EXPECT_EQ(none, Optional<Box>());
  EXPECT_EQ(x.as<BoxObj>()->value, 1);
}

TEST(Optional, AssignsNothingWithoutAmbiguity) {
  Optional<Optional<int64_t>> nested = Optional<int64_t>(3);
  nested = std::nullopt;  // the outer one: an exact match, not Optional<int64_t>(nullopt)
  EXPECT_FALSE(nested.has_value());
  nested = Optional<int64_t>(4);
  EXPECT_TRUE(nested.has_value());
  nested = Optional<int64_t>();  // a value that is itself empty is nothing, as in an Any
  EXPECT_FALSE(nested.has_value());
  nested = nullptr;
  EXPECT_FALSE(nested.has_value());
}

TEST(Optional, ComparesWithValues) {
  Optional<double> d = 1.0;
  EXPECT_TRUE(d == 1);
  EXPECT_TRUE(d != 2);
  EXPECT_FALSE(Optional<double>() == 1);
  Optional<String> s = String("x");
  EXPECT_TRUE(s == "x");
  EXPECT_TRUE(s != "y");
  s = "lit";  // assignment from a value converting to String
  EXPECT_EQ(s.value(), "lit");
  EXPECT_EQ(s->size(), 3u);  // String's own methods, as in the reference (not a reference there)
  EXPECT_TRUE(Optional<int>(3) == Optional<int>(3));
  EXPECT_FALSE(Optional<int>(3) == Optional<int>());
}

TEST(Optional, NoneConvertsToANullReferenceNotToAFailure) {
  // A nullable reference parameter accepts None as a null reference.
  ffi::Function f = ffi::Function::FromTyped([](ObjectRef r) { return r.defined(); });
  EXPECT_FALSE(f(nullptr).cast<bool>());
  std::optional<Box> back = Any().as<Box>();
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->defined());
}

TEST(Optional, NumbersAreLaidOutAsAnAny) {
  // As the reference's: an object field Optional<int64_t> / Optional<double> reads the same from
  // code built with either header set (tests/python/test_field_layout.py reads one across them).
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
