// Dict<K, V>: shared mutation (no copy-on-write), growth in place through every form, erase and
// clear, Any conversions and the Dict global functions.
#include <ffi/container/dict.h>
#include <ffi/container/map.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
using ffi::Any;
using ffi::Dict;
using ffi::String;
using Impl = ffi::detail::MapImpl;

const ffi::MapBaseObj* Table(const ffi::ObjectRef& m) {
  return static_cast<const ffi::MapBaseObj*>(m.get());
}

TEST(Dict, SharedMutationAndGrowthInPlace) {
  EXPECT_EQ(ffi::DictObj::RuntimeTypeIndex(), kTVMFFIDict);
  Dict<int64_t, int64_t> d;
  Dict<int64_t, int64_t> alias = d;
  const ffi::Object* obj = d.get();
  // Small 2 -> small 4 -> dense 8 -> dense 16 ...: the object stays, its storage moves in.
  std::vector<uint64_t> slots;
  for (int64_t i = 0; i < 40; ++i) {
    d.Set(i, i * i);
    ASSERT_EQ(d.get(), obj);
    slots.push_back(Impl::Slots(Table(d)) | (Impl::IsSmall(Table(d)) ? 1000 : 0));
  }
  EXPECT_EQ(slots[0], 1002u);
  EXPECT_EQ(slots[2], 1004u);
  EXPECT_EQ(slots[4], 8u);
  EXPECT_EQ(slots[39], 64u);
  EXPECT_EQ(alias.size(), 40u);
  EXPECT_EQ(alias.at(39), 39 * 39);
  EXPECT_EQ(d.use_count(), 2u);
  // Erase and clear change the shared table too.
  alias.erase(3);
  EXPECT_EQ(d.count(3), 0u);
  EXPECT_EQ(d.size(), 39u);
  std::vector<int64_t> order;
  for (auto kv : d) order.push_back(kv.first);
  EXPECT_EQ(order.front(), 0);
  EXPECT_EQ(order[3], 4);
  EXPECT_EQ(order.back(), 39);
  d.clear();
  EXPECT_TRUE(alias.empty());
  alias.Set(7, 49);
  EXPECT_EQ(d.at(7), 49);
  EXPECT_EQ(d.get(), obj);
}

TEST(Dict, SmallGrowthAdoptsTheLargerTable) {
  // Growing from 2 to 4 slots moves the inline entries of a new small table into this object.
  String v("a value long enough to be a string object");
  {
    Dict<String, String> d;
    for (int i = 0; i < 4; ++i) d.Set("k" + std::to_string(i), v);
    EXPECT_TRUE(Impl::IsSmall(Table(d)));
    EXPECT_EQ(Impl::Slots(Table(d)), 4u);
    EXPECT_EQ(UseCount(v), 5u);
    d.erase("k0");
    EXPECT_EQ(UseCount(v), 4u);
    EXPECT_EQ(d.at("k3"), v);
  }
  EXPECT_EQ(UseCount(v), 1u);
}

TEST(Dict, LookupsErrorsAndConversions) {
  Dict<String, int64_t> d{{"a", 1}, {"b", 2}};
  EXPECT_EQ(d["a"], 1);
  EXPECT_EQ(d.Get("b").value(), 2);
  EXPECT_FALSE(d.Get("c").has_value());
  ffi::Error e = ExpectError([&] { (void)d.at("c"); });
  EXPECT_EQ(e.kind(), "KeyError");
  EXPECT_EQ(e.message(), "key is not in Map");
  Any any = d;
  EXPECT_EQ(any.type_index(), kTVMFFIDict);
  EXPECT_TRUE((any.cast<Dict<String, int64_t>>().same_as(d)));
  EXPECT_TRUE((any.cast<Dict<Any, Any>>().same_as(d)));
  // A converted copy is a new table: changes to it do not reach the original.
  Dict<String, double> widened = any.cast<Dict<String, double>>();
  widened.Set("c", 3.0);
  EXPECT_EQ(d.count("c"), 0u);
  // A Map converts into a new Dict.
  ffi::Map<String, int64_t> m{{"x", 1}};
  Dict<String, int64_t> from_map = Any(m).cast<Dict<String, int64_t>>();
  from_map.Set("y", 2);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_FALSE((Any(1).try_cast<Dict<String, int64_t>>().has_value()));
  EXPECT_FALSE((Any().cast<ffi::Optional<Dict<String, int64_t>>>().has_value()));
  EXPECT_EQ((ffi::TypeTraits<Dict<String, int64_t>>::TypeStr()),
            std::string_view("Dict<str, int>"));
}

TEST(Dict, GlobalFunctions) {
  auto G = [](const char* name) { return ffi::Function::GetGlobalRequired(name); };
  Any d = G("ffi.Dict")("a", 1, "b", 2);
  EXPECT_EQ(d.type_index(), kTVMFFIDict);
  EXPECT_EQ(G("ffi.DictSize")(d).cast<int64_t>(), 2);
  G("ffi.DictSetItem")(d, "c", 3);
  EXPECT_EQ(G("ffi.DictSize")(d).cast<int64_t>(), 3);
  EXPECT_EQ(G("ffi.DictGetItem")(d, "c").cast<int64_t>(), 3);
  EXPECT_EQ(G("ffi.DictCount")(d, "c").cast<int64_t>(), 1);
  G("ffi.DictErase")(d, "a");
  EXPECT_EQ(G("ffi.DictCount")(d, "a").cast<int64_t>(), 0);
  EXPECT_EQ(ExpectError([&] { G("ffi.DictGetItem")(d, "a"); }).kind(), "KeyError");
  Any got = G("ffi.DictGetItemOrMissing")(d, "a");
  EXPECT_TRUE(
      got.cast<ffi::ObjectRef>().same_as(G("ffi.GetInvalidObject")().cast<ffi::ObjectRef>()));
  ffi::Function it = G("ffi.DictForwardIterFunctor")(d).cast<ffi::Function>();
  EXPECT_EQ(it(0).cast<std::string>(), "b");
  EXPECT_TRUE(it(2).cast<bool>());
  EXPECT_EQ(it(1).cast<int64_t>(), 3);
  EXPECT_FALSE(it(2).cast<bool>());
  G("ffi.DictClear")(d);
  EXPECT_EQ(G("ffi.DictSize")(d).cast<int64_t>(), 0);
  // Readers take exactly a Dict; the writers accept a Map by converting it to a new Dict, so the
  // Map is left as it was.
  Any m = G("ffi.Map")("a", 1);
  EXPECT_EQ(ExpectError([&] { G("ffi.DictSize")(m); }).kind(), "TypeError");
  G("ffi.DictSetItem")(m, "x", 1);
  EXPECT_EQ(G("ffi.MapSize")(m).cast<int64_t>(), 1);
}

}  // namespace
