// Array<T>: layout of ArrayObj, construction, reading, iteration, copy-on-write, growth, Any
// conversions (element-wise, nested, Optional), mismatch messages, and the ffi.Array* globals.
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/function.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "testing.h"

namespace {
using namespace ffi_testing;
using ffi::Any;
using ffi::AnyView;
using ffi::Array;
using ffi::ArrayObj;
using ffi::Function;
using ffi::List;
using ffi::Optional;
using ffi::PackedArgs;
using ffi::String;

std::vector<int64_t> Ints(const Array<int64_t>& a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

/*! \brief What the reference's kernels read inline: the cell right after the object header. */
struct RawSeq {
  TVMFFIObject header;
  void* data;
  int64_t size;
  int64_t capacity;
  void (*data_deleter)(void*);
};

TEST(Array, ObjectLayoutIsTheSequenceCell) {
  Array<int64_t> a = {3, 4, 5};
  const auto* raw = reinterpret_cast<const RawSeq*>(ffi::detail::ObjectUnsafe::HeaderOf(a));
  EXPECT_EQ(raw->header.type_index, kTVMFFIArray);
  EXPECT_EQ(raw->size, 3);
  EXPECT_EQ(raw->capacity, 3);
  EXPECT_EQ(raw->data_deleter, nullptr);
  // Cells live in the same allocation, right after the 56-byte object.
  EXPECT_EQ(static_cast<char*>(raw->data), reinterpret_cast<const char*>(raw) + sizeof(RawSeq));
  const TVMFFIAny* cells = static_cast<const TVMFFIAny*>(raw->data);
  EXPECT_EQ(cells[1].type_index, kTVMFFIInt);
  EXPECT_EQ(cells[1].v_int64, 4);
  EXPECT_EQ(sizeof(ArrayObj), sizeof(RawSeq));
  EXPECT_EQ(a.GetArrayObj()->GetTypeKey(), "ffi.Array");
}

TEST(Array, Construction) {
  Array<int64_t> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.capacity(), 4u);
  std::vector<int64_t> v = {1, 2, 3};
  EXPECT_EQ(Ints(Array<int64_t>(v)), v);
  EXPECT_EQ(Ints(Array<int64_t>(v.begin() + 1, v.end())), (std::vector<int64_t>{2, 3}));
  std::array<int, 2> std_arr = {8, 9};
  EXPECT_EQ(Ints(Array<int64_t>(std_arr)), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(Ints(Array<int64_t>(3, 7)), (std::vector<int64_t>{7, 7, 7}));
  Array<String> s = {"a", "bb"};
  EXPECT_EQ(s[1], "bb");
  Array<Any> mixed = {1, "two", 3.5, nullptr};
  EXPECT_EQ(mixed[1].cast<String>(), "two");
  EXPECT_TRUE(mixed[3].is_none());
  // An Array<int64_t> shares its object as an Array<Any>.
  Array<int64_t> ints = {1};
  Array<Any> any_view = ints;
  EXPECT_TRUE(any_view.same_as(ints));
}

TEST(Array, ReadingAndIndexErrors) {
  Array<int64_t> a = {10, 20, 30};
  EXPECT_EQ(a[0], 10);
  EXPECT_EQ(a.front(), 10);
  EXPECT_EQ(a.back(), 30);
  ffi::Error e = ExpectError([&] { (void)a[3]; });
  EXPECT_EQ(e.kind(), "IndexError");
  EXPECT_EQ(std::string(e.message()), "Index 3 out of bounds 3");
  EXPECT_EQ(ExpectError([&] { (void)a[-1]; }).kind(), "IndexError");
  Array<int64_t> none;
  EXPECT_EQ(ExpectError([&] { (void)none.front(); }).kind(), "IndexError");
  EXPECT_EQ(ExpectError([&] { (void)none.back(); }).kind(), "IndexError");
  EXPECT_EQ(ExpectError([&] { none.pop_back(); }).kind(), "IndexError");
}

TEST(Array, Iteration) {
  Array<int64_t> a = {1, 2, 3, 4};
  int64_t sum = 0;
  for (int64_t x : a) sum += x;
  EXPECT_EQ(sum, 10);
  std::vector<int64_t> rev(a.rbegin(), a.rend());
  EXPECT_EQ(rev, (std::vector<int64_t>{4, 3, 2, 1}));
  EXPECT_EQ(a.end() - a.begin(), 4);
  EXPECT_EQ(*(a.begin() + 2), 3);
  EXPECT_EQ(a.begin()[1], 2);
  EXPECT_EQ(std::distance(a.rbegin(), a.rend()), 4);
}

TEST(Array, CopyOnWrite) {
  Array<int64_t> a = {1, 2, 3};
  Array<int64_t> b = a;
  EXPECT_EQ(a.use_count(), 2u);
  b.push_back(4);
  EXPECT_FALSE(a.same_as(b));
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Ints(b), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(a.use_count(), 1u);
  // A unique array is changed in place (same object).
  const ffi::Object* before = b.get();
  b.Set(0, 100);
  EXPECT_EQ(b.get(), before);
  Array<int64_t> c = b;
  c.Set(1, 200);
  EXPECT_EQ(b[1], 2);
  EXPECT_EQ(c[1], 200);
  // A failed Set leaves the shared array shared and unchanged.
  Array<int64_t> d = c;
  EXPECT_EQ(ExpectError([&] { d.Set(9, 0); }).kind(), "IndexError");
  EXPECT_TRUE(d.same_as(c));
}

TEST(Array, MutationAndGrowth) {
  Array<int64_t> a;
  for (int64_t i = 0; i < 5; ++i) a.push_back(i);
  EXPECT_EQ(a.capacity(), 8u);  // 4, doubled
  a.insert(a.begin() + 1, 42);
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{0, 42, 1, 2, 3, 4}));
  std::vector<int64_t> more = {7, 8};
  a.insert(a.end(), more.begin(), more.end());
  EXPECT_EQ(a.back(), 8);
  a.erase(a.begin());
  a.erase(a.begin() + 1, a.begin() + 3);
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{42, 3, 4, 7, 8}));
  a.pop_back();
  a.resize(6);
  EXPECT_EQ(a.size(), 6u);
  Array<Any> anys = {1};
  anys.resize(3);
  EXPECT_TRUE(anys[2].is_none());
  a.resize(2);
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{42, 3}));
  EXPECT_EQ(ExpectError([&] { a.resize(-1); }).kind(), "ValueError");
  a.reserve(100);
  EXPECT_EQ(a.capacity(), 100u);
  a.clear();
  EXPECT_TRUE(a.empty());
  a.emplace_back(5);
  EXPECT_EQ(a[0], 5);
}

TEST(Array, InsertingItsOwnValues) {
  // The storage moves as the array grows; the inserted values are read before it goes.
  Array<Any> a = {String(std::string(30, 'a')), 2};
  a.insert(a.begin() + 1, a.begin(), a.end());
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[1].cast<String>(), std::string(30, 'a'));
  EXPECT_EQ(a[3].cast<int64_t>(), 2);
  for (int i = 0; i < 10; ++i) a.push_back(a.GetArrayObj()->at(0));
  EXPECT_EQ(a.back().cast<String>(), std::string(30, 'a'));
}

TEST(Array, MapAndConcat) {
  Array<int64_t> a = {1, 2, 3};
  Array<int64_t> same = a.Map([](int64_t x) { return x; });
  EXPECT_TRUE(same.same_as(a));
  Array<double> halves = a.Map([](int64_t x) { return x / 2.0; });
  EXPECT_EQ(halves[2], 1.5);
  Array<int64_t> b = a;
  b.MutateByApply([](int64_t x) { return x * 10; });
  EXPECT_EQ(Ints(b), (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Ints(ffi::Concat(a, b)), (std::vector<int64_t>{1, 2, 3, 10, 20, 30}));
}

TEST(Array, MutateByApplyHandsEachElementOverAlone) {
  // Elements the array alone holds arrive as their only reference, so they may change in place.
  Array<Array<int64_t>> nested = {Array<int64_t>{1}, Array<int64_t>{2}};
  std::vector<uint32_t> counts;
  nested.MutateByApply([&](Array<int64_t> x) {
    counts.push_back(x.use_count());
    x.push_back(0);
    return x;
  });
  EXPECT_EQ(counts, (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(Ints(nested[1]), (std::vector<int64_t>{2, 0}));
  // A thrown error leaves the element it was given None, the others as they were.
  Array<Any> mixed = {1, 2, 3};
  EXPECT_THROW(mixed.MutateByApply([](Any x) -> Any {
    if (x.cast<int64_t>() == 2) FFI_THROW(ValueError) << "two";
    return x;
  }),
               ffi::Error);
  EXPECT_TRUE(mixed[1].is_none());
  EXPECT_EQ(mixed[2].cast<int64_t>(), 3);
}

TEST(Array, AnyConversions) {
  Array<int64_t> a = {1, 2};
  Any v = a;
  EXPECT_EQ(v.type_index(), kTVMFFIArray);
  // Stored exactly as T: shared.
  EXPECT_TRUE(v.cast<Array<int64_t>>().same_as(a));
  EXPECT_TRUE(v.as<Array<int64_t>>().has_value());
  // Values that convert: a new array of converted values.
  Array<double> d = v.cast<Array<double>>();
  EXPECT_FALSE(d.same_as(a));
  EXPECT_EQ(d[1], 2.0);
  EXPECT_FALSE(v.as<Array<double>>().has_value());
  // A List converts to an Array by copying.
  List<int64_t> l = {4, 5};
  Array<int64_t> from_list = Any(l).cast<Array<int64_t>>();
  EXPECT_EQ(Ints(from_list), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(from_list.GetArrayObj()->type_index(), kTVMFFIArray);
  // Nested and Optional forms.
  Array<Array<int64_t>> nested = {{1}, {2, 3}};
  auto back = Any(nested).cast<Array<Array<int64_t>>>();
  EXPECT_EQ(back[1][1], 3);
  EXPECT_FALSE(Any().cast<Optional<Array<int64_t>>>().has_value());
  EXPECT_EQ(Any(a).cast<Optional<Array<int64_t>>>().value().size(), 2u);
  EXPECT_EQ(ffi::TypeTraits<Array<Array<int64_t>>>::TypeStr(), "Array<Array<int>>");
  EXPECT_EQ(ffi::TypeTraits<Optional<Array<Any>>>::TypeStr(), "Optional<Array<Any>>");
}

TEST(Array, MismatchNamesTheElement) {
  Array<Any> mixed = {1, String("x")};
  ffi::Error e = ExpectError([&] { Any(mixed).cast<Array<int64_t>>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(std::string(e.message()),
            "Cannot convert from type `Array[index 1: str]` to `Array<int>`");
  Array<Any> nested = {Array<Any>{1}, Array<Any>{2.5, 3}};
  auto f = ffi::Function::FromTyped([](Array<Array<int64_t>> x) { return x.size(); }, "f");
  ffi::Error g = ExpectError([&] { f(nested); });
  EXPECT_NE(std::string(g.message()).find("but got `Array[index 1: Array[index 0: float]]`"),
            std::string::npos)
      << g.message();
  EXPECT_EQ(ExpectError([&] { Any(1).cast<Array<int64_t>>(); }).kind(), "TypeError");
}

TEST(Array, GlobalFunctions) {
  auto make = ffi::Function::GetGlobalRequired("ffi.Array");
  Array<Any> a = make(1, "x", 2.5).cast<Array<Any>>();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[1].cast<String>(), "x");
  EXPECT_EQ(ffi::Function::GetGlobalRequired("ffi.ArraySize")(a).cast<int64_t>(), 3);
  auto get = ffi::Function::GetGlobalRequired("ffi.ArrayGetItem");
  EXPECT_EQ(get(a, 0).cast<int64_t>(), 1);
  ffi::Error e = ExpectError([&] { get(a, -1); });
  EXPECT_EQ(e.kind(), "IndexError");
  EXPECT_EQ(std::string(e.message()), "Index -1 out of bounds 3");
  EXPECT_EQ(ExpectError([&] { get(List<Any>{1}, 0); }).kind(), "TypeError");
  auto contains = ffi::Function::GetGlobalRequired("ffi.ArrayContains");
  EXPECT_TRUE(contains(a, 1).cast<bool>());
  EXPECT_TRUE(contains(a, std::string("x")).cast<bool>());
  EXPECT_TRUE(contains(a, 2.5).cast<bool>());
  EXPECT_FALSE(contains(a, 1.0).cast<bool>());  // an int is not a float
  EXPECT_FALSE(contains(a, true).cast<bool>());
  Array<Any> strs = {String(std::string(40, 'y'))};
  EXPECT_TRUE(contains(strs, String(std::string(40, 'y'))).cast<bool>());
}

TEST(Array, AnyElementsAreReadInPlace) {
  // An Array<Any>'s iterator gives the stored values (as the reference's does), so views of them
  // can be packed for a call while the array lives.
  Array<Any> args = {int64_t{2}, int64_t{3}, String(std::string(40, 'z'))};
  std::vector<AnyView> views(args.begin(), args.end());
  EXPECT_EQ(&*args.begin(), &*args.begin());  // no copy
  Function count = Function::FromPacked([](PackedArgs a, Any* r) {
    *r = a[0].cast<int64_t>() * 10 + a[1].cast<int64_t>() + a[2].cast<String>().size();
  });
  Any result;
  count.CallPacked(views.data(), static_cast<int32_t>(views.size()), &result);
  EXPECT_EQ(result.cast<int64_t>(), 63);
  Array<int64_t> ints = {1, 2};
  int64_t sum = 0;
  for (int64_t v : ints) sum += v;  // typed arrays still read by value
  EXPECT_EQ(sum, 3);
}

TEST(Array, IsValidIteratorTellsWhichValuesFillAnArrayAsTheyAre) {
  static_assert(ffi::is_valid_iterator_v<ffi::String, std::vector<ffi::String>::iterator>);
  static_assert(ffi::is_valid_iterator_v<ffi::ObjectRef, std::vector<ffi::Array<int>>::iterator>);
  static_assert(!ffi::is_valid_iterator_v<ffi::Array<int>, std::vector<ffi::ObjectRef>::iterator>);
  static_assert(ffi::is_valid_iterator_v<ffi::Optional<ffi::String>, const ffi::String*>);
  static_assert(ffi::is_valid_iterator_v<Any, std::vector<int>::iterator>);
  static_assert(!ffi::is_valid_iterator<int64_t, std::vector<std::string>::iterator>::value);
}

}  // namespace
