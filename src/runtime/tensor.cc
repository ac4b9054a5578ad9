// Tensors from and to DLPack (legacy and versioned).
#include <ffi/detail/runtime_entries.h>
#include <ffi/string.h>
#include <ffi/tensor.h>

#include <string>

#include "tensor_import.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*!
 * \brief A tensor owning a DLPack producer's tensor: the producer's deleter runs when the last
 * reference goes. Shape and strides are copied, strides filled in when the producer left them null.
 */
template <typename Managed>
class DLPackTensorObj : public TensorObj {
 public:
  // Shape and strides are copied after the object (make_object_with_extra reserves 2 * ndim).
  DLPackTensorObj(Managed* managed, uint64_t flags) : managed_(managed), flags_(flags) {
    const DLTensor& src = managed->dl_tensor;
    static_cast<DLTensor&>(*this) = src;
    detail::StoreShapeAndStrides(this, src.shape, src.strides, src.ndim,
                                 static_cast<int64_t*>(detail::ExtraStorage(this)));
  }
  ~DLPackTensorObj() {
    if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  uint64_t flags() const { return flags_; }
  /*! \brief Gives up the producer's tensor: the caller owns it (and runs its deleter). */
  Managed* Detach() {
    Managed* m = managed_;
    managed_ = nullptr;
    return m;
  }

 private:
  Managed* managed_;
  uint64_t flags_;
};

/*! \brief DLPACK_FLAG_BITMASK_* of a tensor this runtime imported (0 for any other tensor). */
uint64_t ImportedFlags(const TensorObj* t) {
  using Versioned = DLPackTensorObj<DLManagedTensorVersioned>;
  if (detail::ObjectUnsafe::Header(t)->deleter == detail::ObjectDeleter<Versioned>) {
    return static_cast<const Versioned*>(t)->flags();
  }
  return 0;
}

/*!
 * \brief Throws the error a refused tensor description raises, "<what>: ...", where `what` (in
 * scope) names the operation, e.g. "Cannot import DLPack tensor".
 */
#define FFI_REFUSE_IMPORT(Kind) FFI_THROW(Kind) << what << ": "

/*! \brief What a refused DLPack import says. */
constexpr const char* kImportWhat = "Cannot import DLPack tensor";

/*!
 * \brief Bytes spanned by `count` elements of `bits_per_element` bits, or false when that does not
 * fit in int64_t.
 */
bool ElementBytes(uint64_t count, uint64_t bits_per_element, uint64_t* out) {
  uint64_t bits = 0;
  if (__builtin_mul_overflow(count, bits_per_element, &bits) ||
      __builtin_add_overflow(bits, uint64_t{7}, &bits)) {
    return false;
  }
  *out = bits / 8;
  return *out <= static_cast<uint64_t>(INT64_MAX);
}

/*!
 * \brief Checks what a producer gave before anything reads through it: ndim, shape, extents,
 * dtype and, in bytes, the memory the shape, strides and byte offset address, none of which may
 * overflow. Throws ValueError (malformed) or OverflowError (a size beyond 64 bits).
 */
void CheckImported(const DLTensor& t, int32_t require_alignment, bool require_contiguous,
                   const char* what = kImportWhat) {
  if (t.ndim < 0 || t.ndim > kMaxTensorNDim) {
    FFI_REFUSE_IMPORT(ValueError) << "ndim " << t.ndim << " is outside [0, " << kMaxTensorNDim
                                  << "]";
  }
  if (t.ndim > 0 && t.shape == nullptr) FFI_REFUSE_IMPORT(ValueError) << "shape is NULL";
  size_t bad_dim = 0;
  int64_t numel = detail::TryProduct(t.shape, static_cast<size_t>(t.ndim), &bad_dim);
  if (numel == -1) {
    FFI_REFUSE_IMPORT(ValueError) << "negative extent " << t.shape[bad_dim] << " in dimension "
                                  << bad_dim;
  }
  if (numel == -2) FFI_REFUSE_IMPORT(OverflowError) << "the element count overflows 64 bits";
  // The type code is not checked, as the reference does not: a code that names no dtype (18..128,
  // or a custom code with no registered name) imports. Nothing here needs its name, only bits and
  // lanes; printing it later is a ValueError returned by TVMFFIDataTypeToString, not a crash.
  bool is_void = t.dtype.code == kDLOpaqueHandle && t.dtype.bits == 0 && t.dtype.lanes == 0;
  if (t.dtype.lanes == 0 && !is_void) FFI_REFUSE_IMPORT(ValueError) << "dtype has zero lanes";
  uint64_t bits_per_element = static_cast<uint64_t>(t.dtype.bits) * t.dtype.lanes;
  // GetDataSize must work on what is imported, even where strides address less (broadcasting).
  uint64_t compact_bytes = 0;
  if (!ElementBytes(static_cast<uint64_t>(numel), bits_per_element, &compact_bytes)) {
    FFI_REFUSE_IMPORT(OverflowError) << "the tensor's size in bytes overflows 64 bits";
  }
  // The elements addressed, as offsets from the first one: [lo, hi].
  int64_t lo = 0, hi = 0;
  if (t.strides == nullptr) {
    // Compact strides are computed on import; extents of 0 count as 1 there.
    int64_t stride = 1;
    for (int32_t i = t.ndim - 1; i > 0; --i) {
      if (__builtin_mul_overflow(stride, t.shape[i] > 0 ? t.shape[i] : 1, &stride)) {
        FFI_REFUSE_IMPORT(OverflowError) << "the compact strides overflow 64 bits";
      }
    }
    hi = numel > 0 ? numel - 1 : 0;
  } else if (numel > 0) {
    for (int32_t i = 0; i < t.ndim; ++i) {
      int64_t reach = 0;
      int64_t* side = t.strides[i] < 0 ? &lo : &hi;
      if (__builtin_mul_overflow(t.shape[i] - 1, t.strides[i], &reach) ||
          __builtin_add_overflow(*side, reach, side)) {
        FFI_REFUSE_IMPORT(OverflowError) << "the strides address more than 64 bits of memory";
      }
    }
  }
  uint64_t span = 0, below = 0, end = 0;
  if (!ElementBytes(static_cast<uint64_t>(hi) + (numel > 0 ? 1 : 0), bits_per_element, &span) ||
      !ElementBytes(lo == INT64_MIN ? uint64_t{1} << 63 : static_cast<uint64_t>(-lo),
                    bits_per_element, &below) ||
      __builtin_add_overflow(span, t.byte_offset, &end) || end > static_cast<uint64_t>(INT64_MAX)) {
    FFI_REFUSE_IMPORT(OverflowError) << "the tensor's size in bytes (with byte_offset "
                                     << t.byte_offset << ") overflows 64 bits";
  }
  if (require_alignment < 0) {
    FFI_REFUSE_IMPORT(ValueError) << "negative require_alignment " << require_alignment;
  }
  // A well-formed tensor the caller's requirements refuse: RuntimeError, the reference's kind,
  // which code written for it catches.
  if (!detail::IsAligned(t, static_cast<size_t>(require_alignment))) {
    FFI_REFUSE_IMPORT(RuntimeError)
        << "data address is not aligned to " << require_alignment << " bytes";
  }
  if (require_contiguous && !detail::IsContiguous(t)) {
    FFI_REFUSE_IMPORT(RuntimeError) << "the tensor is not contiguous and contiguity is required";
  }
}

/*! \brief The Tensor owning `managed`, once its description was checked. */
template <typename Managed>
TVMFFIObjectHandle MakeImported(Managed* managed, uint64_t flags) {
  ObjectPtr<DLPackTensorObj<Managed>> obj = make_object_with_extra<DLPackTensorObj<Managed>>(
      2 * static_cast<size_t>(managed->dl_tensor.ndim) * sizeof(int64_t), managed, flags);
  return detail::ObjectUnsafe::Header(obj.release());
}

/*!
 * \brief Takes ownership of `managed` on success (`*out` owns it; its deleter runs when the last
 * reference goes). On any failure the error is thrown and `managed` is still the caller's, as in
 * TVM-FFI: a caller that gives up on it runs its deleter.
 */
template <typename Managed>
void Import(Managed* managed, uint64_t flags, int32_t require_alignment, bool require_contiguous,
            TVMFFIObjectHandle* out) {
  const char* what = kImportWhat;
  if (out == nullptr) FFI_REFUSE_IMPORT(ValueError) << "the out pointer is NULL";
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    if (managed->version.major != DLPACK_MAJOR_VERSION) {
      FFI_REFUSE_IMPORT(ValueError) << "unsupported DLPack major version " << managed->version.major
                                    << " (supported: " << DLPACK_MAJOR_VERSION << ")";
    }
  }
  CheckImported(managed->dl_tensor, require_alignment, require_contiguous);
  *out = MakeImported(managed, flags);
}

/*!
 * \brief Whether `t`, whose extents' product is known to fit in int64_t, addresses exactly the
 * compact span from `data`: no byte offset, compact strides (or none), no empty extent.
 * CheckImported then holds (with no alignment or contiguity asked for).
 */
bool IsPlainCompact(const DLTensor& t) {
  if (t.byte_offset != 0) return false;
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    int64_t extent = t.shape[i];
    if (extent <= 0) return false;
    if (t.strides != nullptr && extent != 1 && t.strides[i] != expected) return false;
    expected *= extent;  // a prefix of a product that fits
  }
  return true;
}

/*!
 * \brief A tensor describing part of another tensor's memory (TVMFFITensorCreateUnsafeView): its
 * own shape and strides, the data of `base_`, which it keeps alive.
 */
class ViewTensorObj : public TensorObj {
 public:
  // Shape and strides are copied after the object (make_object_with_extra reserves 2 * ndim).
  ViewTensorObj(Tensor base, const DLTensor& prototype) : base_(std::move(base)) {
    static_cast<DLTensor&>(*this) = prototype;
    detail::StoreShapeAndStrides(this, prototype.shape, prototype.strides, prototype.ndim,
                                 static_cast<int64_t*>(detail::ExtraStorage(this)));
  }

 private:
  Tensor base_;
};

/*! \brief The context of an exported tensor: a reference to the tensor object and shape copies. */
template <typename Managed>
struct Export {
  Managed managed;
  Tensor tensor;
  static void Delete(Managed* self) { delete reinterpret_cast<Export*>(self); }
};

template <typename Managed>
Managed* MakeExport(TVMFFIObjectHandle from, Managed** out) {
  if (out == nullptr) FFI_THROW(ValueError) << "Cannot export to DLPack: the out pointer is NULL";
  if (from == nullptr || static_cast<TVMFFIObject*>(from)->type_index != kTVMFFITensor) {
    FFI_THROW(TypeError) << "Cannot export to DLPack: the object is not a Tensor";
  }
  auto* ctx = new Export<Managed>();
  ctx->tensor = detail::ObjectUnsafe::RefFromBorrowedHeader<Tensor>(from);
  ctx->managed.dl_tensor = *TVMFFITensorGetDLTensorPtr(from);
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = Export<Managed>::Delete;
  return &ctx->managed;
}

}  // namespace

TVMFFIObjectHandle ImportAllocatedTensor(DLManagedTensorVersioned* managed) {
  if (managed->version.major == DLPACK_MAJOR_VERSION && IsPlainCompact(managed->dl_tensor)) {
    return MakeImported(managed, managed->flags);
  }
  TVMFFIObjectHandle out = nullptr;
  Import(managed, managed->flags, 0, false, &out);
  return out;
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using namespace ffi::runtime;

extern "C" {

// Not in the TVM-FFI C ABI: the project's extension looks it up (ffi/detail/runtime_entries.h).
TVM_FFI_DLL int FFIRuntimeTensorDetachDLPackVersioned(TVMFFIObjectHandle tensor,
                                                      DLManagedTensorVersioned** out) {
  FFI_SAFE_CALL_BEGIN();
  using Versioned = DLPackTensorObj<DLManagedTensorVersioned>;
  if (out == nullptr) FFI_THROW(ValueError) << "Cannot detach a tensor: the out pointer is NULL";
  auto* header = static_cast<TVMFFIObject*>(tensor);
  if (header == nullptr || header->type_index != kTVMFFITensor) {
    FFI_THROW(TypeError) << "Cannot detach a tensor: the object is not a Tensor";
  }
  *out = nullptr;
  if (header->deleter == ffi::detail::ObjectDeleter<Versioned> &&
      ffi::detail::HasSoleReference(header)) {
    *out = static_cast<Versioned*>(ffi::detail::ObjectUnsafe::FromHeader(header))->Detach();
    // The caller's reference was the only one, and the emptied object holds nothing: freed here,
    // with no count to drop and nothing to queue.
    header->deleter(header, kTVMFFIObjectDeleterFlagBitMaskBoth);
  }
  FFI_SAFE_CALL_END();
}

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (from == nullptr) FFI_THROW(ValueError) << "Cannot import DLPack tensor: it is NULL";
  Import(from, 0, require_alignment, require_contiguous != 0, out);
  FFI_SAFE_CALL_END();
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (from == nullptr) FFI_THROW(ValueError) << "Cannot import DLPack tensor: it is NULL";
  Import(from, from->flags, require_alignment, require_contiguous != 0, out);
  FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  FFI_SAFE_CALL_BEGIN();
  *out = MakeExport<DLManagedTensor>(from, out);
  FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from, DLManagedTensorVersioned** out) {
  FFI_SAFE_CALL_BEGIN();
  DLManagedTensorVersioned* m = MakeExport<DLManagedTensorVersioned>(from, out);
  m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  // Read-only stays read-only. "Copied" is not passed on: the consumer shares this tensor's data.
  m->flags = ImportedFlags(
                 static_cast<const ffi::TensorObj*>(ffi::detail::ObjectUnsafe::FromHeader(from))) &
             DLPACK_FLAG_BITMASK_READ_ONLY;
  *out = m;
  FFI_SAFE_CALL_END();
}

int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                 TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  constexpr const char* what = "TVMFFITensorCreateUnsafeView";
  if (prototype == nullptr || out == nullptr) {
    FFI_THROW(ValueError) << what << ": " << (prototype ? "out" : "prototype") << " is NULL";
  }
  if (source == nullptr || static_cast<TVMFFIObject*>(source)->type_index != kTVMFFITensor) {
    FFI_THROW(TypeError) << what << ": the source is not a Tensor";
  }
  // The description must be well formed and its sizes must fit; whether it stays inside the
  // source's memory is the caller's promise (the function is unsafe by contract).
  CheckImported(*prototype, 0, false, what);
  auto base = ffi::detail::ObjectUnsafe::RefFromBorrowedHeader<ffi::Tensor>(source);
  ffi::ObjectPtr<ViewTensorObj> obj = ffi::make_object_with_extra<ViewTensorObj>(
      2 * static_cast<size_t>(prototype->ndim) * sizeof(int64_t), std::move(base), *prototype);
  *out = ffi::detail::ObjectUnsafe::Header(obj.release());
  FFI_SAFE_CALL_END();
}

}  // extern "C"
