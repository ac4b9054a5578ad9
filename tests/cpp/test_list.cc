// List<T>: layout of ListObj (separate buffer with its deleter), shared mutation, growth, Any
// conversions, and the ffi.List* globals with the reference's results and errors.
#include <ffi/container/array.h>
#include <ffi/container/list.h>

#include <string>
#include <vector>

#include "testing.h"

namespace {
using namespace ffi_testing;
using ffi::Any;
using ffi::Array;
using ffi::List;
using ffi::String;

std::vector<int64_t> Ints(const List<int64_t>& l) {
  return std::vector<int64_t>(l.begin(), l.end());
}
std::vector<int64_t> Ints(const List<Any>& l) {
  std::vector<int64_t> out;
  for (const Any& v : l) out.push_back(v.cast<int64_t>());
  return out;
}
ffi::Function Global(const char* name) { return ffi::Function::GetGlobalRequired(name); }

TEST(List, LayoutAndGrowth) {
  List<int64_t> l;
  EXPECT_EQ(l.capacity(), 0u);
  struct RawSeq {
    TVMFFIObject header;
    void* data;
    int64_t size;
    int64_t capacity;
    void (*data_deleter)(void*);
  };
  const auto* raw = reinterpret_cast<const RawSeq*>(ffi::detail::ObjectUnsafe::HeaderOf(l));
  EXPECT_EQ(raw->header.type_index, kTVMFFIList);
  EXPECT_EQ(raw->data, nullptr);
  EXPECT_NE(raw->data_deleter, nullptr);
  std::vector<size_t> caps;
  for (int64_t i = 0; i < 5; ++i) {
    l.push_back(i);
    caps.push_back(l.capacity());
  }
  EXPECT_EQ(caps, (std::vector<size_t>{1, 2, 4, 4, 8}));
  EXPECT_EQ(raw->size, 5);
  EXPECT_EQ(static_cast<const TVMFFIAny*>(raw->data)[4].v_int64, 4);
}

TEST(List, SharedMutation) {
  List<int64_t> a = {1, 2};
  List<int64_t> b = a;
  b.push_back(3);
  b.Set(0, 10);
  EXPECT_TRUE(a.same_as(b));
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{10, 2, 3}));
  a.insert(a.begin() + 1, 5);
  a.erase(a.begin());
  EXPECT_EQ(Ints(b), (std::vector<int64_t>{5, 2, 3}));
  // Inserting a list's own values into itself.
  a.insert(a.begin(), a.begin(), a.end());
  EXPECT_EQ(Ints(a), (std::vector<int64_t>{5, 2, 3, 5, 2, 3}));
  a.erase(a.begin() + 1, a.end());
  a.resize(3);
  EXPECT_EQ(a.size(), 3u);
  a.pop_back();
  a.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(ExpectError([&] { a.pop_back(); }).kind(), "IndexError");
  EXPECT_EQ(ExpectError([&] { (void)a[0]; }).kind(), "IndexError");
  EXPECT_EQ(ExpectError([&] { a.Set(0, 1); }).kind(), "IndexError");
}

TEST(List, AnyConversions) {
  List<int64_t> l = {1, 2};
  Any v = l;
  EXPECT_EQ(v.type_index(), kTVMFFIList);
  List<int64_t> same = v.cast<List<int64_t>>();
  same.push_back(3);
  EXPECT_EQ(l.size(), 3u);  // shared
  List<double> converted = v.cast<List<double>>();
  EXPECT_FALSE(converted.same_as(l));
  EXPECT_EQ(converted[2], 3.0);
  // An Array converts to a List by copying.
  List<int64_t> from_array = Any(Array<int64_t>{7}).cast<List<int64_t>>();
  EXPECT_EQ(from_array.GetListObj()->type_index(), kTVMFFIList);
  EXPECT_EQ(ffi::TypeTraits<List<String>>::TypeStr(), "List<str>");
  ffi::Error e = ExpectError([&] { Any(List<Any>{1, 2.5}).cast<List<int64_t>>(); });
  EXPECT_EQ(std::string(e.message()),
            "Cannot convert from type `List[index 1: float]` to `List<int>`");
}

TEST(List, GlobalFunctions) {
  List<Any> l = Global("ffi.List")(1, 2, 3).cast<List<Any>>();
  Global("ffi.ListAppend")(l, 4);
  EXPECT_EQ(Ints(l), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Global("ffi.ListSize")(l).cast<int64_t>(), 4);
  EXPECT_EQ(Global("ffi.ListGetItem")(l, 3).cast<int64_t>(), 4);
  Global("ffi.ListSetItem")(l, 0, 9);
  Global("ffi.ListInsert")(l, 0, 7);
  EXPECT_EQ(Ints(l), (std::vector<int64_t>{7, 9, 2, 3, 4}));
  EXPECT_EQ(Global("ffi.ListPop")(l, 0).cast<int64_t>(), 7);
  Global("ffi.ListErase")(l, 0);
  Global("ffi.ListReverse")(l);
  EXPECT_EQ(Ints(l), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_TRUE(Global("ffi.ListContains")(l, 3).cast<bool>());
  EXPECT_FALSE(Global("ffi.ListContains")(l, 9).cast<bool>());
  Global("ffi.ListReplaceSlice")(l, 1, 2, Array<Any>{5, 6});
  EXPECT_EQ(Ints(l), (std::vector<int64_t>{4, 5, 6, 2}));
  Global("ffi.ListReplaceSlice")(l, 0, 0, l);
  EXPECT_EQ(Ints(l), (std::vector<int64_t>{4, 5, 6, 2, 4, 5, 6, 2}));
  Global("ffi.ListEraseRange")(l, 1, 7);
  EXPECT_EQ(Ints(l), (std::vector<int64_t>{4, 2}));
  Global("ffi.ListReserve")(l, 50);
  EXPECT_EQ(l.capacity(), 50u);
  Global("ffi.ListReserve")(l, -1);
  EXPECT_EQ(l.capacity(), 50u);
  Global("ffi.ListClear")(l);
  EXPECT_TRUE(l.empty());
}

TEST(List, GlobalFunctionErrorsLeaveTheListIntact) {
  List<Any> l = Global("ffi.List")(0, 1, 2).cast<List<Any>>();
  auto expect = [&](ffi::Error e, const char* kind, const char* message) {
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(std::string(e.message()), message);
    EXPECT_EQ(Ints(l), (std::vector<int64_t>{0, 1, 2}));
  };
  expect(ExpectError([&] { Global("ffi.ListGetItem")(l, 3); }), "IndexError",
         "Index 3 out of bounds 3");
  expect(ExpectError([&] { Global("ffi.ListSetItem")(l, -1, 0); }), "IndexError",
         "Index -1 out of bounds 3");
  expect(ExpectError([&] { Global("ffi.ListInsert")(l, 4, 0); }), "IndexError",
         "Index 4 out of bounds [0, 3]");
  expect(ExpectError([&] { Global("ffi.ListPop")(l, 5); }), "IndexError",
         "Index 5 out of bounds 3");
  expect(ExpectError([&] { Global("ffi.ListErase")(l, -1); }), "IndexError",
         "Index -1 out of bounds 3");
  expect(ExpectError([&] { Global("ffi.ListEraseRange")(l, 2, 1); }), "IndexError",
         "Erase range [2, 1) out of bounds 3");
  expect(ExpectError([&] { Global("ffi.ListReplaceSlice")(l, 0, 9, List<Any>()); }), "IndexError",
         "Erase range [0, 9) out of bounds 3");
  expect(ExpectError([&] { Global("ffi.ListReplaceSlice")(l, 9, 9, List<Any>{1}); }), "IndexError",
         "Index 9 out of bounds [0, 3]");
  EXPECT_EQ(ExpectError([&] { Global("ffi.ListSize")(Array<Any>{1}); }).kind(), "TypeError");
}

}  // namespace
