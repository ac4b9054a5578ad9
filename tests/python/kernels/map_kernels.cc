// Map and Dict in typed exports, built with this project's headers: loaded by the reference
// runtime (tests/python/reference/test_map_reference_runtime.py) to show our tables work there.
#include <ffi/container/dict.h>
#include <ffi/container/map.h>
#include <ffi/function.h>

#include <cstdint>
#include <string>

namespace {

/*! \brief n workspace sizes "ws<i>" -> i * 1024, dense beyond 4 entries. */
ffi::Map<ffi::String, int64_t> WorkspaceSizes(int64_t n) {
  ffi::Map<ffi::String, int64_t> sizes;
  for (int64_t i = 0; i < n; ++i) sizes.Set("ws" + std::to_string(i), i * 1024);
  return sizes;
}

/*! \brief The sum of the values, plus key * value over `extra` when given. */
int64_t Total(ffi::Map<ffi::String, int64_t> sizes, ffi::Optional<ffi::Map<int, int>> extra) {
  int64_t total = 0;
  for (auto [name, bytes] : sizes) total += bytes;
  if (extra.has_value()) {
    for (auto [k, v] : *extra) total += int64_t{k} * v;
  }
  return total;
}

/*! \brief The keys in iteration order, comma-separated. */
std::string Keys(ffi::Map<ffi::Any, ffi::Any> m) {
  std::string out;
  for (auto kv : m) out += kv.first.cast<std::string>() + ",";
  return out;
}

/*! \brief Sets `key` in a shared Dict, in place. */
void DictPut(ffi::Dict<ffi::String, ffi::Any> d, ffi::String key, ffi::Any value) {
  d.Set(key, value);
}

/*! \brief The value of `key` (KeyError when absent). */
ffi::Any Lookup(ffi::Map<ffi::Any, ffi::Any> m, ffi::Any key) { return m.at(key); }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(workspace_sizes, WorkspaceSizes);
FFI_DLL_EXPORT_TYPED_FUNC(total, Total);
FFI_DLL_EXPORT_TYPED_FUNC(keys, Keys);
FFI_DLL_EXPORT_TYPED_FUNC(dict_put, DictPut);
FFI_DLL_EXPORT_TYPED_FUNC(lookup, Lookup);
