// Map and Dict across implementations: a library built with the reference's headers
// (loader/containers_map_reference.cc) builds tables that our headers read, and reads and changes
// tables our headers built, each side running its own inline code on the other's memory. The same
// edit sequence replayed on both sides must give byte-for-byte the same table structure.
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
using ffi::Function;
using ffi::Map;
using ffi::String;
using Impl = ffi::detail::MapImpl;

/*! \brief The reference-built library, loaded once for the process (its code backs its tables). */
bool LoadReference() {
  std::string path = FFI_MAP_REFERENCE;
  if (path.empty()) return false;
  static ffi::Module lib = ffi::Module::LoadFromFile(path);
  return true;
}
#define REQUIRE_REFERENCE() \
  if (!LoadReference()) GTEST_SKIP() << "apache-tvm-ffi is not installed"

Function Ref(const std::string& name) {
  return Function::GetGlobalRequired("testing.map_ref." + name);
}

// The same key scheme and edit sequence as the library's.
std::string StrKey(int64_t i) {
  return i % 3 == 2 ? "a_rather_long_key_number_" + std::to_string(i) : "k" + std::to_string(i);
}
uint64_t NextRandom(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 33;
}
template <typename M>
void Replay(M* map, uint64_t seed, int64_t steps) {
  uint64_t state = seed;
  for (int64_t s = 0; s < steps; ++s) {
    uint64_t r = NextRandom(&state);
    uint64_t k = (r >> 4) % 48;
    Any key =
        k % 2 == 0 ? Any(static_cast<int64_t>(k)) : Any(String(StrKey(static_cast<int64_t>(k))));
    if (r % 8 == 0) {
      map->erase(key);
    } else {
      map->Set(key, Any(static_cast<int64_t>(s)));
    }
  }
}

/*! \brief Asserts that two tables have the same form, slots, metadata, entries and links. */
void ExpectSameTable(const ffi::ObjectRef& a_ref, const ffi::ObjectRef& b_ref) {
  auto* a = static_cast<const ffi::MapBaseObj*>(a_ref.get());
  auto* b = static_cast<const ffi::MapBaseObj*>(b_ref.get());
  ASSERT_EQ(Impl::IsSmall(a), Impl::IsSmall(b));
  ASSERT_EQ(Impl::Slots(a), Impl::Slots(b));
  ASSERT_EQ(a->size(), b->size());
  ffi::AnyEqual eq;
  if (Impl::IsSmall(a)) {
    for (uint64_t i = 0; i < a->size(); ++i) {
      EXPECT_TRUE(eq(Impl::SmallData(a)[i].first, Impl::SmallData(b)[i].first)) << i;
      EXPECT_TRUE(eq(Impl::SmallData(a)[i].second, Impl::SmallData(b)[i].second)) << i;
    }
    return;
  }
  EXPECT_EQ(Impl::Tail(a)->fib_shift, Impl::Tail(b)->fib_shift);
  EXPECT_EQ(Impl::Tail(a)->iter_head, Impl::Tail(b)->iter_head);
  EXPECT_EQ(Impl::Tail(a)->iter_tail, Impl::Tail(b)->iter_tail);
  for (uint64_t s = 0; s < Impl::Slots(a); ++s) {
    ASSERT_EQ(Impl::Meta(a, s), Impl::Meta(b, s)) << "slot " << s;
    if (Impl::Meta(a, s) == Impl::kEmpty) continue;
    const ffi::detail::DenseItem& x = Impl::Item(a, s);
    const ffi::detail::DenseItem& y = Impl::Item(b, s);
    EXPECT_TRUE(eq(x.kv.first, y.kv.first)) << "slot " << s;
    EXPECT_TRUE(eq(x.kv.second, y.kv.second)) << "slot " << s;
    EXPECT_EQ(x.prev, y.prev) << "slot " << s;
    EXPECT_EQ(x.next, y.next) << "slot " << s;
  }
}

/*! \brief Our "key=value," dump, as the library's. */
std::string Dump(const Map<Any, Any>& m) {
  std::string out;
  for (auto kv : m) {
    auto str = [](const Any& v) {
      return v.type_index() == kTVMFFIInt ? std::to_string(v.cast<int64_t>())
                                          : v.cast<std::string>();
    };
    out += str(kv.first) + "=" + str(kv.second) + ",";
  }
  return out;
}

TEST(MapInterop, ReferenceTablesReadByOurHeaders) {
  REQUIRE_REFERENCE();
  for (int64_t n : {0, 1, 3, 4, 9, 40, 200}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto si = Ref("str_int")(n).cast<Map<String, int64_t>>();
    ASSERT_EQ(si.size(), static_cast<size_t>(n));
    EXPECT_EQ(Impl::IsSmall(static_cast<const ffi::MapBaseObj*>(si.get())), n <= 4);
    int64_t i = 0;
    for (auto [k, v] : si) {  // insertion order
      EXPECT_EQ(k, StrKey(i));
      EXPECT_EQ(v, i * 10);
      ++i;
    }
    for (int64_t j = 0; j < n; ++j) EXPECT_EQ(si.at(StrKey(j)), j * 10);
    EXPECT_EQ(si.count("absent"), 0u);
    EXPECT_EQ(ExpectError([&] { (void)si.at("absent"); }).kind(), "KeyError");

    auto ii = Ref("int_int")(n).cast<Map<int64_t, int64_t>>();
    for (int64_t j = 0; j < n; ++j) EXPECT_EQ(ii.at(j * 7 - 3), j);
    EXPECT_FALSE(ii.Get(n * 7).has_value());

    auto sa = Ref("str_any")(n).cast<Map<String, Any>>();
    for (int64_t j = 0; j < n; ++j) {
      Any v = sa.at(StrKey(j));
      using Inner = Map<String, int64_t>;
      if (j % 3 == 0) {
        EXPECT_EQ(v.cast<int64_t>(), j);
      } else if (j % 3 == 1) {
        EXPECT_EQ(v.cast<std::string>(), "value " + std::to_string(j));
      } else {
        EXPECT_EQ(v.cast<Inner>().at("inner"), j);
      }
    }

    auto aa = Ref("any_any")(n).cast<Map<Any, Any>>();
    for (int64_t j = 0; j < n; ++j) {
      if (j % 4 == 0) {
        EXPECT_EQ(aa.at(j).cast<std::string>(), StrKey(j));
      } else if (j % 4 == 1) {
        EXPECT_EQ(aa.at(String(StrKey(j))).cast<int64_t>(), j);
      } else if (j % 4 == 2) {
        EXPECT_EQ(aa.at(static_cast<double>(j) + 0.5).cast<int64_t>(), j);
      }
    }
    if (n > 7) {
      // Bool keys: true and false each set twice, the later value kept.
      EXPECT_EQ(aa.at(true).cast<int64_t>(), n - 1 - (n - 1 - 3) % 8);
      EXPECT_EQ(aa.count(Any(int64_t{1})), 0u);  // the int 1 is not the key true
    }
  }
}

TEST(MapInterop, OurTablesReadByReferenceCode) {
  REQUIRE_REFERENCE();
  for (int64_t n : {0, 1, 3, 4, 9, 40, 200}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    Map<String, int64_t> si;
    Map<int64_t, int64_t> ii;
    Map<Any, Any> aa;
    std::string keys;
    for (int64_t i = 0; i < n; ++i) {
      si.Set(StrKey(i), i * 10);
      ii.Set(i * 7 - 3, i);
      aa.Set(i % 2 ? Any(String(StrKey(i))) : Any(i), i);
      keys += StrKey(i) + ",";
    }
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(Ref("lookup_str_int")(si, StrKey(i)).cast<int64_t>(), i * 10);
      EXPECT_EQ(Ref("lookup_int_int")(ii, i * 7 - 3).cast<int64_t>(), i);
      Any key = i % 2 ? Any(String(StrKey(i))) : Any(i);
      EXPECT_EQ(Ref("count_any")(aa, key).cast<int64_t>(), 1);
      EXPECT_EQ(Ref("get_any")(aa, key).cast<int64_t>(), i);
    }
    EXPECT_EQ(Ref("lookup_str_int")(si, "absent").cast<int64_t>(), -1);
    EXPECT_EQ(Ref("keys_str_int")(si).cast<std::string>(), keys);
    EXPECT_EQ(Ref("optional_size")(si).cast<int64_t>(), n);
    EXPECT_EQ(Ref("dump")(aa).cast<std::string>(), Dump(aa));
    // The reference's KeyError reaches us with its kind and message.
    ffi::Error e = ExpectError([&] { Ref("at_str_int")(si, "absent"); });
    EXPECT_EQ(e.kind(), "KeyError");
    EXPECT_EQ(e.message(), "key is not in Map");
  }
  EXPECT_EQ(Ref("optional_size")(Any()).cast<int64_t>(), -1);
  Map<String, Any> nested{{"m", Map<String, int64_t>{{"x", 5}}}, {"s", String("text")}};
  EXPECT_EQ((Ref("get_str_any")(nested, "m").cast<Map<String, int64_t>>().at("x")), 5);
  EXPECT_EQ(Ref("get_str_any")(nested, "s").cast<std::string>(), "text");
}

TEST(MapInterop, SameEditsGiveTheSameTable) {
  REQUIRE_REFERENCE();
  for (uint64_t seed : {1u, 2u, 3u, 17u}) {
    for (int64_t steps : {3, 6, 12, 30, 100, 400}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", steps " + std::to_string(steps));
      Map<Any, Any> ours;
      Replay(&ours, seed, steps);
      Map<Any, Any> theirs = Ref("replay")(static_cast<int64_t>(seed), steps).cast<Map<Any, Any>>();
      ExpectSameTable(ours, theirs);
      EXPECT_EQ(Dump(ours), Dump(theirs));

      Dict<Any, Any> our_dict;
      Replay(&our_dict, seed, steps);
      auto their_dict =
          Ref("replay_dict")(static_cast<int64_t>(seed), steps).cast<Dict<Any, Any>>();
      ExpectSameTable(our_dict, their_dict);
    }
  }
  // The range constructor with duplicate keys.
  for (int64_t n : {2, 3, 4, 12}) {
    std::vector<std::pair<Any, Any>> pairs;
    for (int64_t i = 0; i < n; ++i) pairs.emplace_back(String(StrKey(i % 5)), i);
    ExpectSameTable(Map<Any, Any>(pairs.begin(), pairs.end()),
                    Ref("from_list")(n).cast<Map<Any, Any>>());
  }
}

TEST(MapInterop, LookupsAgree) {
  REQUIRE_REFERENCE();
  // Keys made afresh on each side (new string objects for the long ones) find the same entries
  // in a table of either side, whichever side's code looks them up.
  Map<Any, Any> theirs = Ref("replay")(int64_t{5}, int64_t{400}).cast<Map<Any, Any>>();
  Map<Any, Any> ours;
  Replay(&ours, 5, 400);
  size_t present = 0;
  for (int64_t k = 0; k < 48; ++k) {
    Any key = k % 2 == 0 ? Any(k) : Any(String(StrKey(k)));
    int64_t expect = Ref("count_any")(theirs, key).cast<int64_t>();
    EXPECT_EQ(static_cast<int64_t>(theirs.count(key)), expect) << k;
    EXPECT_EQ(static_cast<int64_t>(ours.count(key)), expect) << k;
    EXPECT_EQ(Ref("count_any")(ours, key).cast<int64_t>(), expect) << k;
    present += expect;
  }
  EXPECT_EQ(present, theirs.size());
  EXPECT_GT(present, 20u);
}

TEST(MapInterop, ReferenceCodeChangesOurTables) {
  REQUIRE_REFERENCE();
  // Copy-on-write in the reference's Map::Set: our table is shared, so it gets a copy.
  Map<Any, Any> ours{{String("a"), 1}};
  Map<Any, Any> changed = Ref("map_set")(ours, "b", 2).cast<Map<Any, Any>>();
  EXPECT_EQ(ours.size(), 1u);
  EXPECT_EQ(changed.size(), 2u);
  // Its Dict code grows our Dict in place through every form, with its own storage deleters.
  for (int64_t steps : {1, 3, 5, 20, 300}) {
    SCOPED_TRACE("steps " + std::to_string(steps));
    Dict<Any, Any> d;
    const ffi::Object* obj = d.get();
    Ref("dict_replay")(d, int64_t{9}, steps);
    EXPECT_EQ(d.get(), obj);
    Dict<Any, Any> expect;
    Replay(&expect, 9, steps);
    ExpectSameTable(d, expect);
    // ... and we keep changing what it changed, then it reads the result.
    for (int64_t i = 100; i < 120; ++i) d.Set(i, i);
    Ref("dict_erase")(d, int64_t{105});
    Ref("dict_set")(d, String("late"), int64_t{7});
    EXPECT_EQ(d.count(105), 0u);
    EXPECT_EQ(d.at(String("late")).cast<int64_t>(), 7);
    EXPECT_EQ((Ref("dump_dict")(d).cast<std::string>()), Dump(Map<Any, Any>(d.begin(), d.end())));
  }
  // A reference-built Dict grown by our code.
  auto theirs = Ref("replay_dict")(int64_t{4}, int64_t{2}).cast<Dict<Any, Any>>();
  for (int64_t i = 0; i < 50; ++i) theirs.Set(1000 + i, i);
  EXPECT_EQ(theirs.at(1049).cast<int64_t>(), 49);
  EXPECT_EQ(Ref("dump_dict")(theirs).cast<std::string>(),
            Dump(Map<Any, Any>(theirs.begin(), theirs.end())));
}

}  // namespace
