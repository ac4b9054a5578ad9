// Kernels returning tensors, alone and inside containers, for
// tests/python/tensors/test_framework_results.py.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/map.h>
#include <ffi/container/tuple.h>
#include <ffi/ffi.h>

#include <atomic>
#include <cstdlib>

namespace {

/*! \brief Live buffers of CountingAlloc: a test sees each one freed exactly once. */
std::atomic<int64_t> live_buffers{0};

struct CountingAlloc {
  void AllocData(DLTensor* t) {
    t->data = std::calloc(1, ffi::GetDataSize(*t) + 1);
    ++live_buffers;
  }
  void FreeData(DLTensor* t) {
    std::free(t->data);
    --live_buffers;
  }
};

/*! \brief A tensor the library keeps until release_kept(). */
ffi::Optional<ffi::Tensor> kept;

ffi::Tensor Keep(ffi::Tensor x) {
  kept = x;
  return x;
}
void ReleaseKept() { kept = ffi::Optional<ffi::Tensor>(); }

ffi::Tuple<ffi::Tensor, ffi::Tensor> Pair(ffi::Tensor x) {
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  return ffi::Tuple<ffi::Tensor, ffi::Tensor>(x, y);
}
ffi::Array<ffi::Tensor> Twice(ffi::Tensor x) { return ffi::Array<ffi::Tensor>{x, x}; }
ffi::Array<ffi::Array<ffi::Tensor>> Nested(ffi::Tensor x) {
  return ffi::Array<ffi::Array<ffi::Tensor>>{ffi::Array<ffi::Tensor>{x}};
}
ffi::Map<ffi::String, ffi::Tensor> AsMap(ffi::Tensor x) {
  return ffi::Map<ffi::String, ffi::Tensor>{{"x", x}};
}
ffi::Dict<ffi::String, ffi::Tensor> AsDict(ffi::Tensor x) {
  ffi::Dict<ffi::String, ffi::Tensor> d;
  d.Set("x", x);
  return d;
}

/*! \brief A counted float32 tensor of `n` elements (whatever the argument, which only sets the
 * caller's framework), or with 4 lanes, which frameworks cannot represent. */
ffi::Tensor Counted(ffi::TensorView, int64_t n, int64_t lanes) {
  DLDataType dtype{kDLFloat, 32, static_cast<uint16_t>(lanes)};
  return ffi::Tensor::FromNDAlloc(CountingAlloc(), {n}, dtype, DLDevice{kDLCPU, 0});
}
int64_t LiveBuffers() { return live_buffers.load(); }

/*!
 * \brief A float32 tensor of `n` elements (with `lanes` lanes) imported from a versioned DLPack
 * producer whose deleter counts in live_buffers, optionally flagged read-only.
 */
ffi::Tensor CountedDLPack(ffi::TensorView, int64_t n, int64_t lanes, bool read_only) {
  struct Producer {
    DLManagedTensorVersioned managed{};
    int64_t shape[1];
  };
  auto* p = new Producer();
  p->shape[0] = n;
  DLDataType dtype{kDLFloat, 32, static_cast<uint16_t>(lanes)};
  DLTensor t{nullptr, DLDevice{kDLCPU, 0}, 1, dtype, p->shape, nullptr, 0};
  t.data = std::calloc(1, ffi::GetDataSize(t) + 1);
  ++live_buffers;
  p->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  p->managed.dl_tensor = t;
  p->managed.manager_ctx = p;
  p->managed.flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  p->managed.deleter = [](DLManagedTensorVersioned* self) {
    std::free(self->dl_tensor.data);
    delete static_cast<Producer*>(self->manager_ctx);
    --live_buffers;
  };
  return ffi::Tensor::FromDLPackVersioned(&p->managed);
}

/*! \brief A new tensor like `x` from the host's allocator, filled with 0, 1, ..., and kept. */
ffi::Tensor KeepNew(ffi::Tensor x) {
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  for (int64_t i = 0; i < y.numel(); ++i) static_cast<float*>(y.data_ptr())[i] = i;
  kept = y;
  return y;
}

/*! \brief Element `i` of the kept tensor, read through the library's own reference. */
double KeptAt(int64_t i) { return static_cast<float*>(kept.value().data_ptr())[i]; }

/*! \brief x + 1 for the first tensor of kwargs["x"], in a tensor the host's allocator makes. */
ffi::Tensor AddOneFromMap(ffi::Map<ffi::String, ffi::Array<ffi::Tensor>> kwargs) {
  ffi::Tensor x = kwargs.at("x")[0];
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  for (int64_t i = 0; i < x.numel(); ++i) {
    static_cast<float*>(y.data_ptr())[i] = static_cast<float*>(x.data_ptr())[i] + 1;
  }
  return y;
}

/*! \brief The first tensor of a list, as given. */
ffi::Tensor First(ffi::Array<ffi::Tensor> xs) { return xs[0]; }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(keep, Keep);
FFI_DLL_EXPORT_TYPED_FUNC(release_kept, ReleaseKept);
FFI_DLL_EXPORT_TYPED_FUNC(pair, Pair);
FFI_DLL_EXPORT_TYPED_FUNC(twice, Twice);
FFI_DLL_EXPORT_TYPED_FUNC(nested, Nested);
FFI_DLL_EXPORT_TYPED_FUNC(as_map, AsMap);
FFI_DLL_EXPORT_TYPED_FUNC(as_dict, AsDict);
FFI_DLL_EXPORT_TYPED_FUNC(counted, Counted);
FFI_DLL_EXPORT_TYPED_FUNC(counted_dlpack, CountedDLPack);
FFI_DLL_EXPORT_TYPED_FUNC(keep_new, KeepNew);
FFI_DLL_EXPORT_TYPED_FUNC(kept_at, KeptAt);
FFI_DLL_EXPORT_TYPED_FUNC(live_buffers, LiveBuffers);
FFI_DLL_EXPORT_TYPED_FUNC(add_one_from_map, AddOneFromMap);
FFI_DLL_EXPORT_TYPED_FUNC(first, First);
