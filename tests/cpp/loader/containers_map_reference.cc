// A library built with the reference implementation's headers (apache-tvm-ffi) that builds Map and
// Dict tables, small and dense, and reads, looks up and changes tables it is given, all inline
// through the reference's own container code. test_map_interop loads it into our runtime and
// checks both directions: its tables read by our headers and ours by its headers.
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using tvm::ffi::Any;
using tvm::ffi::Dict;
using tvm::ffi::Map;
using tvm::ffi::Optional;
using tvm::ffi::String;

/*! \brief Key i of the string maps: short keys travel inline, every third one is long. */
std::string StrKey(int64_t i) {
  return i % 3 == 2 ? "a_rather_long_key_number_" + std::to_string(i) : "k" + std::to_string(i);
}

/*! \brief The i-th step of the replayed edit sequence (a small LCG both sides run). */
uint64_t NextRandom(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 33;
}

/*!
 * \brief Replays `steps` pseudo-random edits on `map` (Map or Dict): mostly sets of int or
 * string keys drawn from a small range (so keys repeat and overwrite), some erases.
 */
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

/*! \brief "key=value," for every entry in iteration order (ints and strings only). */
std::string Dump(const Map<Any, Any>& m) {
  std::string out;
  for (const auto& kv : m) {
    out += kv.first.type_index() == tvm::ffi::TypeIndex::kTVMFFIInt
               ? std::to_string(kv.first.cast<int64_t>())
               : std::string(kv.first.cast<String>());
    out += "=";
    out += kv.second.type_index() == tvm::ffi::TypeIndex::kTVMFFIInt
               ? std::to_string(kv.second.cast<int64_t>())
               : std::string(kv.second.cast<String>());
    out += ",";
  }
  return out;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::GlobalDef()
      // ---- tables built here -------------------------------------------------------------
      .def("testing.map_ref.str_int",
           [](int64_t n) {
             Map<String, int64_t> m;
             for (int64_t i = 0; i < n; ++i) m.Set(StrKey(i), i * 10);
             return m;
           })
      .def("testing.map_ref.int_int",
           [](int64_t n) {
             Map<int64_t, int64_t> m;
             for (int64_t i = 0; i < n; ++i) m.Set(i * 7 - 3, i);
             return m;
           })
      .def("testing.map_ref.str_any",
           [](int64_t n) {
             Map<String, Any> m;
             for (int64_t i = 0; i < n; ++i) {
               if (i % 3 == 0) m.Set(StrKey(i), i);
               if (i % 3 == 1) m.Set(StrKey(i), String("value " + std::to_string(i)));
               if (i % 3 == 2) m.Set(StrKey(i), Map<String, int64_t>{{"inner", i}});
             }
             return m;
           })
      .def("testing.map_ref.any_any",
           [](int64_t n) {
             Map<Any, Any> m;
             for (int64_t i = 0; i < n; ++i) {
               if (i % 4 == 0) m.Set(i, String(StrKey(i)));
               if (i % 4 == 1) m.Set(String(StrKey(i)), i);
               if (i % 4 == 2) m.Set(static_cast<double>(i) + 0.5, i);
               if (i % 4 == 3) m.Set(i % 8 == 3, i);
             }
             return m;
           })
      .def("testing.map_ref.from_list",
           [](int64_t n) {
             // The range constructor: 4 or more pairs start dense.
             std::vector<std::pair<Any, Any>> pairs;
             for (int64_t i = 0; i < n; ++i) pairs.emplace_back(String(StrKey(i % 5)), i);
             return Map<Any, Any>(pairs.begin(), pairs.end());
           })
      .def("testing.map_ref.replay",
           [](int64_t seed, int64_t steps) {
             Map<Any, Any> m;
             Replay(&m, static_cast<uint64_t>(seed), steps);
             return m;
           })
      .def("testing.map_ref.replay_dict",
           [](int64_t seed, int64_t steps) {
             Dict<Any, Any> d;
             Replay(&d, static_cast<uint64_t>(seed), steps);
             return d;
           })
      // ---- tables given to it, read inline -------------------------------------------------
      .def("testing.map_ref.lookup_str_int",
           [](Map<String, int64_t> m, String key) { return m.Get(key).value_or(-1); })
      .def("testing.map_ref.at_str_int",
           [](Map<String, int64_t> m, String key) { return m.at(key); })
      .def("testing.map_ref.lookup_int_int",
           [](Map<int64_t, int64_t> m, int64_t key) { return m.Get(key).value_or(-1); })
      .def("testing.map_ref.get_str_any", [](Map<String, Any> m, String key) { return m[key]; })
      .def("testing.map_ref.count_any",
           [](Map<Any, Any> m, Any key) { return static_cast<int64_t>(m.count(key)); })
      .def("testing.map_ref.get_any", [](Map<Any, Any> m, Any key) { return m.at(key); })
      .def("testing.map_ref.dump", [](Map<Any, Any> m) { return Dump(m); })
      .def("testing.map_ref.dump_dict",
           [](Dict<Any, Any> d) { return Dump(Map<Any, Any>(d.begin(), d.end())); })
      .def("testing.map_ref.keys_str_int",
           [](Map<String, int64_t> m) {
             std::string out;
             for (const auto& kv : m) out += std::string(kv.first) + ",";
             return out;
           })
      .def("testing.map_ref.optional_size",
           [](Optional<Map<String, int64_t>> m) -> int64_t {
             return m.has_value() ? static_cast<int64_t>(m.value().size()) : -1;
           })
      // ---- tables given to it, changed inline ----------------------------------------------
      .def("testing.map_ref.map_set",
           [](Map<Any, Any> m, Any key, Any value) {
             m.Set(key, value);
             return m;
           })
      .def("testing.map_ref.dict_set",
           [](Dict<Any, Any> d, Any key, Any value) { d.Set(key, value); })
      .def("testing.map_ref.dict_erase", [](Dict<Any, Any> d, Any key) { d.erase(key); })
      .def("testing.map_ref.dict_replay", [](Dict<Any, Any> d, int64_t seed, int64_t steps) {
        Replay(&d, static_cast<uint64_t>(seed), steps);
      });
}
