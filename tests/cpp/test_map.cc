// Map<K, V>: the table's layout and forms (small, dense), iteration order, copy-on-write, lookups
// and their errors, key hashing and equality, Any conversions and reference counts.
#include <ffi/container/dict.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
using ffi::Any;
using ffi::Map;
using ffi::String;
using Impl = ffi::detail::MapImpl;

/*! \brief The table behind a map. */
const ffi::MapBaseObj* Table(const ffi::ObjectRef& m) {
  return static_cast<const ffi::MapBaseObj*>(m.get());
}
/*! \brief The 64-bit words after the object header: data, size, slots, data_deleter. */
const uint64_t* Words(const ffi::ObjectRef& m) {
  return reinterpret_cast<const uint64_t*>(reinterpret_cast<const char*>(m.get()) + 24);
}
/*! \brief The keys in iteration order, as strings. */
template <typename M>
std::vector<std::string> Keys(const M& m) {
  std::vector<std::string> out;
  for (auto kv : m) out.push_back(std::string(kv.first));
  return out;
}

TEST(Map, LayoutOfSmallTable) {
  static_assert(sizeof(ffi::MapObj) == 56);
  EXPECT_EQ(ffi::MapObj::RuntimeTypeIndex(), kTVMFFIMap);
  Map<String, int64_t> m{{"a", 1}};
  const uint64_t* w = Words(m);
  // Inline entries right after the 56-byte object; two slots reserved; tagged small; no deleter.
  EXPECT_EQ(w[0], reinterpret_cast<uint64_t>(m.get()) + 56);
  EXPECT_EQ(w[1], 1u);
  EXPECT_EQ(w[2], (uint64_t{1} << 63) | 2);
  EXPECT_EQ(w[3], 0u);
  EXPECT_EQ(m.get()->type_index(), kTVMFFIMap);
  // The entry is two ABI values, the key first.
  const TVMFFIAny* kv = reinterpret_cast<const TVMFFIAny*>(w[0]);
  EXPECT_EQ(kv[0].type_index, kTVMFFISmallStr);
  EXPECT_EQ(kv[1].type_index, kTVMFFIInt);
  EXPECT_EQ(kv[1].v_int64, 1);
}

TEST(Map, SmallGrowsTwoThenFourThenDense) {
  Map<int64_t, int64_t> m;
  EXPECT_EQ(Words(m)[2], (uint64_t{1} << 63) | 2);
  std::vector<uint64_t> slots;
  for (int64_t i = 0; i < 6; ++i) {
    m.Set(i, i);
    slots.push_back(Words(m)[2]);
  }
  uint64_t small = uint64_t{1} << 63;
  EXPECT_EQ(slots, (std::vector<uint64_t>{small | 2, small | 2, small | 4, small | 4, 8, 8}));
  // The dense form: fib_shift after the 56 bytes, blocks behind `data` with their own deleter.
  EXPECT_FALSE(Impl::IsSmall(Table(m)));
  EXPECT_EQ(Impl::Tail(Table(m))->fib_shift, 61u);
  EXPECT_NE(Words(m)[3], 0u);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(m.at(i), i);
}

TEST(Map, RangeOfFourOrMoreStartsDense) {
  Map<String, int64_t> three{{"a", 1}, {"b", 2}, {"c", 3}};
  EXPECT_TRUE(Impl::IsSmall(Table(three)));
  EXPECT_EQ(Impl::Slots(Table(three)), 3u);
  Map<String, int64_t> four{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}};
  EXPECT_FALSE(Impl::IsSmall(Table(four)));
  EXPECT_EQ(Impl::Slots(Table(four)), 8u);
  // Duplicates in the list: the later value wins, the first position stays.
  Map<String, int64_t> dup{{"a", 1}, {"b", 2}, {"a", 3}};
  EXPECT_EQ(dup.size(), 2u);
  EXPECT_EQ(dup.at("a"), 3);
  EXPECT_EQ(Keys(dup), (std::vector<std::string>{"a", "b"}));
}

TEST(Map, DenseMetadataIsTheConventions) {
  Map<int64_t, int64_t> m;
  for (int64_t i = 0; i < 40; ++i) m.Set(i, -i);
  const ffi::MapBaseObj* t = Table(m);
  ASSERT_FALSE(Impl::IsSmall(t));
  // Every key sits on the chain starting at its Fibonacci-hashed home slot.
  for (int64_t i = 0; i < 40; ++i) {
    Any key(i);
    uint64_t slot = (11400714819323198485ULL * ffi::AnyHash()(key)) >> Impl::Tail(t)->fib_shift;
    ASSERT_EQ(Impl::Meta(t, slot) & 0x80, 0) << "home slot of " << i << " is a chain head";
    bool found = false;
    do {
      found = found || Impl::Item(t, slot).kv.first.cast<int64_t>() == i;
    } while (!found && Impl::Advance(t, &slot));
    EXPECT_TRUE(found) << i;
  }
  size_t occupied = 0;
  for (uint64_t s = 0; s < Impl::Slots(t); ++s) occupied += Impl::Meta(t, s) != 0xFF;
  EXPECT_EQ(occupied, 40u);
}

TEST(Map, IterationFollowsInsertionOrder) {
  Map<String, int64_t> m;
  std::vector<std::string> expect;
  for (int i = 0; i < 30; ++i) {
    std::string k = "key" + std::to_string((i * 17) % 30);
    m.Set(k, i);
    expect.push_back(k);
  }
  EXPECT_EQ(Keys(m), expect);
  // Erasing keeps the others' order.
  m.erase("key17");
  expect.erase(expect.begin() + 1);
  EXPECT_EQ(Keys(m), expect);
  // Backwards from end().
  auto it = m.end();
  --it;
  EXPECT_EQ(std::string((*it).first), expect.back());
}

TEST(Map, OverwriteKeepsPlaceWhenSmallMovesToEndWhenDense) {
  Map<String, int64_t> small{{"a", 1}, {"b", 2}};
  small.Set("a", 10);
  EXPECT_EQ(Keys(small), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(small.at("a"), 10);
  Map<String, int64_t> dense{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}};
  dense.Set("a", 10);
  EXPECT_EQ(Keys(dense), (std::vector<std::string>{"b", "c", "d", "e", "a"}));
  EXPECT_EQ(dense.at("a"), 10);
}

TEST(Map, CopyOnWrite) {
  Map<String, int64_t> a{{"x", 1}};
  Map<String, int64_t> b = a;
  EXPECT_TRUE(a.same_as(b));
  EXPECT_EQ(a.use_count(), 2u);
  b.Set("y", 2);
  EXPECT_FALSE(a.same_as(b));
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(a.count("y"), 0u);
  EXPECT_EQ(a.use_count(), 1u);
  // The only owner changes its table in place while it has room.
  const ffi::Object* before = b.get();
  b.Set("x", 5);
  EXPECT_EQ(b.get(), before);
  Map<String, int64_t> c = b;
  c.erase("x");
  EXPECT_EQ(b.count("x"), 1u);
  EXPECT_EQ(c.count("x"), 0u);
  // clear() gives this reference a new table; the shared one is untouched.
  Map<String, int64_t> d = b;
  d.clear();
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(b.size(), 2u);
}

TEST(Map, LookupsAndKeyError) {
  Map<String, int64_t> m{{"a", 1}, {"a_rather_long_key", 2}};
  EXPECT_EQ(m["a"], 1);
  EXPECT_EQ(m.at("a_rather_long_key"), 2);
  EXPECT_EQ(m.count("a"), 1u);
  EXPECT_EQ(m.count("b"), 0u);
  EXPECT_EQ(m.Get("a").value(), 1);
  EXPECT_FALSE(m.Get("b").has_value());
  EXPECT_TRUE(m.find("b") == m.end());
  EXPECT_EQ((*m.find("a")).second, 1);
  ffi::Error e = ExpectError([&] { (void)m.at("b"); });
  EXPECT_EQ(e.kind(), "KeyError");
  EXPECT_EQ(e.message(), "key is not in Map");
  e = ExpectError([&] { (void)m["zzz"]; });
  EXPECT_EQ(e.kind(), "KeyError");
  // A failed lookup leaves the map as it was.
  EXPECT_EQ(m.size(), 2u);
}

TEST(Map, KeysHashAndCompareByTheConvention) {
  Map<Any, Any> m;
  m.Set(String("abc"), 1);                     // stored inline (3 bytes)
  m.Set(String("a_string_longer_than_7"), 2);  // a string object
  m.Set(int64_t{1}, 3);
  m.Set(true, 4);  // a bool is not the int 1
  m.Set(2.5, 5);
  m.Set(ffi::Bytes("abc"), 6);  // bytes are not the string "abc"
  ffi::String obj_key("an object used as a key, by identity");
  EXPECT_EQ(m.size(), 6u);
  // Strings by content, whichever way they travel.
  EXPECT_EQ(m.at(Any(std::string("abc"))).cast<int>(), 1);
  EXPECT_EQ(m.at(Any(String(std::string("a_string_longer_than_7")))).cast<int>(), 2);
  EXPECT_EQ(m.at(Any(int64_t{1})).cast<int>(), 3);
  EXPECT_EQ(m.at(Any(true)).cast<int>(), 4);
  EXPECT_EQ(m.at(Any(2.5)).cast<int>(), 5);
  EXPECT_EQ(m.at(Any(ffi::Bytes("abc"))).cast<int>(), 6);
  EXPECT_EQ(m.count(Any(2.0)), 0u);
  // The hashes of an inline string and of a string object with the same bytes agree.
  TVMFFIAny heap;
  heap.type_index = kTVMFFIStr;
  heap.zero_padding = 0;
  String s7(ffi::ObjectPtr<ffi::Object>(ffi::detail::MakeBytesObj<ffi::StringObj>("1234567", 7)));
  heap.v_obj = HeapHeader(s7);
  Any inline_s7(String("1234567"));
  ASSERT_EQ(inline_s7.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(ffi::AnyHash()(heap), ffi::AnyHash()(inline_s7));
  EXPECT_TRUE(ffi::AnyEqual()(heap, *inline_s7.raw()));
  // The convention's values: combine(type index, payload) for plain values.
  uint64_t k = kTVMFFIInt;
  EXPECT_EQ(ffi::AnyHash()(Any(int64_t{7})), k ^ (7 + 0x9e3779b9 + (k << 6) + (k >> 2)));
  EXPECT_EQ(
      ffi::detail::StableHashBytes("abcdefghij", 10),
      ((0x6867666564636261ULL % 2147483647ULL) * 1099511628211ULL + 0x6a69ULL) % 2147483647ULL);
}

TEST(Map, ObjectKeysByIdentity) {
  ffi::Map<ffi::Map<String, int64_t>, int64_t> m;
  Map<String, int64_t> k1{{"a", 1}};
  Map<String, int64_t> k2{{"a", 1}};
  m.Set(k1, 1);
  m.Set(k2, 2);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at(k1), 1);
  EXPECT_EQ(m.at(k2), 2);
}

/*! \brief A key type that registers its own key hash and equality: boxes equal by value. */
class KeyBoxObj : public ffi::Object {
 public:
  explicit KeyBoxObj(int64_t v) : value(v) {}
  int64_t value;
  FFI_DECLARE_OBJECT_INFO("testing.map.KeyBox", KeyBoxObj, ffi::Object);
};
class KeyBox : public ffi::ObjectRef {
 public:
  explicit KeyBox(int64_t v) : ObjectRef(ffi::make_object<KeyBoxObj>(v)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(KeyBox, ffi::ObjectRef, KeyBoxObj);
};
// Hooks in their native form: taking `const Any&` (the type kAnyHash / kAnyEqual declare), C
// functions returning the raw result.
int64_t BoxValue(const Any& v) {
  return static_cast<const KeyBoxObj*>(
             ffi::detail::ObjectUnsafe::FromHeader(ffi::AnyView(v).raw()->v_obj))
      ->value;
}
TVMFFIAny BoxHash(const Any& v) noexcept {
  TVMFFIAny out{};
  out.type_index = kTVMFFIInt;
  out.v_int64 = BoxValue(v) % 3;  // collisions on purpose
  return out;
}
TVMFFIAny BoxEqual(const Any& a, const Any& b) noexcept {
  TVMFFIAny out{};
  out.type_index = kTVMFFIBool;
  out.v_int64 = BoxValue(a) == BoxValue(b);
  return out;
}

/*! \brief Registers native `hash` and `equal` as type `t`'s key hooks. */
void RegisterKeyHooks(int32_t t, void* hash, void* equal) {
  for (auto [name, fn] : {std::pair<const char*, void*>{"__any_hash__", hash},
                          std::pair<const char*, void*>{"__any_equal__", equal}}) {
    TVMFFIByteArray key{name, std::strlen(name)};
    TVMFFIAny value{};
    value.type_index = kTVMFFIOpaquePtr;
    value.v_ptr = fn;
    ASSERT_EQ(TVMFFITypeRegisterAttr(t, &key, &value), 0);
  }
}

/*! \brief Registers KeyBox's hooks, once (a second registration is refused). */
void RegisterKeyBoxHooks() {
  static bool once =
      (RegisterKeyHooks(KeyBoxObj::RuntimeTypeIndex(), reinterpret_cast<void*>(&BoxHash),
                        reinterpret_cast<void*>(&BoxEqual)),
       true);
  (void)once;
}

TEST(Map, TypesWithTheirOwnKeyHooks) {
  RegisterKeyBoxHooks();
  int32_t t = KeyBoxObj::RuntimeTypeIndex();
  uint64_t k = static_cast<uint64_t>(t);
  EXPECT_EQ(ffi::AnyHash()(Any(KeyBox(7))), k ^ ((7 % 3) + 0x9e3779b9 + (k << 6) + (k >> 2)));
  Map<KeyBox, int64_t> m;
  for (int64_t i = 0; i < 12; ++i) m.Set(KeyBox(i), i * 10);
  m.Set(KeyBox(5), 55);  // a different object, the same key
  EXPECT_EQ(m.size(), 12u);
  EXPECT_EQ(m.at(KeyBox(5)), 55);
  EXPECT_EQ(m.at(KeyBox(11)), 110);
  EXPECT_EQ(m.count(KeyBox(12)), 0u);
}

/*! \brief A key box whose hooks follow the convention of reference releases before 0.1.15 (TVM
 * 0.27 registers such for ir.PrimType): `int64_t(const Any&)` and `bool(const Any&, const Any&)`.
 */
class OldKeyBoxObj : public KeyBoxObj {
 public:
  explicit OldKeyBoxObj(int64_t v) : KeyBoxObj(v) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.map.OldKeyBox", OldKeyBoxObj, KeyBoxObj);
};
class OldKeyBox : public ffi::ObjectRef {
 public:
  explicit OldKeyBox(int64_t v) : ObjectRef(ffi::make_object<OldKeyBoxObj>(v)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(OldKeyBox, ffi::ObjectRef, OldKeyBoxObj);
};
// The hash is the value itself, so that keys 1 and 67 give the words a new-convention result
// starts with (kTVMFFIInt, kTVMFFIError): the equality hook must tell those apart.
int64_t OldBoxHash(const Any& v) { return BoxValue(v); }
bool OldBoxEqual(const Any& a, const Any& b) { return BoxValue(a) == BoxValue(b); }

/*! \brief Registers OldKeyBox's hooks, once. */
void RegisterOldKeyBoxHooks() {
  static bool once =
      (RegisterKeyHooks(OldKeyBoxObj::RuntimeTypeIndex(), reinterpret_cast<void*>(&OldBoxHash),
                        reinterpret_cast<void*>(&OldBoxEqual)),
       true);
  (void)once;
}

TEST(Map, TypesWithOldConventionKeyHooks) {
#ifndef FFI_DETAIL_OLD_NATIVE_HOOKS
  GTEST_SKIP() << "old-convention hooks are served only where both conventions return in registers"
                  " (any_hash.h); not on Windows";
#endif
  RegisterOldKeyBoxHooks();
  int32_t t = OldKeyBoxObj::RuntimeTypeIndex();
  uint64_t k = static_cast<uint64_t>(t);
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{67}, int64_t{1} << 40}) {
    EXPECT_EQ(ffi::AnyHash()(Any(OldKeyBox(v))),
              k ^ (static_cast<uint64_t>(v) + 0x9e3779b9 + (k << 6) + (k >> 2)))
        << v;
    EXPECT_TRUE(ffi::AnyEqual()(Any(OldKeyBox(v)), Any(OldKeyBox(v))));
    EXPECT_FALSE(ffi::AnyEqual()(Any(OldKeyBox(v)), Any(OldKeyBox(v + 1))));
  }
  Map<OldKeyBox, int64_t> m;
  for (int64_t i = 0; i < 70; ++i) m.Set(OldKeyBox(i), i * 10);
  m.Set(OldKeyBox(67), 5);  // a different object, the same key
  EXPECT_EQ(m.size(), 70u);
  EXPECT_EQ(m.at(OldKeyBox(1)), 10);
  EXPECT_EQ(m.at(OldKeyBox(67)), 5);
  EXPECT_EQ(m.count(OldKeyBox(70)), 0u);
}

/*! \brief Type `t`'s key hook `name` as the runtime stores it. */
TVMFFIAny StoredKeyHook(const char* name, int32_t t) {
  TVMFFIByteArray key{name, std::strlen(name)};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&key);
  EXPECT_NE(column, nullptr);
  EXPECT_LT(t, column->size);
  return column->data[t];
}

TEST(Map, NativeKeyHooksAreStoredAsFunctionsThatEveryConventionCalls) {
  // Code built against a reference release before 0.1.15 calls a native hook the old way, and
  // code built against a later one the new way, whoever registered it; both call a Function
  // alike. So a native hook of either convention is stored as a Function answering what the hook
  // answers (here called as such code calls it: hash with one value, equality with two).
  RegisterKeyBoxHooks();
  RegisterOldKeyBoxHooks();
  struct Case {
    int32_t type_index;
    std::function<Any(int64_t)> make;
    int64_t (*hash)(int64_t);
  };
  for (const Case& c :
       {Case{KeyBoxObj::RuntimeTypeIndex(), [](int64_t v) { return Any(KeyBox(v)); },
             [](int64_t v) { return v % 3; }},
        Case{OldKeyBoxObj::RuntimeTypeIndex(), [](int64_t v) { return Any(OldKeyBox(v)); },
             [](int64_t v) { return v; }}}) {
#ifndef FFI_DETAIL_OLD_NATIVE_HOOKS  // old-convention hooks are not served on Windows
    if (c.type_index == OldKeyBoxObj::RuntimeTypeIndex()) continue;
#endif
    TVMFFIAny hash = StoredKeyHook("__any_hash__", c.type_index);
    TVMFFIAny equal = StoredKeyHook("__any_equal__", c.type_index);
    ASSERT_EQ(hash.type_index, kTVMFFIFunction);
    ASSERT_EQ(equal.type_index, kTVMFFIFunction);
    ffi::Function hash_fn = ffi::AnyView::FromRaw(hash).cast<ffi::Function>();
    ffi::Function equal_fn = ffi::AnyView::FromRaw(equal).cast<ffi::Function>();
    for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{67}, int64_t{1} << 40}) {
      EXPECT_EQ(hash_fn(c.make(v)).cast<int64_t>(), c.hash(v)) << v;
      EXPECT_TRUE(equal_fn(c.make(v), c.make(v)).cast<bool>()) << v;
      EXPECT_FALSE(equal_fn(c.make(v), c.make(v + 1)).cast<bool>()) << v;
    }
    EXPECT_THROW(hash_fn(c.make(1), c.make(1)), ffi::Error);  // the arity is checked
  }
}

TEST(Map, AnyConversions) {
  Map<String, int64_t> m{{"a", 1}, {"b", 2}};
  Any any = m;
  EXPECT_EQ(any.type_index(), kTVMFFIMap);
  // The same table when the elements are already stored as asked.
  EXPECT_TRUE((any.cast<Map<String, int64_t>>().same_as(m)));
  EXPECT_TRUE((any.cast<Map<Any, Any>>().same_as(m)));
  EXPECT_TRUE((any.as<Map<String, int64_t>>().has_value()));
  // Element-wise conversion builds a new table; as<> refuses it.
  Map<String, double> d = any.cast<Map<String, double>>();
  EXPECT_FALSE(d.same_as(m));
  EXPECT_EQ(d.at("b"), 2.0);
  EXPECT_FALSE((any.as<Map<String, double>>().has_value()));
  ffi::Error e = ExpectError([&] { any.cast<Map<String, String>>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Map<str, str>"), std::string::npos) << e.message();
  EXPECT_FALSE((Any(1).try_cast<Map<String, int64_t>>().has_value()));
  // What does not convert, named as the convention does (for error messages).
  Any mixed = Map<Any, Any>{{int64_t{11}, 1.5}};
  using IntInt = Map<int64_t, int64_t>;
  using StrFloat = Map<String, double>;
  EXPECT_EQ(ffi::TypeTraits<IntInt>::GetMismatchTypeInfo(mixed.raw()),
            "Map[K, some value is float]");
  EXPECT_EQ(ffi::TypeTraits<StrFloat>::GetMismatchTypeInfo(mixed.raw()), "Map[some key is int, V]");
  EXPECT_EQ(ffi::TypeTraits<IntInt>::GetMismatchTypeInfo(Any(1).raw()), "int");
  // Optional and nested forms.
  EXPECT_FALSE((Any().cast<ffi::Optional<Map<String, int64_t>>>().has_value()));
  EXPECT_EQ((any.cast<ffi::Optional<Map<String, int64_t>>>().value().size()), 2u);
  Map<String, Map<String, int64_t>> nested{{"inner", m}};
  Any nested_any = nested;
  auto back = nested_any.cast<Map<String, Map<String, int64_t>>>();
  EXPECT_TRUE(back.at("inner").same_as(m));
  auto widened = nested_any.cast<Map<String, Map<String, double>>>();
  EXPECT_EQ(widened.at("inner").at("a"), 1.0);
  // A Dict converts by copying.
  ffi::Dict<String, int64_t> dict{{"z", 26}};
  Map<String, int64_t> from_dict = Any(dict).cast<Map<String, int64_t>>();
  EXPECT_EQ(from_dict.at("z"), 26);
  EXPECT_EQ(from_dict.get()->type_index(), kTVMFFIMap);
  EXPECT_FALSE((Any(dict).as<Map<String, int64_t>>().has_value()));
  // A typed map widens without a copy.
  Map<Any, Any> wide = m;
  EXPECT_TRUE(wide.same_as(m));
  EXPECT_EQ((ffi::TypeTraits<Map<String, Any>>::TypeStr()), std::string_view("Map<str, Any>"));
}

TEST(Map, ReferenceCounts) {
  String value("a value long enough to be an object");
  {
    Map<String, String> m{{"k", value}};
    EXPECT_EQ(UseCount(value), 2u);
    Map<String, String> copy = m;
    copy.Set("j", value);  // copy-on-write: the old table keeps its reference
    EXPECT_EQ(UseCount(value), 4u);
    copy.erase("k");
    EXPECT_EQ(UseCount(value), 3u);
    for (int i = 0; i < 20; ++i) copy.Set("n" + std::to_string(i), value);  // grows dense
    EXPECT_EQ(UseCount(value), 23u);
    copy.clear();
    EXPECT_EQ(UseCount(value), 2u);
  }
  EXPECT_EQ(UseCount(value), 1u);
}

TEST(Map, FromStandardMapsAndMerge) {
  std::unordered_map<std::string, int64_t> um{{"a", 1}, {"b", 2}};
  Map<String, int64_t> a = um;
  EXPECT_EQ(a.size(), 2u);
  std::map<int64_t, int64_t> sm;
  for (int64_t i = 0; i < 10; ++i) sm[i] = i * i;
  Map<int64_t, int64_t> b(sm);
  EXPECT_EQ(b.at(9), 81);
  Map<String, int64_t> merged = ffi::Merge(a, Map<String, int64_t>{{"b", 20}, {"c", 3}});
  EXPECT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged.at("b"), 20);
  EXPECT_EQ(a.at("b"), 2);
}

TEST(Map, GlobalFunctions) {
  auto G = [](const char* name) { return ffi::Function::GetGlobalRequired(name); };
  Any m = G("ffi.Map")("a", 1, "b", 2);
  EXPECT_EQ(m.type_index(), kTVMFFIMap);
  EXPECT_EQ(G("ffi.MapSize")(m).cast<int64_t>(), 2);
  EXPECT_EQ(G("ffi.MapGetItem")(m, "b").cast<int64_t>(), 2);
  EXPECT_EQ(G("ffi.MapCount")(m, "a").cast<int64_t>(), 1);
  EXPECT_EQ(G("ffi.MapCount")(m, "z").cast<int64_t>(), 0);
  ffi::Error e = ExpectError([&] { G("ffi.MapGetItem")(m, "z"); });
  EXPECT_EQ(e.kind(), "KeyError");
  EXPECT_EQ(e.message(), "key is not in Map");
  Any missing = G("ffi.GetInvalidObject")();
  EXPECT_EQ(missing.type_index(), kTVMFFIObject);
  Any got = G("ffi.MapGetItemOrMissing")(m, "z");
  EXPECT_TRUE(got.cast<ffi::ObjectRef>().same_as(missing.cast<ffi::ObjectRef>()));
  EXPECT_EQ(G("ffi.MapGetItemOrMissing")(m, "a").cast<int64_t>(), 1);
  // The iteration functor: 0 key, 1 value, 2 step (false past the last entry).
  ffi::Function it = G("ffi.MapForwardIterFunctor")(m).cast<ffi::Function>();
  EXPECT_EQ(it(0).cast<std::string>(), "a");
  EXPECT_EQ(it(1).cast<int64_t>(), 1);
  EXPECT_TRUE(it(2).cast<bool>());
  EXPECT_EQ(it(0).cast<std::string>(), "b");
  EXPECT_FALSE(it(2).cast<bool>());
  EXPECT_EQ(ExpectError([&] { it(0); }).kind(), "IndexError");
  // Readers take exactly a Map; an odd number of constructor arguments is refused.
  Any d = G("ffi.Dict")("a", 1);
  e = ExpectError([&] { G("ffi.MapSize")(d); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Expected `Map` but got `ffi.Dict`"), std::string::npos)
      << e.message();
  EXPECT_EQ(ExpectError([&] { G("ffi.MapSize")(1); }).kind(), "TypeError");
  EXPECT_EQ(ExpectError([&] { G("ffi.Map")("a"); }).kind(), "InternalError");
  // Later duplicate keys overwrite.
  EXPECT_EQ(G("ffi.MapSize")(G("ffi.Map")("a", 1, "a", 2)).cast<int64_t>(), 1);
}

}  // namespace
