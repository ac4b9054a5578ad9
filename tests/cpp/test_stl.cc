// Standard library types as typed-function parameters and results (<ffi/extra/stl.h>): their
// conversions to and from the ABI's containers, calls passing them, and a library built with the
// reference's headers whose functions take and return them.
#include <ffi/extra/stl.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include "testing.h"

namespace {

using ffi::Any;
using ffi::Array;
using ffi::Function;
using ffi::Map;
using ffi_testing::CatchError;

TEST(Stl, VectorTravelsAsAnArray) {
  Any a = std::vector<int64_t>{1, 2, 3};
  EXPECT_EQ(a.type_index(), kTVMFFIArray);
  Array<int64_t> arr = a.cast<Array<int64_t>>();
  EXPECT_EQ(arr.size(), 3u);
  EXPECT_EQ(arr[2], 3);
  EXPECT_EQ(a.cast<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2, 3}));
  // Ints convert to doubles element by element; a string element does not convert to int.
  EXPECT_EQ(a.cast<std::vector<double>>(), (std::vector<double>{1.0, 2.0, 3.0}));
  Any mixed = Array<Any>{Any(1), Any(ffi::String("x"))};
  EXPECT_FALSE(mixed.try_cast<std::vector<int64_t>>().has_value());
  ffi::Error e = CatchError([&] { (void)mixed.cast<std::vector<int64_t>>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("std::vector<int>"), std::string::npos) << e.message();
  // Not a sequence at all.
  EXPECT_FALSE(Any(5).try_cast<std::vector<int64_t>>().has_value());
}

TEST(Stl, VectorFromAList) {
  Function make_list = Function::GetGlobalRequired("ffi.List");
  Any list = make_list(1, 2);
  EXPECT_EQ(list.type_index(), kTVMFFIList);
  EXPECT_EQ(list.cast<std::vector<int>>(), (std::vector<int>{1, 2}));
}

TEST(Stl, NestedAndStrings) {
  std::vector<std::vector<std::string>> nested = {{"a", "bb"}, {}, {"long enough string"}};
  Any a = nested;
  EXPECT_EQ(a.cast<Array<Array<ffi::String>>>()[0][1], "bb");
  EXPECT_EQ(a.cast<std::vector<std::vector<std::string>>>(), nested);
}

TEST(Stl, ArrayAndTuple) {
  Any a = std::array<int, 3>{4, 5, 6};
  EXPECT_EQ((a.cast<std::array<int, 3>>()), (std::array<int, 3>{4, 5, 6}));
  EXPECT_FALSE((a.try_cast<std::array<int, 2>>().has_value()));  // the size must match
  EXPECT_EQ((ffi::TypeTraits<std::array<int, 12>>::TypeStr()), "std::array<int, 12>");
  Any t = std::make_tuple(int64_t{1}, std::string("two"), 3.5);
  EXPECT_EQ(t.type_index(), kTVMFFIArray);
  auto back = t.cast<std::tuple<int64_t, std::string, double>>();
  EXPECT_EQ(std::get<1>(back), "two");
  EXPECT_EQ(std::get<2>(back), 3.5);
  EXPECT_FALSE((t.try_cast<std::tuple<int64_t, int64_t, double>>().has_value()));
  EXPECT_FALSE((t.try_cast<std::tuple<int64_t, std::string>>().has_value()));
  EXPECT_EQ((ffi::TypeTraits<std::tuple<int, std::string>>::TypeStr()), "std::tuple<int, str>");
}

TEST(Stl, MapsTravelAsMaps) {
  std::map<std::string, int64_t> ordered = {{"a", 1}, {"b", 2}};
  Any a = ordered;
  EXPECT_EQ(a.type_index(), kTVMFFIMap);
  Map<ffi::String, int64_t> m = a.cast<Map<ffi::String, int64_t>>();
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("b"), 2);
  EXPECT_EQ((a.cast<std::map<std::string, int64_t>>()), ordered);
  auto unordered = a.cast<std::unordered_map<std::string, double>>();
  EXPECT_EQ(unordered.at("a"), 1.0);
  EXPECT_FALSE((a.try_cast<std::map<int64_t, int64_t>>().has_value()));  // keys are strings
  Any dict = Function::GetGlobalRequired("ffi.Dict")("k", 7);
  EXPECT_EQ((dict.cast<std::map<std::string, int>>().at("k")), 7);
}

TEST(Stl, OptionalAndVariant) {
  Any none = std::optional<int>();
  EXPECT_TRUE(none == nullptr);
  Any some = std::optional<int>(3);
  EXPECT_EQ(some.cast<int>(), 3);
  EXPECT_EQ(none.cast<std::optional<std::vector<int>>>(), std::nullopt);
  EXPECT_EQ(Any(std::vector<int>{1}).cast<std::optional<std::vector<int>>>().value(),
            std::vector<int>{1});
  using V = std::variant<int64_t, std::string>;
  Any vi = V(int64_t{9});
  Any vs = V(std::string("nine"));
  EXPECT_EQ(vi.type_index(), kTVMFFIInt);
  EXPECT_EQ(std::get<std::string>(vs.cast<V>()), "nine");
  EXPECT_EQ(vi.cast<V>().index(), 0u);
  // The first alternative that converts wins: an int becomes the double of <double, int64_t>.
  EXPECT_EQ((Any(2).cast<std::variant<double, int64_t>>().index()), 0u);
  EXPECT_FALSE(Any(1.5).try_cast<V>().has_value());
}

TEST(Stl, FunctionBothWays) {
  std::function<int64_t(int64_t, int64_t)> add = [](int64_t a, int64_t b) { return a + b; };
  Any f = add;
  EXPECT_EQ(f.type_index(), kTVMFFIFunction);
  EXPECT_EQ(f.cast<Function>()(2, 3).cast<int64_t>(), 5);
  auto back = f.cast<std::function<double(int64_t, int64_t)>>();
  EXPECT_EQ(back(1, 2), 3.0);
  auto wrong = f.cast<std::function<std::string(int64_t, int64_t)>>();
  EXPECT_EQ(CatchError([&] { (void)wrong(1, 2); }).kind(), "TypeError");
  EXPECT_TRUE(Any(std::function<void()>()) == nullptr);  // an empty std::function is None
}

TEST(Stl, TypedFunctionsTakeAndReturnThem) {
  Function f = Function::FromTyped(
      [](const std::vector<int64_t>& v, const std::map<std::string, int64_t>& scale) {
        std::vector<int64_t> out;
        for (int64_t x : v) out.push_back(x * scale.at("by"));
        return out;
      });
  // Called with the STL values themselves: they become owned containers for the call.
  std::vector<int64_t> v = {1, 2, 3};
  std::map<std::string, int64_t> scale = {{"by", 10}};
  EXPECT_EQ(f(v, scale).cast<std::vector<int64_t>>(), (std::vector<int64_t>{10, 20, 30}));
  // And with the ABI's containers.
  Map<ffi::String, int64_t> m = {{"by", 2}};
  EXPECT_EQ(f(Array<int64_t>{4}, m).cast<Array<int64_t>>()[0], 8);
  ffi::Error e = CatchError([&] { f(Array<ffi::String>{"x"}, m); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("std::vector<int>"), std::string::npos) << e.message();
}

// A library built with the reference's headers and its extra/stl.h.
ffi::Module* Reference() {
  static ffi::Module* lib = [] {
    std::string path = FFI_STL_REFERENCE;
    return path.empty() ? nullptr : new ffi::Module(ffi::Module::LoadFromFile(path));
  }();
  return lib;
}

TEST(StlInterop, ReferenceBuiltFunctionsOverStlTypes) {
  if (Reference() == nullptr) GTEST_SKIP() << "apache-tvm-ffi is not installed";
  ffi::Module& lib = *Reference();
  Function row_sums = lib->GetFunction("row_sums").value();
  std::vector<std::vector<int64_t>> rows = {{1, 2}, {}, {3, 4, 5}};
  EXPECT_EQ(row_sums(rows).cast<std::vector<int64_t>>(), (std::vector<int64_t>{3, 0, 12}));
  Function lengths = lib->GetFunction("lengths").value();
  Any table = lengths(Array<ffi::String>{"ab", "a much longer name"});
  EXPECT_EQ(table.type_index(), kTVMFFIMap);
  auto m = table.cast<std::map<std::string, int64_t>>();
  EXPECT_EQ(m.at("ab"), 2);
  EXPECT_EQ(m.at("a much longer name"), 18);
  Function total = lib->GetFunction("total").value();
  std::unordered_map<std::string, int64_t> u = {{"x", 4}, {"y", 5}};
  EXPECT_EQ(total(u).cast<int64_t>(), 9);
  Function ends = lib->GetFunction("ends").value();
  EXPECT_TRUE(ends(std::vector<int64_t>{}) == nullptr);
  auto t = ends(std::vector<int64_t>{7, 8, 9}).cast<std::tuple<int64_t, int64_t, int64_t>>();
  EXPECT_EQ(t, std::make_tuple(7, 9, 3));
  Function kind = lib->GetFunction("kind").value();
  EXPECT_EQ(kind(5).cast<std::string>(), "int");
  EXPECT_EQ(kind("five").cast<std::string>(), "str");
  EXPECT_EQ(CatchError([&] { kind(1.5); }).kind(), "TypeError");
}

}  // namespace
