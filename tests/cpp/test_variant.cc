// Variant<V...>: holds one of its types as an Any; as<T>, get<T>, conversions trying each type in
// order, and use as a typed-function parameter.
#include <ffi/container/array.h>
#include <ffi/container/variant.h>

#include <string>
#include <unordered_set>

#include "testing.h"

namespace {
using namespace ffi_testing;
using ffi::Any;
using ffi::Array;
using ffi::String;
using ffi::Tensor;
using ffi::Variant;

TEST(Variant, AsAndGet) {
  Variant<double, String> v = 1.5;
  ASSERT_TRUE(v.as<double>().has_value());
  EXPECT_EQ(*v.as<double>(), 1.5);
  EXPECT_FALSE(v.as<String>().has_value());
  EXPECT_EQ(v.get<double>(), 1.5);
  EXPECT_EQ(ExpectError([&] { v.get<String>(); }).kind(), "TypeError");
  v = String("a string too long to be small");
  EXPECT_EQ(v.get<String>(), "a string too long to be small");
  EXPECT_EQ(v.GetTypeKey(), "ffi.String");
  Variant<double, String> w = v;
  EXPECT_TRUE(w.same_as(v));
  Variant<Tensor, Array<int64_t>> obj = Array<int64_t>{1};
  EXPECT_NE(obj.as<ffi::ArrayObj>(), nullptr);
  EXPECT_EQ(obj.as<ffi::TensorObj>(), nullptr);
}

TEST(Variant, Conversions) {
  using V = Variant<int64_t, String>;
  Any s = String("x");
  EXPECT_EQ(s.cast<V>().get<String>(), "x");
  Any i = 3;
  EXPECT_EQ(i.cast<V>().get<int64_t>(), 3);
  // Not stored as any of the types: the first that converts wins (bool -> int).
  EXPECT_EQ(Any(true).cast<V>().get<int64_t>(), 1);
  EXPECT_EQ(ExpectError([&] { Any(2.5).cast<V>(); }).kind(), "TypeError");
  // Passing through Any keeps the value as it is.
  Any back = V(String("y"));
  EXPECT_EQ(back.type_index(), kTVMFFISmallStr);
  using DT = Variant<double, Tensor>;
  EXPECT_EQ(ffi::TypeTraits<DT>::TypeStr(), "Variant<float, Tensor>");
}

TEST(Variant, TypedParameter) {
  auto f = ffi::Function::FromTyped(
      [](Variant<double, Array<int64_t>> x) -> double {
        if (auto d = x.as<double>()) return *d;
        return static_cast<double>(x.get<Array<int64_t>>().size());
      },
      "f");
  EXPECT_EQ(f(2.5).cast<double>(), 2.5);
  EXPECT_EQ(f(4).cast<double>(), 4.0);  // an int converts to the double alternative
  EXPECT_EQ(f(Array<int64_t>{1, 2}).cast<double>(), 2.0);
  ffi::Error e = ExpectError([&] { f(String("no")); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(std::string(e.message()).find("Expected `Variant<float, Array<int>>` but got `str`"),
            std::string::npos)
      << e.message();
}

TEST(Variant, KeysMapsByIdentityAndViewsItsValue) {
  using V = Variant<Array<int64_t>, int64_t>;
  Array<int64_t> a{1};
  V x = a, y = a, z = Array<int64_t>{1}, three = int64_t{3};
  std::unordered_set<V, ffi::ObjectPtrHash, ffi::ObjectPtrEqual> seen{x, y, z, three,
                                                                      V(int64_t{3})};
  EXPECT_EQ(seen.size(), 3u);  // one object twice, an equal-valued other object, one int
  EXPECT_TRUE(ffi::ObjectPtrEqual()(x, y));
  EXPECT_FALSE(ffi::ObjectPtrEqual()(x, z));
  EXPECT_EQ(ffi::ObjectPtrHash()(x), ffi::ObjectPtrHash()(a));
  EXPECT_EQ(x.ToAnyView().cast<Array<int64_t>>().get(), a.get());
  Any moved = std::move(x).MoveToAny();
  EXPECT_EQ(moved.cast<Array<int64_t>>().get(), a.get());
}

TEST(Variant, MovesThroughAnyWithoutSharing) {
  using V = Variant<Array<int64_t>, int64_t>;
  V v = Array<int64_t>{1, 2};
  Any held = std::move(v);
  V back = std::move(held).cast<V>();  // the Any is left None
  EXPECT_TRUE(held.is_none());
  Array<int64_t> arr = std::move(back).get<Array<int64_t>>();
  EXPECT_EQ(arr.use_count(), 1u);  // the only reference: nothing kept a copy on the way
  // An lvalue cast shares.
  Any kept = arr;
  Array<int64_t> shared = kept.cast<Array<int64_t>>();
  EXPECT_EQ(shared.use_count(), 3u);
}

}  // namespace
