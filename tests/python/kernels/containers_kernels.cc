// Kernels taking and returning containers, written with the reference's spellings so that the same
// source builds against this project's headers (include/tvm/ffi forwards to ffi/) and against the
// reference wheel's: tests/python/objects/test_containers.py calls both builds with Python lists
// and dicts.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace {

using tvm::ffi::Any;
using tvm::ffi::Array;
using tvm::ffi::Dict;
using tvm::ffi::List;
using tvm::ffi::Map;
using tvm::ffi::String;

/*! \brief The sum of a sequence of ints. */
int64_t SumInts(Array<int64_t> values) {
  int64_t total = 0;
  for (int64_t v : values) total += v;
  return total;
}

/*! \brief The number of elements, whatever they are (the cheapest container call). */
int64_t Length(Array<Any> values) { return static_cast<int64_t>(values.size()); }

/*! \brief The value of `key`, as an int. */
int64_t Lookup(Map<String, Any> m, String key) { return m.at(key).cast<int64_t>(); }

/*! \brief The number of entries. */
int64_t MapLength(Map<Any, Any> m) { return static_cast<int64_t>(m.size()); }

/*! \brief Sum over a list of lists of ints. */
int64_t NestedSum(Array<Array<int64_t>> rows) {
  int64_t total = 0;
  for (const Array<int64_t>& row : rows) {
    for (int64_t v : row) total += v;
  }
  return total;
}

/*! \brief Total of the ints under each key of a dict of lists. */
int64_t DictOfListsSum(Map<String, Array<int64_t>> m) {
  int64_t total = 0;
  for (const auto& kv : m) {
    for (int64_t v : kv.second) total += v;
  }
  return total;
}

/*! \brief Elements of any kind, returned unchanged (a mixed Array comes back). */
Array<Any> Echo(Array<Any> values) { return values; }

/*! \brief A Map returned unchanged. */
Map<Any, Any> EchoMap(Map<Any, Any> m) { return m; }

/*! \brief [0, 1, ..., n-1]. */
Array<int64_t> Iota(int64_t n) {
  Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i);
  return out;
}

/*! \brief {"name": name, "sizes": [n, n+1], "nested": {"k": [name]}}. */
Map<String, Any> Describe(String name, int64_t n) {
  Array<Any> inner;
  inner.push_back(name);
  Map<String, Any> nested;
  nested.Set("k", inner);
  Map<String, Any> out;
  out.Set("name", name);
  out.Set("sizes", Array<int64_t>{n, n + 1});
  out.Set("nested", nested);
  return out;
}

/*! \brief Appends `value` to a shared List in place. */
void ListPush(List<Any> l, Any value) { l.push_back(value); }

/*! \brief Sets `key` in a shared Dict in place. */
void DictPut(Dict<String, Any> d, String key, Any value) { d.Set(key, value); }

/*! \brief The tensors' element counts summed: containers carry tensors too. */
int64_t TensorsNumel(Array<tvm::ffi::Tensor> tensors) {
  int64_t total = 0;
  for (const tvm::ffi::Tensor& t : tensors) total += t.numel();
  return total;
}

/*! \brief The product of a shape's extents: a list of ints converts to a Shape argument. */
int64_t ShapeProduct(tvm::ffi::Shape shape) { return shape->Product(); }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_ints, SumInts);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(shape_product, ShapeProduct);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(length, Length);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lookup, Lookup);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_length, MapLength);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(nested_sum, NestedSum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_of_lists_sum, DictOfListsSum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo, Echo);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo_map, EchoMap);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(iota, Iota);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe, Describe);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(list_push, ListPush);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dict_put, DictPut);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensors_numel, TensorsNumel);
