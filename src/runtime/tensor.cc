// Tensors from and to DLPack (legacy and versioned), and dtype strings.
#include <ffi/string.h>
#include <ffi/tensor.h>

#include <string>

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
    if (managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  uint64_t flags() const { return flags_; }

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

/*! \brief Runs the producer's deleter and throws: the one way a refused tensor is released. */
template <typename Managed>
[[noreturn]] void Refuse(Managed* managed, const std::string& why) {
  if (managed->deleter != nullptr) managed->deleter(managed);
  FFI_THROW(ValueError) << "Cannot import DLPack tensor: " << why;
}

template <typename Managed>
TVMFFIObjectHandle Import(Managed* managed, uint64_t flags, int32_t require_alignment,
                          bool require_contiguous) {
  const DLTensor& t = managed->dl_tensor;
  if (t.ndim < 0) Refuse(managed, "negative ndim " + std::to_string(t.ndim));
  if (t.ndim > 0 && t.shape == nullptr) Refuse(managed, "shape is NULL with ndim > 0");
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0) Refuse(managed, "negative extent in dimension " + std::to_string(i));
  }
  if (t.dtype.lanes == 0 && !(t.dtype.code == kDLOpaqueHandle && t.dtype.bits == 0)) {
    Refuse(managed, "dtype has zero lanes");
  }
  if (require_alignment < 0) Refuse(managed, "negative require_alignment");
  if (!detail::IsAligned(t, static_cast<size_t>(require_alignment))) {
    Refuse(managed,
           "data address is not aligned to " + std::to_string(require_alignment) + " bytes");
  }
  if (require_contiguous && !detail::IsContiguous(t)) {
    Refuse(managed, "the tensor is not contiguous and contiguity is required");
  }
  ObjectPtr<DLPackTensorObj<Managed>> obj;
  try {
    obj = make_object_with_extra<DLPackTensorObj<Managed>>(
        2 * static_cast<size_t>(t.ndim) * sizeof(int64_t), managed, flags);
  } catch (...) {
    if (managed->deleter != nullptr) managed->deleter(managed);
    throw;
  }
  return detail::ObjectUnsafe::Header(obj.release());
}

/*! \brief The context of an exported tensor: a reference to the tensor object and shape copies. */
template <typename Managed>
struct Export {
  Managed managed;
  Tensor tensor;
  static void Delete(Managed* self) { delete reinterpret_cast<Export*>(self); }
};

template <typename Managed>
Managed* MakeExport(TVMFFIObjectHandle from) {
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
}  // namespace runtime
}  // namespace ffi

using namespace ffi::runtime;  // NOLINT(*)

extern "C" {

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (from == nullptr) FFI_THROW(ValueError) << "Cannot import DLPack tensor: it is NULL";
  *out = Import(from, 0, require_alignment, require_contiguous != 0);
  FFI_SAFE_CALL_END();
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (from == nullptr) FFI_THROW(ValueError) << "Cannot import DLPack tensor: it is NULL";
  if (from->version.major != DLPACK_MAJOR_VERSION) {
    Refuse(from, "unsupported DLPack major version " + std::to_string(from->version.major) +
                     " (supported: " + std::to_string(DLPACK_MAJOR_VERSION) + ")");
  }
  *out = Import(from, from->flags, require_alignment, require_contiguous != 0);
  FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  FFI_SAFE_CALL_BEGIN();
  *out = MakeExport<DLManagedTensor>(from);
  FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from, DLManagedTensorVersioned** out) {
  FFI_SAFE_CALL_BEGIN();
  DLManagedTensorVersioned* m = MakeExport<DLManagedTensorVersioned>(from);
  m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  // Read-only stays read-only. "Copied" is not passed on: the consumer shares this tensor's data.
  m->flags = ImportedFlags(
                 static_cast<const ffi::TensorObj*>(ffi::detail::ObjectUnsafe::FromHeader(from))) &
             DLPACK_FLAG_BITMASK_READ_ONLY;
  *out = m;
  FFI_SAFE_CALL_END();
}

int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out) {
  FFI_SAFE_CALL_BEGIN();
  *out = ffi::DLDataTypeFromString(ffi::detail::ByteView(*str));
  FFI_SAFE_CALL_END();
}

int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out) {
  FFI_SAFE_CALL_BEGIN();
  std::string s = ffi::DLDataTypeToString(*dtype);
  ffi::detail::BytesToAny<ffi::StringObj>(s, kTVMFFISmallStr, out);
  FFI_SAFE_CALL_END();
}

}  // extern "C"
