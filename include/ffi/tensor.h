/*
 * ffi/tensor.h - Tensor (owning) and TensorView (borrowed) over DLPack's DLTensor.
 *
 * A Tensor object is {TVMFFIObject, DLTensor, ...}: the DLTensor sits right after the header, so
 * any library reads it without knowing who made the object. In a TVMFFIAny a tensor is either a
 * kTVMFFITensor object (owning) or a borrowed kTVMFFIDLTensorPtr. Both convert to TensorView; only
 * the object converts to Tensor, because a view cannot be made into an owner.
 */
#ifndef FFI_TENSOR_H_
#define FFI_TENSOR_H_

#include <cstring>
#include <utility>

#include "device.h"
#include "dtype.h"
#include "optional.h"
#include "shape.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief Bytes needed by `numel` elements of `dtype` (sub-byte types rounded up overall). Throws
 * ValueError for a negative `numel` and OverflowError when the size does not fit in 64 bits.
 */
inline size_t GetDataSize(int64_t numel, DLDataType dtype) {
  if (FFI_UNLIKELY(numel < 0)) detail::ThrowNegativeExtent("element count", 0, numel);
  // bits * lanes < 2^24, so only the multiplication by numel and the rounding can overflow.
  uint64_t bits = 0;
  uint64_t bits_per_element = static_cast<uint64_t>(dtype.bits) * dtype.lanes;
  if (FFI_UNLIKELY(__builtin_mul_overflow(static_cast<uint64_t>(numel), bits_per_element, &bits) ||
                   __builtin_add_overflow(bits, uint64_t{7}, &bits) || bits / 8 > SIZE_MAX)) {
    detail::ThrowSizeOverflow("tensor size in bytes");
  }
  return static_cast<size_t>(bits / 8);
}
/*!
 * \brief Bytes needed by the elements of a compact tensor; the errors of GetDataSize above, and
 * ValueError for an ndim outside [0, kMaxTensorNDim] or a null shape with ndim > 0.
 */
inline size_t GetDataSize(const DLTensor& t) {
  if (FFI_UNLIKELY(t.ndim < 0 || t.ndim > kMaxTensorNDim)) detail::ThrowBadNDim("tensor", t.ndim);
  if (FFI_UNLIKELY(t.shape == nullptr && t.ndim > 0))
    detail::ThrowValueError("tensor shape is NULL with ndim > 0");
  return GetDataSize(detail::CheckedProduct(t.shape, static_cast<size_t>(t.ndim), "tensor shape"),
                     t.dtype);
}

/*!
 * \brief Whether a device's data pointers are addresses (CPU, CUDA, ROCm and their host and
 * managed memory), so that an offset may be added to them; elsewhere (OpenCL, Vulkan, ...) a data
 * pointer is a handle and the offset stays in byte_offset.
 */
inline bool IsDirectAddressDevice(const DLDevice& device) {
  switch (device.device_type) {
    case kDLCPU:
    case kDLCUDA:
    case kDLCUDAHost:
    case kDLCUDAManaged:
    case kDLROCM:
    case kDLROCMHost:
      return true;
    default:
      return false;
  }
}

namespace detail {
/*! \brief FillStridesFromShape (shape.h) for `ndim` extents at `shape`. */
inline void FillCompactStrides(const int64_t* shape, int32_t ndim, int64_t* out) {
  FillStridesFromShape(ShapeView(shape, static_cast<size_t>(ndim)), out);
}
/*!
 * \brief Copies `nd` extents and strides (compact ones when `strides` is null) into `storage`, 2 *
 * nd int64s (a tensor object's extra storage), and points `t`'s shape and strides at the copies.
 */
inline void StoreShapeAndStrides(DLTensor* t, const int64_t* shape, const int64_t* strides,
                                 int32_t nd, int64_t* storage) {
  if (nd > 0) std::memcpy(storage, shape, nd * sizeof(int64_t));
  if (strides == nullptr) {
    FillCompactStrides(storage, nd, storage + nd);
  } else if (nd > 0) {
    std::memcpy(storage + nd, strides, nd * sizeof(int64_t));
  }
  t->shape = storage;
  t->strides = storage + nd;
}
/*!
 * \brief Whether a tensor is compact row-major. Dimensions of extent 1 may have any stride, and a
 * tensor without elements is compact whatever its strides.
 */
inline bool IsContiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return true;
  }
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] == 1) continue;
    if (t.strides[i] != expected) return false;
    // A layout whose element count overflows int64_t cannot be compact in memory.
    if (__builtin_mul_overflow(expected, t.shape[i], &expected)) return false;
  }
  return true;
}
/*!
 * \brief Refuses, before anything is allocated, a shape a new tensor cannot have: more than
 * kMaxTensorNDim dimensions or a negative extent (ValueError), a byte size beyond 64 bits
 * (OverflowError).
 */
inline void CheckNewTensorShape(ShapeView shape, DLDataType dtype, const char* what) {
  if (FFI_UNLIKELY(shape.size() > static_cast<size_t>(kMaxTensorNDim))) {
    ThrowBadNDim(what, static_cast<int64_t>(shape.size() > INT64_MAX ? INT64_MAX : shape.size()));
  }
  GetDataSize(CheckedProduct(shape.data(), shape.size(), what), dtype);
}
/*!
 * \brief `base` re-described with `shape` and `strides` (pointing at the caller's arrays) and its
 * first element `element_offset` elements further, for as_strided(). On CPU and CUDA memory the
 * offset moves `data` (so byte_offset stays 0, as kernels expect); elsewhere it is a byte offset.
 */
inline DLTensor StridedPrototype(const DLTensor& base, ShapeView shape, ShapeView strides,
                                 int64_t element_offset) {
  if (shape.size() != strides.size()) {
    FFI_THROW(ValueError) << "as_strided: " << strides.size() << " strides for " << shape.size()
                          << " dims";
  }
  if (element_offset < 0) {
    FFI_THROW(ValueError) << "as_strided: negative element offset " << element_offset;
  }
  CheckNewTensorShape(shape, base.dtype, "as_strided");
  DLTensor out = base;
  out.ndim = static_cast<int32_t>(shape.size());
  out.shape = const_cast<int64_t*>(shape.data());
  out.strides = const_cast<int64_t*>(strides.data());
  out.byte_offset += GetDataSize(element_offset, base.dtype);
  if (out.byte_offset != 0 && IsDirectAddressDevice(base.device)) {
    out.data = static_cast<char*>(out.data) + out.byte_offset;
    out.byte_offset = 0;
  }
  return out;
}
/*!
 * \brief Whether the first element's address is a multiple of `alignment` bytes (0: any). On a
 * device whose data pointer is a handle rather than an address (OpenCL, Vulkan, ...), only the
 * byte offset counts.
 */
inline bool IsAligned(const DLTensor& t, size_t alignment) {
  if (alignment == 0) return true;
  if (!IsDirectAddressDevice(t.device)) return t.byte_offset % alignment == 0;
  return (reinterpret_cast<uintptr_t>(t.data) + t.byte_offset) % alignment == 0;
}

/*! \brief The accessors Tensor and TensorView share; `Derived` provides dl() and strides(). */
template <typename Derived>
class TensorMethods {
 public:
  /*! \brief Number of dimensions. */
  int32_t ndim() const { return dl()->ndim; }
  /*! \brief Element type. */
  DLDataType dtype() const { return dl()->dtype; }
  /*! \brief Extents. */
  ShapeView shape() const { return ShapeView(dl()->shape, static_cast<size_t>(dl()->ndim)); }
  /*! \brief Extent of dimension `i`; negative `i` counts from the end. */
  int64_t size(int64_t i) const { return shape().at(i); }
  /*! \brief Stride (in elements) of dimension `i`; negative `i` counts from the end. */
  int64_t stride(int64_t i) const { return static_cast<const Derived*>(this)->strides().at(i); }
  /*! \brief Number of elements. */
  int64_t numel() const { return shape().Product(); }
  /*! \brief Offset in bytes from data_ptr() to the first element. */
  uint64_t byte_offset() const { return dl()->byte_offset; }
  /*! \brief The data pointer as the producer gave it (add byte_offset() for the first element). */
  void* data_ptr() const { return dl()->data; }
  /*! \brief Where the data lives. */
  DLDevice device() const { return dl()->device; }
  /*! \brief Whether the layout is compact row-major. */
  bool IsContiguous() const { return detail::IsContiguous(*dl()); }
  /*! \brief Whether the first element's address is a multiple of `alignment` bytes. */
  bool IsAligned(size_t alignment) const { return detail::IsAligned(*dl(), alignment); }
  /*! \brief The underlying DLTensor. */
  DLTensor* GetDLTensorPtr() const { return const_cast<DLTensor*>(dl()); }

  // PyTorch's spelling of the same accessors, which kernel code written against ATen uses.
  /*! \brief Number of dimensions (ndim()). */
  int32_t dim() const { return ndim(); }
  /*! \brief Extents (shape()). */
  ShapeView sizes() const { return shape(); }
  /*! \brief Whether the layout is compact row-major (IsContiguous()). */
  bool is_contiguous() const { return IsContiguous(); }

 private:
  const DLTensor* dl() const { return static_cast<const Derived*>(this)->dl_tensor(); }
};
}  // namespace detail

// The checks on a raw DLTensor, under TVM-FFI's public names.
using detail::IsAligned;
using detail::IsContiguous;

/*! \brief The object behind Tensor: the header followed by the DLTensor. */
class TensorObj : public Object, public DLTensor {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Tensor", TensorObj, Object, kTVMFFITensor);
};

namespace detail {
/*!
 * \brief A tensor whose data an allocator provides (`AllocData(DLTensor*, extra...)` when made,
 * `FreeData(DLTensor*)` when destroyed); shape and strides are stored alongside.
 */
template <typename Alloc>
class NDAllocTensorObj : public TensorObj {
 public:
  template <typename... Extra>
  NDAllocTensorObj(Alloc alloc, ShapeView shape, const int64_t* strides, DLDataType dtype,
                   DLDevice device, Extra&&... extra)
      : alloc_(std::move(alloc)) {
    // Shape and strides live after the object (make_object_with_extra reserved 2 * ndim).
    this->data = nullptr;
    this->device = device;
    this->ndim = static_cast<int32_t>(shape.size());
    this->dtype = dtype;
    this->byte_offset = 0;
    StoreShapeAndStrides(this, shape.data(), strides, this->ndim,
                         static_cast<int64_t*>(ExtraStorage(this)));
    alloc_.AllocData(static_cast<DLTensor*>(this), std::forward<Extra>(extra)...);
    // An allocator may leave strides NULL (compact, in DLPack); a tensor object always has them.
    if (this->strides == nullptr) {
      this->strides = static_cast<int64_t*>(ExtraStorage(this)) + this->ndim;
      FillCompactStrides(this->shape, this->ndim, this->strides);
    }
  }
  ~NDAllocTensorObj() { alloc_.FreeData(static_cast<DLTensor*>(this)); }

 private:
  Alloc alloc_;
};
}  // namespace detail

/*! \brief An owning reference to a tensor object; may be null. */
class Tensor : public ObjectRef, public detail::TensorMethods<Tensor> {
 public:
  Tensor() = default;
  /*!
   * \brief Wraps a tensor object. Like the reference's, a Tensor is one pointer, so an object
   * holding a Tensor field has the same layout whichever header set compiled it.
   */
  explicit Tensor(ObjectPtr<Object> obj) : ObjectRef(std::move(obj)) {}
  const TensorObj* operator->() const { return get(); }
  const TensorObj* get() const { return static_cast<const TensorObj*>(data_.get()); }
  using ContainerType = TensorObj;
  /*! \brief None does not convert to Tensor (its methods need a tensor); use Optional<Tensor>. */
  static constexpr bool _type_is_nullable = false;

  /*!
   * \brief Strides in elements. Every tensor object has them (the runtimes and the allocators
   * here fill in compact ones); a foreign object without them is a ValueError (a TensorView of it
   * computes them).
   */
  ShapeView strides() const {
    const TensorObj* t = get();
    if (FFI_UNLIKELY(t->strides == nullptr && t->ndim > 0)) {
      FFI_THROW(ValueError) << "Tensor::strides(): the tensor object has no strides (its producer "
                               "left them NULL); view it with TensorView to get compact ones";
    }
    return ShapeView(t->strides, static_cast<size_t>(t->ndim));
  }
  /*! \brief The DLTensor (null for a null Tensor). */
  const DLTensor* dl_tensor() const { return get(); }

  /*!
   * \brief Allocates a compact tensor with a user allocator: `alloc.AllocData(DLTensor*, extra...)`
   * sets `data`; `alloc.FreeData(DLTensor*)` runs when the last reference goes.
   */
  template <typename Alloc, typename... Extra>
  static Tensor FromNDAlloc(Alloc alloc, ShapeView shape, DLDataType dtype, DLDevice device,
                            Extra&&... extra) {
    detail::CheckNewTensorShape(shape, dtype, "Tensor::FromNDAlloc");
    return Tensor(make_object_with_extra<detail::NDAllocTensorObj<Alloc>>(
        2 * shape.size() * sizeof(int64_t), std::move(alloc), shape, nullptr, dtype, device,
        std::forward<Extra>(extra)...));
  }
  /*! \brief FromNDAlloc with explicit strides (in elements, one per dimension). */
  template <typename Alloc, typename... Extra>
  static Tensor FromNDAllocStrided(Alloc alloc, ShapeView shape, ShapeView strides,
                                   DLDataType dtype, DLDevice device, Extra&&... extra) {
    if (strides.size() != shape.size()) {
      FFI_THROW(ValueError) << "FromNDAllocStrided: " << strides.size() << " strides for "
                            << shape.size() << " dims";
    }
    detail::CheckNewTensorShape(shape, dtype, "Tensor::FromNDAllocStrided");
    return Tensor(make_object_with_extra<detail::NDAllocTensorObj<Alloc>>(
        2 * shape.size() * sizeof(int64_t), std::move(alloc), shape, strides.data(), dtype, device,
        std::forward<Extra>(extra)...));
  }
  /*!
   * \brief Allocates through the environment (`TVMFFIEnvTensorAlloc`): the host framework's
   * allocator when one is installed (PyTorch's inside a PyTorch call), else an aligned CPU one.
   */
  static Tensor FromEnvAlloc(int (*env_alloc)(DLTensor*, TVMFFIObjectHandle*), ShapeView shape,
                             DLDataType dtype, DLDevice device) {
    detail::CheckNewTensorShape(shape, dtype, "Tensor::FromEnvAlloc");
    DLTensor prototype{nullptr,
                       device,
                       static_cast<int32_t>(shape.size()),
                       dtype,
                       const_cast<int64_t*>(shape.data()),
                       nullptr,
                       0};
    TVMFFIObjectHandle out = nullptr;
    FFI_CHECK_SAFE_CALL(env_alloc(&prototype, &out));
    return detail::ObjectUnsafe::RefFromOwnedHeader<Tensor>(out);
  }
  /*!
   * \brief Takes ownership of a legacy DLPack tensor. Refuses a malformed tensor, one whose data is
   * not aligned to `require_alignment` bytes, or, with `require_contiguous`, a strided one; a
   * refused tensor is still the caller's (its deleter has not run), as in TVM-FFI.
   */
  static Tensor FromDLPack(DLManagedTensor* from, size_t require_alignment = 0,
                           bool require_contiguous = false) {
    TVMFFIObjectHandle out = nullptr;
    FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPack(from, static_cast<int32_t>(require_alignment),
                                               require_contiguous ? 1 : 0, &out));
    return detail::ObjectUnsafe::RefFromOwnedHeader<Tensor>(out);
  }
  /*! \brief FromDLPack for a versioned (DLPack 1.x) tensor. */
  static Tensor FromDLPackVersioned(DLManagedTensorVersioned* from, size_t require_alignment = 0,
                                    bool require_contiguous = false) {
    TVMFFIObjectHandle out = nullptr;
    FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPackVersioned(
        from, static_cast<int32_t>(require_alignment), require_contiguous ? 1 : 0, &out));
    return detail::ObjectUnsafe::RefFromOwnedHeader<Tensor>(out);
  }
  /*!
   * \brief A tensor sharing this one's data (and keeping it alive) with another shape and strides
   * (copied), starting `element_offset` elements further. ValueError when shape and strides differ
   * in length or the offset is negative.
   */
  Tensor as_strided(ShapeView shape, ShapeView strides,
                    std::optional<int64_t> element_offset = std::nullopt) const;
  /*! \brief Exports as a legacy DLPack tensor sharing the data; its deleter drops a reference. */
  DLManagedTensor* ToDLPack() const {
    DLManagedTensor* out = nullptr;
    FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPack(detail::ObjectUnsafe::HeaderOf(*this), &out));
    return out;
  }
  /*! \brief Exports as a versioned DLPack tensor sharing the data. */
  DLManagedTensorVersioned* ToDLPackVersioned() const {
    DLManagedTensorVersioned* out = nullptr;
    FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPackVersioned(detail::ObjectUnsafe::HeaderOf(*this), &out));
    return out;
  }
};
static_assert(sizeof(Tensor) == sizeof(void*), "a Tensor is one pointer, as the reference's");

namespace detail {
/*! \brief The object behind Tensor::as_strided: its own shape and strides, the base's data. */
class StridedViewTensorObj : public TensorObj {
 public:
  StridedViewTensorObj(Tensor base, const DLTensor& prototype) : base_(std::move(base)) {
    static_cast<DLTensor&>(*this) = prototype;
    StoreShapeAndStrides(this, prototype.shape, prototype.strides, prototype.ndim,
                         static_cast<int64_t*>(ExtraStorage(this)));
  }

 private:
  Tensor base_;  // keeps the data alive
};
}  // namespace detail

inline Tensor Tensor::as_strided(ShapeView shape, ShapeView strides,
                                 std::optional<int64_t> element_offset) const {
  DLTensor prototype =
      detail::StridedPrototype(*dl_tensor(), shape, strides, element_offset.value_or(0));
  return Tensor(make_object_with_extra<detail::StridedViewTensorObj>(
      2 * shape.size() * sizeof(int64_t), *this, prototype));
}

/*!
 * \brief A borrowed tensor: a copy of the DLTensor description, valid while the producer keeps
 * the data (and shape array) alive. Strides are filled in when the producer left them null.
 */
class TensorView : public detail::TensorMethods<TensorView> {
 public:
  /*! \brief Views a DLTensor (not null). */
  TensorView(const DLTensor* t) : tensor_(*t) {
    if (tensor_.strides == nullptr && tensor_.ndim > 0) FillCompactStrides();
  }
  /*! \brief Views an owning tensor (not null). */
  TensorView(const Tensor& t) : TensorView(t.dl_tensor()) {}
  TensorView(const TensorView& other) : tensor_(other.tensor_), heap_strides_(other.heap_strides_) {
    RepointInlineStrides(other);
  }
  TensorView(TensorView&& other) noexcept
      : tensor_(other.tensor_), heap_strides_(std::move(other.heap_strides_)) {
    RepointInlineStrides(other);
  }
  TensorView& operator=(const TensorView& other) {
    tensor_ = other.tensor_;
    heap_strides_ = other.heap_strides_;
    RepointInlineStrides(other);
    return *this;
  }

  /*! \brief Strides in elements. */
  ShapeView strides() const {
    return ShapeView(tensor_.strides, static_cast<size_t>(tensor_.ndim));
  }
  /*! \brief The (copied) DLTensor. */
  const DLTensor* dl_tensor() const { return &tensor_; }
  /*!
   * \brief A view of the same data with another shape and strides, starting `element_offset`
   * elements further. The view points at `shape`'s and `strides`' arrays: they must outlive it.
   */
  TensorView as_strided(ShapeView shape, ShapeView strides,
                        std::optional<int64_t> element_offset = std::nullopt) const {
    DLTensor prototype =
        detail::StridedPrototype(tensor_, shape, strides, element_offset.value_or(0));
    return TensorView(&prototype);
  }

 private:
  static constexpr int32_t kInlineDims = 6;
  /*! \brief Computes the strides the producer left null: inline, or in a shared Shape object. */
  void FillCompactStrides() {
    int64_t* out = inline_strides_;
    if (tensor_.ndim > kInlineDims) {
      heap_strides_ = detail::AllocShapeObj(static_cast<size_t>(tensor_.ndim), &out);
    }
    detail::FillCompactStrides(tensor_.shape, tensor_.ndim, out);
    tensor_.strides = out;
  }
  /*! \brief After copying `other`: strides it computed inline must point at this copy's array. */
  void RepointInlineStrides(const TensorView& other) {
    if (other.tensor_.strides == other.inline_strides_) {
      std::memcpy(inline_strides_, other.inline_strides_, tensor_.ndim * sizeof(int64_t));
      tensor_.strides = inline_strides_;
    }
  }
  DLTensor tensor_;
  int64_t inline_strides_[kInlineDims];
  /*! \brief Strides of more than kInlineDims dimensions, computed here; shared by copies. */
  ObjectPtr<ShapeObj> heap_strides_;
};

/*!
 * \brief Bytes needed by the elements of a tensor, as if it were compact (a strided tensor's
 * memory span can be larger). For GetDataSize(t) where `t` is a Tensor or a TensorView.
 */
inline size_t GetDataSize(const Tensor& t) { return GetDataSize(*t.dl_tensor()); }
/*! \brief Bytes needed by the elements of a viewed tensor; see GetDataSize(const Tensor&). */
inline size_t GetDataSize(const TensorView& t) { return GetDataSize(*t.dl_tensor()); }

/*!
 * \brief TensorView: from a kTVMFFIDLTensorPtr or a kTVMFFITensor object; passed on as a borrowed
 * kTVMFFIDLTensorPtr.
 */
template <>
struct TypeTraits<TensorView> : TypeTraitsBase {
  /*! \brief Not held by an Any: a view does not own what it points to. */
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = kTVMFFIDLTensorPtr;
  static void CopyToAnyView(const TensorView& v, TVMFFIAny* out) {
    TypeTraits<DLTensor*>::CopyToAnyView(v.GetDLTensorPtr(), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFIDLTensorPtr || src->type_index == kTVMFFITensor;
  }
  FFI_INLINE static detail::CastResult<TensorView> TryCastFromAnyView(const TVMFFIAny* src) {
    if (auto p = TypeTraits<DLTensor*>::TryCastFromAnyView(src)) return TensorView(*p);
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("Tensor"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("Tensor"); }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_TENSOR_H_
