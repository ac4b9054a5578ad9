// Optional<T> itself (optional.h): copies, moves and reference counts, nested optionals, and its
// conversions through Any. How each Optional is laid out: test_optional_layout.cc. (How an Any
// holds an Optional: test_any.cc.)
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

TEST(Optional, TheTraitsThatChooseThePointerLayout) {
  static_assert(ffi::use_object_ref_optional_v<ffi::ObjectRef>);
  static_assert(ffi::use_object_ref_optional_v<ffi::Array<int>>);
  static_assert(!ffi::use_object_ref_optional_v<ffi::Optional<ffi::ObjectRef>>);
  static_assert(!ffi::use_object_ref_optional_v<int>);
  static_assert(ffi::is_object_ptr_type_v<ffi::ObjectPtr<ffi::Object>>);
  static_assert(!ffi::is_object_ptr_type_v<ffi::ObjectRef>);
  static_assert(ffi::is_arc_type_v<ffi::Arc<ffi::Object>>);
  static_assert(!ffi::is_arc_type_v<ffi::ObjectPtr<ffi::Object>>);
  static_assert(ffi::use_object_ptr_optional_v<ffi::Arc<ffi::Object>>);
  static_assert(ffi::use_object_ptr_optional_v<ffi::ObjectPtr<ffi::Object>>);
  static_assert(!ffi::use_object_ptr_optional_v<ffi::String>);
  // Those with the pointer layout are one pointer wide; the others a value and a flag.
  static_assert(sizeof(ffi::Optional<ffi::ObjectRef>) == sizeof(void*));
  static_assert(sizeof(ffi::Optional<ffi::Arc<ffi::Object>>) == sizeof(void*));
}

}  // namespace
