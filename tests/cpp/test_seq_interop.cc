// Sequence containers across implementations: a library built with the reference's headers
// (loader/containers_seq_reference.cc) is loaded into our runtime and called with Array, List,
// Tuple, Variant and Optional<Array> values made by our headers; what it returns (made by its
// headers, including arrays it built in static initializers) is read back element by element.
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/container/tuple.h>
#include <ffi/container/variant.h>

#include <string>
#include <vector>

#include "testing.h"

namespace {
using namespace ffi_testing;
using ffi::Any;
using ffi::Array;
using ffi::List;
using ffi::Optional;
using ffi::String;
using ffi::Tensor;
using ffi::Tuple;
using ffi::Variant;

/*! \brief The reference-built library, loaded once for the process (its code backs its objects). */
ffi::Module* Library() {
  static ffi::Module* lib = [] {
    std::string path = FFI_CONTAINERS_SEQ_REFERENCE;
    return path.empty() ? nullptr : new ffi::Module(ffi::Module::LoadFromFile(path));
  }();
  return lib;
}

ffi::Function Get(const char* name) {
  Optional<ffi::Function> f = (*Library())->GetFunction(name);
  EXPECT_TRUE(f.has_value()) << name;
  return *f;
}

std::vector<int64_t> Ints(const Array<int64_t>& a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

#define SKIP_WITHOUT_REFERENCE() \
  if (Library() == nullptr) GTEST_SKIP() << "apache-tvm-ffi is not installed"

TEST(SeqInterop, ArrayOfIntsBothWays) {
  SKIP_WITHOUT_REFERENCE();
  Array<int64_t> ours = {1, 2, 3, 4};
  EXPECT_EQ(Get("sum_ints")(ours).cast<int64_t>(), 10);
  // An Array<Any> holding ints is an Array<int64_t> to the reference too.
  EXPECT_EQ(Get("sum_ints")(Array<Any>{5, 6}).cast<int64_t>(), 11);
  Array<int64_t> theirs = Get("iota")(5).cast<Array<int64_t>>();
  EXPECT_EQ(Ints(theirs), (std::vector<int64_t>{0, 1, 4, 9, 16}));
  EXPECT_EQ(theirs.GetArrayObj()->type_index(), kTVMFFIArray);
  // Their array, mutated by us: copy-on-write works on an object made by the other headers.
  Array<int64_t> shared = theirs;
  shared.push_back(25);
  EXPECT_EQ(theirs.size(), 5u);
  EXPECT_EQ(shared.size(), 6u);
  EXPECT_EQ(shared[5], 25);
}

TEST(SeqInterop, ReferenceCopiesOnWriteOurArray) {
  SKIP_WITHOUT_REFERENCE();
  Array<int64_t> ours = {7, 8};
  Array<int64_t> out = Get("append_copy")(ours, 9).cast<Array<int64_t>>();
  EXPECT_EQ(Ints(ours), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(Ints(out), (std::vector<int64_t>{-1, 8, 9}));
  EXPECT_FALSE(out.same_as(ours));
  EXPECT_EQ(ours.use_count(), 1u);
}

TEST(SeqInterop, NestedArrays) {
  SKIP_WITHOUT_REFERENCE();
  Array<Array<int64_t>> rows = {{1, 2}, {}, {3, 4, 5}};
  EXPECT_EQ(Ints(Get("nested_stats")(rows).cast<Array<int64_t>>()),
            (std::vector<int64_t>{2, 0, 3, 15}));
  Array<Array<int64_t>> tri = Get("triangle")(3).cast<Array<Array<int64_t>>>();
  ASSERT_EQ(tri.size(), 3u);
  EXPECT_EQ(Ints(tri[0]), (std::vector<int64_t>{0}));
  EXPECT_EQ(Ints(tri[1]), (std::vector<int64_t>{10, 11}));
  EXPECT_EQ(Ints(tri[2]), (std::vector<int64_t>{20, 21, 22}));
  // A nested value that is not an int names where it is, in our message.
  Array<Any> bad = {Array<Any>{1}, Array<Any>{2, String("x")}};
  ffi::Error e = ExpectError([&] { Get("nested_stats")(bad); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(std::string(e.message()).find("index 1"), std::string::npos) << e.message();
}

TEST(SeqInterop, ArrayOfTensors) {
  SKIP_WITHOUT_REFERENCE();
  Tensor a = Tensor::FromNDAlloc(CountingCPUAlloc{}, {2, 3}, kF32, kCPU);
  Tensor b = Tensor::FromNDAlloc(CountingCPUAlloc{}, {7}, kF32, kCPU);
  Array<Tensor> ts = {a, b};
  EXPECT_EQ(Ints(Get("tensor_dims")(ts).cast<Array<int64_t>>()),
            (std::vector<int64_t>{2, 2, 1, 7}));
  Array<Tensor> rev = Get("reverse_tensors")(ts).cast<Array<Tensor>>();
  ASSERT_EQ(rev.size(), 2u);
  EXPECT_TRUE(rev[0].same_as(b));
  EXPECT_TRUE(rev[1].same_as(a));
  // ours, the two arrays and the local.
  EXPECT_EQ(a.use_count(), 3u);
  rev = Array<Tensor>();
  EXPECT_EQ(a.use_count(), 2u);
}

TEST(SeqInterop, TupleBothWays) {
  SKIP_WITHOUT_REFERENCE();
  Tuple<int64_t, String> pair(42, "answer");
  Tuple<String, int64_t> swapped = Get("swap_pair")(pair).cast<Tuple<String, int64_t>>();
  EXPECT_EQ(swapped.get<0>(), "answer");
  EXPECT_EQ(swapped.get<1>(), 42);
  // A Tuple is an Array across the ABI: an Array<Any> of the right values is accepted.
  Tuple<String, int64_t> from_array =
      Get("swap_pair")(Array<Any>{1, String("one")}).cast<Tuple<String, int64_t>>();
  EXPECT_EQ(from_array.get<0>(), "one");
  EXPECT_EQ(from_array.get<1>(), 1);
  EXPECT_EQ(ExpectError([&] { Get("swap_pair")(Array<Any>{1}); }).kind(), "TypeError");
}

TEST(SeqInterop, VariantBothWays) {
  SKIP_WITHOUT_REFERENCE();
  ffi::Function describe = Get("describe_variant");
  EXPECT_EQ(describe(Variant<int64_t, String>(int64_t{5})).cast<String>(), "int:5");
  EXPECT_EQ(describe(String("hey")).cast<String>(), "str:hey");
  EXPECT_EQ(describe(Array<int64_t>{1, 2, 3}).cast<String>(), "array:3");
  EXPECT_EQ(ExpectError([&] { describe(2.5); }).kind(), "TypeError");
  auto v = Get("make_variant")(true).cast<Variant<int64_t, String>>();
  ASSERT_TRUE(v.as<String>().has_value());
  EXPECT_EQ(*v.as<String>(), "seven");
  EXPECT_FALSE(v.as<int64_t>().has_value());
  auto w = Get("make_variant")(false).cast<Variant<int64_t, String>>();
  EXPECT_EQ(w.get<int64_t>(), 7);
}

TEST(SeqInterop, OptionalArray) {
  SKIP_WITHOUT_REFERENCE();
  ffi::Function len = Get("optional_length");
  EXPECT_EQ(len(Optional<Array<int64_t>>()).cast<int64_t>(), -1);
  EXPECT_EQ(len(Optional<Array<int64_t>>(Array<int64_t>{1, 2})).cast<int64_t>(), 2);
  EXPECT_EQ(len(nullptr).cast<int64_t>(), -1);
}

TEST(SeqInterop, ListsAreSharedAndGrowAcrossLibraries) {
  SKIP_WITHOUT_REFERENCE();
  List<int64_t> ours = {1};
  // The reference grows our buffer (freeing ours through the cell's deleter); we see the values.
  EXPECT_EQ(Get("list_grow")(ours, 20).cast<int64_t>(), 21);
  ASSERT_EQ(ours.size(), 21u);
  EXPECT_EQ(ours[0], 1);
  EXPECT_EQ(ours[20], 119);
  ours.push_back(5);  // and we grow a buffer they allocated
  for (int i = 0; i < 40; ++i) ours.push_back(i);
  EXPECT_EQ(ours.size(), 62u);
  List<Any> theirs = Get("make_list")().cast<List<Any>>();
  ASSERT_EQ(theirs.size(), 3u);
  EXPECT_EQ(theirs[0].cast<int64_t>(), 1);
  EXPECT_EQ(theirs[1].cast<String>(), "two");
  EXPECT_EQ(theirs[2].cast<double>(), 3.0);
  for (int i = 0; i < 10; ++i) theirs.push_back(i);
  theirs.erase(theirs.begin());
  EXPECT_EQ(theirs.size(), 12u);
  EXPECT_EQ(theirs[0].cast<String>(), "two");
}

TEST(SeqInterop, ArraysBuiltInStaticInitializers) {
  SKIP_WITHOUT_REFERENCE();
  EXPECT_EQ(Ints(Get("static_ints")().cast<Array<int64_t>>()), (std::vector<int64_t>{10, 20, 30}));
  Array<Any> mixed =
      ffi::Function::GetGlobalRequired("testing.containers_ref.static_mixed")().cast<Array<Any>>();
  ASSERT_EQ(mixed.size(), 2u);
  Array<Any> inner = mixed[0].cast<Array<Any>>();
  EXPECT_EQ(inner[0].cast<String>(), "a");
  EXPECT_EQ(inner[1].cast<int64_t>(), 1);
  EXPECT_EQ(mixed[1].cast<double>(), 2.5);
}

}  // namespace
