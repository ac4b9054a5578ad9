/*
 * tests/fuzz/fuzz_dlpack.cc - libFuzzer target for DLPack import.
 *
 * Builds a legacy or versioned managed tensor from the input (versions, flags, ndim, shape,
 * strides, dtype, byte_offset, null pointers), imports it with and without alignment and
 * contiguity requirements, and checks what must always hold:
 *   - a refused tensor raises an error and is not taken: its deleter has not run (the caller
 *     frees it, as with the reference's runtime);
 *   - an accepted one has a shape whose element count and byte size are computable (no overflow,
 *     no negative extent), its deleter has not run, and it runs exactly once when the last
 *     reference (including DLPack exports of it) goes.
 * Any violation aborts. The runtime never reads the data, so `data` is an arbitrary address.
 */
#include <ffi/ffi.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

/*! \brief The managed tensor under test, with the storage its pointers point into. */
template <typename Managed>
struct Producer {
  Managed managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int deleted = 0;

  static void Delete(Managed* self) {
    // The context is this Producer; it outlives every import of its tensor.
    static_cast<Producer*>(self->manager_ctx)->deleted += 1;
  }
};

/*! \brief An extent or stride: mostly small (the interesting edges), sometimes any int64. */
int64_t Extent(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return in.ConsumeIntegral<int64_t>();
    case 1:
      return int64_t{1} << in.ConsumeIntegralInRange<int>(0, 63);
    default:
      return in.ConsumeIntegralInRange<int64_t>(-2, 9);
  }
}

/*! \brief What a successful import must give: computable sizes, and exports that round-trip. */
void Exercise(TVMFFIObjectHandle handle) {
  ffi::Tensor t = ffi::detail::ObjectUnsafe::RefFromOwnedHeader<ffi::Tensor>(handle);
  FUZZ_CHECK(t->ndim >= 0 && t->ndim <= ffi::kMaxTensorNDim);
  int64_t numel = t.numel();  // Throws, and so aborts here, on a size the import let through.
  FUZZ_CHECK(numel >= 0);
  (void)ffi::GetDataSize(*t.dl_tensor());
  FUZZ_CHECK(t.strides().size() == static_cast<size_t>(t.ndim()));
  ffi::TensorView view(t);
  FUZZ_CHECK(view.numel() == numel);
  (void)view.IsContiguous();
  (void)t.IsAligned(64);

  // Export both ways and import the exports: each export holds a reference to `t`.
  DLManagedTensor* legacy = t.ToDLPack();
  DLManagedTensorVersioned* versioned = t.ToDLPackVersioned();
  FUZZ_CHECK(versioned->version.major == DLPACK_MAJOR_VERSION);
  ffi::Tensor again = ffi::Tensor::FromDLPack(legacy);
  FUZZ_CHECK(again.numel() == numel && again.ndim() == t.ndim());
  versioned->deleter(versioned);
}

/*! \brief Imports one fuzzed tensor of kind `Managed` and checks the deleter's count. */
template <typename Managed>
void FuzzOne(FuzzedDataProvider& in) {
  auto* p = new Producer<Managed>();
  DLTensor& t = p->managed.dl_tensor;
  // ndim: mostly what the arrays hold; sometimes negative or beyond any bound (the runtime must
  // refuse those before reading the shape, whose array is then short).
  int32_t ndim = in.ConsumeIntegralInRange<int32_t>(0, 6);
  size_t stored = static_cast<size_t>(ndim);
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      ndim = in.ConsumeIntegralInRange<int32_t>(INT32_MIN, -1);
      stored = 0;
      break;
    case 1:
      ndim = in.ConsumeIntegralInRange<int32_t>(ffi::kMaxTensorNDim + 1, INT32_MAX);
      stored = 0;
      break;
    case 2:
      ndim = in.ConsumeIntegralInRange<int32_t>(7, ffi::kMaxTensorNDim);
      stored = static_cast<size_t>(ndim);
      break;
    default:
      break;
  }
  bool null_shape = in.ConsumeIntegralInRange<int>(0, 15) == 0;
  bool null_strides = in.ConsumeBool();
  p->shape.resize(stored);
  p->strides.resize(stored);
  for (size_t i = 0; i < stored; ++i) {
    // Long shapes are mostly ones, so that some of them are importable.
    p->shape[i] = i < 8 ? Extent(in) : (in.ConsumeIntegralInRange<int>(0, 63) == 0 ? 2 : 1);
    p->strides[i] = i < 8 ? Extent(in) : 1;
  }
  t.ndim = ndim;
  t.shape = null_shape ? nullptr : p->shape.data();
  t.strides = null_strides ? nullptr : p->strides.data();
  t.data = reinterpret_cast<void*>(in.ConsumeIntegral<uintptr_t>());
  t.device = DLDevice{static_cast<DLDeviceType>(in.ConsumeIntegral<int32_t>()),
                      in.ConsumeIntegral<int32_t>()};
  t.dtype = DLDataType{in.ConsumeIntegral<uint8_t>(), in.ConsumeIntegral<uint8_t>(),
                       in.ConsumeIntegral<uint16_t>()};
  if (in.ConsumeBool()) t.dtype = DLDataType{kDLFloat, 32, 1};
  t.byte_offset = in.ConsumeBool() ? in.ConsumeIntegral<uint64_t>()
                                   : in.ConsumeIntegralInRange<uint64_t>(0, 64);
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    p->managed.version.major =
        in.ConsumeBool() ? DLPACK_MAJOR_VERSION : in.ConsumeIntegral<uint32_t>();
    p->managed.version.minor = in.ConsumeIntegral<uint32_t>();
    p->managed.flags = in.ConsumeIntegral<uint64_t>();
  }
  bool with_deleter = in.ConsumeIntegralInRange<int>(0, 7) != 0;
  p->managed.manager_ctx = p;
  p->managed.deleter = with_deleter ? Producer<Managed>::Delete : nullptr;
  int32_t alignment = 0;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      alignment = in.ConsumeIntegral<int32_t>();
      break;
    case 1:
      alignment = 1 << in.ConsumeIntegralInRange<int>(0, 12);
      break;
    default:
      break;
  }
  int32_t contiguous = in.ConsumeBool() ? 1 : 0;
  bool null_out = in.ConsumeIntegralInRange<int>(0, 31) == 0;

  TVMFFIObjectHandle out = nullptr;
  int rc;
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    rc = TVMFFITensorFromDLPackVersioned(&p->managed, alignment, contiguous,
                                         null_out ? nullptr : &out);
  } else {
    rc = TVMFFITensorFromDLPack(&p->managed, alignment, contiguous, null_out ? nullptr : &out);
  }
  if (rc != 0) {
    FUZZ_CHECK(rc == -1 && out == nullptr);
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    FUZZ_CHECK(err != nullptr);  // A refusal always says why.
    TVMFFIObjectDecRef(err);
    FUZZ_CHECK(p->deleted == 0);  // a refusal takes nothing: the tensor is still ours to free
    if (with_deleter) p->managed.deleter(&p->managed);
    FUZZ_CHECK(p->deleted == (with_deleter ? 1 : 0));
  } else {
    FUZZ_CHECK(!null_out && out != nullptr && p->deleted == 0);
    FUZZ_CHECK(ndim >= 0 && ndim <= ffi::kMaxTensorNDim && (ndim == 0 || !null_shape));
    Exercise(out);
    FUZZ_CHECK(p->deleted == (with_deleter ? 1 : 0));
  }
  delete p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  try {
    if (in.ConsumeBool()) {
      FuzzOne<DLManagedTensorVersioned>(in);
    } else {
      FuzzOne<DLManagedTensor>(in);
    }
  } catch (const ffi::Error& e) {
    // Only an accepted tensor is exercised, and nothing there may fail.
    std::fprintf(stderr, "unexpected error on an accepted tensor: %s\n", e.what());
    std::abort();
  }
  return 0;
}
