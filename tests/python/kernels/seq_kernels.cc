// Kernels built with our headers that take and return sequence containers; test_containers_seq
// loads them into the reference implementation's Python package (its runtime, its Array and List
// objects), so the reference reads what our headers built and our headers read what it built.
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/container/tuple.h>
#include <ffi/container/variant.h>
#include <ffi/function.h>

#include <cstdint>
#include <string>

namespace {
using ffi::Any;
using ffi::Array;
using ffi::List;
using ffi::Optional;
using ffi::String;
using ffi::Tuple;
using ffi::Variant;

int64_t SumNested(Array<Array<int64_t>> rows) {
  int64_t sum = 0;
  for (const Array<int64_t>& row : rows) {
    for (int64_t v : row) sum += v;
  }
  return sum;
}

Array<Array<int64_t>> Pairs(int64_t n) {
  Array<Array<int64_t>> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(Array<int64_t>{i, -i});
  return out;
}

Array<double> Scaled(Array<double> values, double k) {
  values.MutateByApply([k](double v) { return v * k; });
  return values;
}

Tuple<int64_t, String> Pair(int64_t n, String s) { return Tuple<int64_t, String>(n, s); }

String Kind(Variant<int64_t, String> v) {
  if (auto i = v.as<int64_t>()) return String("int " + std::to_string(*i));
  return String("str " + std::string(v.get<String>()));
}

int64_t Length(Optional<Array<Any>> values) {
  return values.has_value() ? static_cast<int64_t>(values->size()) : -1;
}

void Extend(List<Any> list, int64_t n) {
  for (int64_t i = 0; i < n; ++i) list.push_back(i);
}
}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(sum_nested, SumNested)
FFI_DLL_EXPORT_TYPED_FUNC(pairs, Pairs)
FFI_DLL_EXPORT_TYPED_FUNC(scaled, Scaled)
FFI_DLL_EXPORT_TYPED_FUNC(pair, Pair)
FFI_DLL_EXPORT_TYPED_FUNC(describe, Kind)
FFI_DLL_EXPORT_TYPED_FUNC(length, Length)
FFI_DLL_EXPORT_TYPED_FUNC(extend, Extend)
