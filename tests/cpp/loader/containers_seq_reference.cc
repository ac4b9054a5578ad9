// A kernel library built with the reference implementation's headers (apache-tvm-ffi) that takes
// and returns the sequence containers: Array of ints, tensors and arrays, Tuple, Variant,
// Optional<Array>, List, and arrays built in a static initializer. test_containers_interop loads
// it into our runtime, calls it with containers made by our headers and reads what it returns
// element by element, so both sides read each other's objects inline.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace {

using tvm::ffi::Any;
using tvm::ffi::Array;
using tvm::ffi::List;
using tvm::ffi::Optional;
using tvm::ffi::String;
using tvm::ffi::Tensor;
using tvm::ffi::Tuple;
using tvm::ffi::Variant;

/*! \brief Built while the library loads: [10, 20, 30] and [["a", 1], 2.5]. */
const Array<int64_t> kStaticInts = {10, 20, 30};
const Array<Any> kStaticMixed = {Array<Any>{String("a"), 1}, 2.5};

int64_t SumInts(Array<int64_t> values) {
  int64_t sum = 0;
  for (int64_t v : values) sum += v;
  return sum;
}

Array<int64_t> Iota(int64_t n) {
  Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i * i);
  return out;
}

/*! \brief Appends to its argument: copy-on-write means the caller's array stays as it was. */
Array<int64_t> AppendCopy(Array<int64_t> values, int64_t v) {
  values.push_back(v);
  values.Set(0, -1);
  return values;
}

/*! \brief The row lengths followed by the sum of all values. */
Array<int64_t> NestedStats(Array<Array<int64_t>> rows) {
  Array<int64_t> out;
  int64_t sum = 0;
  for (const Array<int64_t>& row : rows) {
    out.push_back(static_cast<int64_t>(row.size()));
    for (int64_t v : row) sum += v;
  }
  out.push_back(sum);
  return out;
}

Array<Array<int64_t>> Triangle(int64_t n) {
  Array<Array<int64_t>> out;
  for (int64_t i = 0; i < n; ++i) {
    Array<int64_t> row;
    for (int64_t j = 0; j <= i; ++j) row.push_back(i * 10 + j);
    out.push_back(row);
  }
  return out;
}

/*! \brief Each tensor's ndim and first extent, flattened. */
Array<int64_t> TensorDims(Array<Tensor> tensors) {
  Array<int64_t> out;
  for (const Tensor& t : tensors) {
    out.push_back(t.ndim());
    out.push_back(t.ndim() > 0 ? t.size(0) : -1);
  }
  return out;
}

/*! \brief The same tensors in reverse order. */
Array<Tensor> ReverseTensors(Array<Tensor> tensors) {
  Array<Tensor> out;
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) out.push_back(*it);
  return out;
}

Tuple<String, int64_t> SwapPair(Tuple<int64_t, String> pair) {
  return Tuple<String, int64_t>(pair.get<1>(), pair.get<0>());
}

String DescribeVariant(Variant<int64_t, String, Array<int64_t>> v) {
  if (auto i = v.as<int64_t>()) return String("int:" + std::to_string(*i));
  if (auto s = v.as<String>()) return String("str:" + std::string(*s));
  return String("array:" + std::to_string(v.get<Array<int64_t>>().size()));
}

Variant<int64_t, String> MakeVariant(bool as_string) {
  if (as_string) return String("seven");
  return int64_t{7};
}

int64_t OptionalLength(Optional<Array<int64_t>> values) {
  if (!values.has_value()) return -1;
  return static_cast<int64_t>(values.value().size());
}

/*! \brief Appends `n` values to a shared list (growing its buffer) and returns its size. */
int64_t ListGrow(List<int64_t> list, int64_t n) {
  for (int64_t i = 0; i < n; ++i) list.push_back(100 + i);
  return static_cast<int64_t>(list.size());
}

List<Any> MakeList() { return List<Any>{1, String("two"), 3.0}; }

Array<int64_t> StaticInts() { return kStaticInts; }
Array<Any> StaticMixed() { return kStaticMixed; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_ints, SumInts);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(iota, Iota);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(append_copy, AppendCopy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(nested_stats, NestedStats);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(triangle, Triangle);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_dims, TensorDims);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(reverse_tensors, ReverseTensors);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(swap_pair, SwapPair);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe_variant, DescribeVariant);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_variant, MakeVariant);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(optional_length, OptionalLength);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(list_grow, ListGrow);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_list, MakeList);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(static_ints, StaticInts);

// Registered from a static initializer too, the way libraries usually publish functions.
TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("testing.containers_ref.static_mixed", StaticMixed);
}
