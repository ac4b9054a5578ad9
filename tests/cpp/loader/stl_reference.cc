// A kernel library built with the REFERENCE's headers (apache-tvm-ffi), whose typed functions take
// and return standard library types through the reference's <tvm/ffi/extra/stl.h>. test_stl loads
// it into our runtime and calls it with values built by our headers.
#include <tvm/ffi/extra/stl.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace {

// Sum of each inner vector.
std::vector<int64_t> RowSums(const std::vector<std::vector<int64_t>>& rows) {
  std::vector<int64_t> out;
  for (const auto& row : rows) {
    int64_t s = 0;
    for (int64_t v : row) s += v;
    out.push_back(s);
  }
  return out;
}

// Name -> length of the name, in key order.
std::map<std::string, int64_t> Lengths(const std::vector<std::string>& names) {
  std::map<std::string, int64_t> out;
  for (const auto& n : names) out[n] = static_cast<int64_t>(n.size());
  return out;
}

// Total of the values of a table.
int64_t Total(const std::unordered_map<std::string, int64_t>& table) {
  int64_t s = 0;
  for (const auto& kv : table) s += kv.second;
  return s;
}

// (first, last, count) of a non-empty vector; None for an empty one.
std::optional<std::tuple<int64_t, int64_t, int64_t>> Ends(const std::vector<int64_t>& v) {
  if (v.empty()) return std::nullopt;
  return std::make_tuple(v.front(), v.back(), static_cast<int64_t>(v.size()));
}

// "int" or "str" by the alternative held.
std::string Kind(const std::variant<int64_t, std::string>& v) {
  return v.index() == 0 ? "int" : "str";
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(row_sums, RowSums);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lengths, Lengths);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(total, Total);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(ends, Ends);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(kind, Kind);
