// RValueRef<T> (rvalue_ref.h): passing a reference by move, so the callee owns the only reference;
// conversions when the moved object is not a `T` as is, and from ordinary values.
#include <ffi/container/array.h>
#include <ffi/ffi.h>
#include <ffi/rvalue_ref.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::Array;
using ffi::Function;
using ffi::RValueRef;

// Appends `value` and says whether the array arrived with no other owner.
Function MakeAppend() {
  return Function::FromTyped([](RValueRef<Array<int>> ref, int value) {
    Array<int> arr = *std::move(ref);
    bool was_unique = arr.unique();
    arr.push_back(value);
    return Array<Any>({arr, was_unique});
  });
}

TEST(RValueRef, TheCalleeTakesTheOnlyReference) {
  Function append = MakeAppend();
  Array<int> a({1, 2});
  Array<Any> out = append(RValueRef(std::move(a)), 3).cast<Array<Any>>();
  EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): moved into the call
  Array<int> result = out[0].cast<Array<int>>();
  EXPECT_TRUE(out[1].cast<bool>());  // so push_back needed no copy for sharing
  EXPECT_EQ(result.size(), 3u);
  EXPECT_EQ(result.use_count(), 2u);  // `result` and the element of `out`
}

TEST(RValueRef, AnOrdinaryValueIsSharedNotTaken) {
  Function append = MakeAppend();
  Array<int> a({1, 2});
  Array<Any> out = append(a, 3).cast<Array<Any>>();
  EXPECT_FALSE(out[1].cast<bool>());
  EXPECT_EQ(a.size(), 2u);  // the caller's array is unchanged: push_back copied it
  EXPECT_EQ(out[0].cast<Array<int>>().size(), 3u);
}

TEST(RValueRef, AnObjectOfAnotherElementTypeIsConvertedAndTheCallerKeepsIt) {
  Function first = Function::FromTyped([](RValueRef<Array<int64_t>> ref) {
    Array<int64_t> arr = *std::move(ref);
    return arr[0];
  });
  // Array<Any> holding ints converts to Array<int64_t> by a check of its elements, as is.
  EXPECT_EQ(first(RValueRef(Array<Any>({7, 8}))).cast<int64_t>(), 7);
  // A float element does not convert: the message names the element, inside RValueRef<>.
  ffi::Error e = ExpectError([&] { first(RValueRef(Array<Any>({1, 2.5}))); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find(
                "Expected `RValueRef<Array<int>>` but got `RValueRef<Array[index 1: float]>`"),
            std::string::npos)
      << e.message();
}

TEST(RValueRef, APlainParameterRefusesAMovedReference) {
  Function size = Function::FromTyped([](Array<int> arr) { return arr.size(); });
  Array<int> a({1});
  ffi::Error e = ExpectError([&] { size(RValueRef(std::move(a))); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Expected `Array<int>` but got `ObjectRValueRef`"), std::string::npos)
      << e.message();
}

TEST(RValueRef, AnAnyMadeFromTheViewTakesTheObject) {
  // Storing the value in an Any (what a function that keeps its argument does) moves the object
  // out of the caller's slot; the slot is then empty and a second take fails.
  Function keep = Function::FromPacked([](ffi::PackedArgs args, Any* rv) {
    Any first(args[0]);
    Any second(args[0]);
    *rv = Array<Any>({first, second});
  });
  RValueRef<Array<int>> ref(Array<int>({5}));
  Array<Any> out = keep(ref).cast<Array<Any>>();
  EXPECT_EQ(out[0].cast<Array<int>>()[0], 5);
  EXPECT_TRUE(out[1].is_none());  // the slot was already empty
  Array<int> left = *std::move(ref);
  EXPECT_FALSE(left.defined());
}

TEST(RValueRef, ADroppedRValueRefReleasesItsObject) {
  Array<int> a({1});
  Array<int> watcher = a;
  {
    RValueRef<Array<int>> ref(std::move(a));
    EXPECT_EQ(watcher.use_count(), 2u);
  }
  EXPECT_EQ(watcher.use_count(), 1u);
}

TEST(RValueRef, TypeStrAndSchema) {
  using Traits = ffi::TypeTraits<RValueRef<Array<int>>>;
  EXPECT_EQ(std::string(Traits::TypeStr().view()), "RValueRef<Array<int>>");
  EXPECT_EQ(Traits::TypeSchema(), R"({"type":"ObjectRValueRef","args":[)" +
                                      ffi::details::TypeSchema<Array<int>>::v() + "]}");
  static_assert(!Traits::storage_enabled);
}

}  // namespace
