// Tuple<Types...>: stored as an ArrayObj, get<I>, Set with copy-on-write, structured bindings and
// conversions from Arrays of the right size and value types.
#include <ffi/container/map.h>
#include <ffi/container/tuple.h>
#include <ffi/tensor.h>

#include <string>

#include "testing.h"

namespace {
using namespace ffi_testing;
using ffi::Any;
using ffi::Array;
using ffi::String;
using ffi::Tuple;

TEST(Tuple, StoredAsAnArray) {
  Tuple<int64_t, String> t(1, "one");
  EXPECT_EQ(t.get<0>(), 1);
  EXPECT_EQ(t.get<1>(), "one");
  Any v = t;
  EXPECT_EQ(v.type_index(), kTVMFFIArray);
  Array<Any> as_array = v.cast<Array<Any>>();
  EXPECT_TRUE(as_array.same_as(t));
  EXPECT_EQ(as_array.size(), 2u);
  auto [n, s] = t;
  EXPECT_EQ(n, 1);
  EXPECT_EQ(s, "one");
  EXPECT_EQ(ffi::get<1>(t), "one");
  Tuple<int64_t, double> d;
  EXPECT_EQ(d.get<1>(), 0.0);
  auto deduced = Tuple(int64_t{2}, 3.5);
  EXPECT_EQ(deduced.get<1>(), 3.5);
}

TEST(Tuple, SetCopiesWhenShared) {
  Tuple<int64_t, String> a(1, "x");
  Tuple<int64_t, String> b = a;
  b.Set<0>(2);
  EXPECT_EQ(a.get<0>(), 1);
  EXPECT_EQ(b.get<0>(), 2);
  const ffi::Object* before = b.ObjectRef::get();
  b.Set<1>(String("y"));
  EXPECT_EQ(b.ObjectRef::get(), before);
  EXPECT_EQ(std::move(b).get<1>(), "y");
}

TEST(Tuple, Conversions) {
  Any exact = Array<Any>{1, String("a")};
  auto t = exact.cast<Tuple<int64_t, String>>();
  EXPECT_TRUE(t.same_as(exact.cast<Array<Any>>()));
  auto converted = exact.cast<Tuple<double, String>>();
  EXPECT_EQ(converted.get<0>(), 1.0);
  using Pair = Tuple<int64_t, String>;
  EXPECT_FALSE(Any(Array<Any>{1}).try_cast<Pair>().has_value());
  ffi::Error size = ExpectError([&] { Any(Array<Any>{1}).cast<Tuple<int64_t, String>>(); });
  EXPECT_EQ(std::string(size.message()),
            "Cannot convert from type `Array[size=1]` to `Tuple<int, str>`");
  ffi::Error elem = ExpectError([&] { Any(Array<Any>{1, 2}).cast<Tuple<int64_t, String>>(); });
  EXPECT_EQ(std::string(elem.message()),
            "Cannot convert from type `Array[index 1: int]` to `Tuple<int, str>`");
  // Typed functions return tuples.
  auto f = ffi::Function::FromTyped(
      [](int64_t a, int64_t b) { return Tuple<int64_t, int64_t>(b, a); }, "swap");
  auto r = f(1, 2).cast<Tuple<int64_t, int64_t>>();
  EXPECT_EQ(r.get<0>(), 2);
  EXPECT_EQ(r.get<1>(), 1);
}

}  // namespace

namespace {
// A one-element Tuple of an object type without a default constructor (Tensor), as a map value:
// casting it makes the Tuple through its UnsafeInit constructor, which must not be taken for the
// one-value constructor.
TEST(Tuple, OneObjectElementInsideContainers) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CountingCPUAlloc{}, {2}, DLDataType{kDLFloat, 32, 1},
                                           DLDevice{kDLCPU, 0});
  Any value = ffi::Map<String, Any>{{"x", Array<Any>{t}}};
  auto m = value.cast<ffi::Map<String, Tuple<ffi::Tensor>>>();
  EXPECT_TRUE(m["x"].get<0>().same_as(t));
  ffi::Tuple<ffi::Tensor> null_tuple(ffi::UnsafeInit{});
  EXPECT_FALSE(null_tuple.defined());
}
}  // namespace
