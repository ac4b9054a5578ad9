/*
 * ffi/shape.h - Shape (an immutable, reference-counted list of extents) and ShapeView (a
 * borrowed one). A Shape object is {TVMFFIObject, TVMFFIShapeCell, int64_t...} with the extents
 * stored after the cell in the same allocation.
 */
#ifndef FFI_SHAPE_H_
#define FFI_SHAPE_H_

#include <cstring>
#include <initializer_list>

#include "error.h"
#include "type_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief Most dimensions a tensor may have. Every place that takes an ndim from outside (DLPack
 * import, the environment allocator, Tensor::FromNDAlloc) refuses more, before reading the shape.
 */
inline constexpr int32_t kMaxTensorNDim = 1024;

namespace detail {
// Size errors are thrown from these out-of-line functions, so that a size check inlined into a
// kernel costs a compare and a call, not a streamed message at every call site. The policy:
// a negative extent (or ndim) is a ValueError, a count or byte size beyond 64 bits an
// OverflowError.
/*! \brief Throws ValueError: `what` has a negative extent `value` in dimension `dim`. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowNegativeExtent(const char* what, size_t dim,
                                                               int64_t value) {
  FFI_THROW(ValueError) << what << ": negative extent " << value << " in dimension " << dim;
}
/*! \brief Throws OverflowError: `what` does not fit in 64 bits. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowSizeOverflow(const char* what) {
  FFI_THROW(OverflowError) << what << " overflows 64 bits";
}
/*! \brief Throws ValueError for an ndim outside [0, kMaxTensorNDim]. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowBadNDim(const char* what, int64_t ndim) {
  FFI_THROW(ValueError) << what << ": ndim " << ndim << " is outside [0, " << kMaxTensorNDim << "]";
}
/*! \brief Throws ValueError with the message `what`. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowValueError(const char* what) {
  FFI_THROW(ValueError) << what;
}
/*!
 * \brief The product of `n` extents (1 for none), or -1 when one is negative (its index in
 * `*bad_dim`) and -2 when the product does not fit in int64_t. A zero extent makes the product 0
 * even where the other extents alone would overflow.
 */
inline int64_t TryProduct(const int64_t* dims, size_t n, size_t* bad_dim) {
  int64_t p = 1;
  bool overflow = false;
  for (size_t i = 0; i < n; ++i) {
    if (dims[i] < 0) return *bad_dim = i, -1;
    overflow |= __builtin_mul_overflow(p, dims[i], &p);
  }
  if (!overflow) return p;
  for (size_t i = 0; i < n; ++i) {
    if (dims[i] == 0) return 0;
  }
  return -2;
}
/*! \brief The product of `n` extents; throws (see above) naming `what` when there is none. */
inline int64_t CheckedProduct(const int64_t* dims, size_t n, const char* what) {
  size_t bad_dim = 0;
  int64_t p = TryProduct(dims, n, &bad_dim);
  if (FFI_UNLIKELY(p < 0)) {
    if (p == -1) ThrowNegativeExtent(what, bad_dim, dims[bad_dim]);
    ThrowSizeOverflow(what);
  }
  return p;
}
}  // namespace detail

/*! \brief A borrowed run of extents (or strides); the memory belongs to someone else. */
class ShapeView {
 public:
  ShapeView() = default;
  ShapeView(const int64_t* data, size_t size) : data_(data), size_(size) {}
// A braced list lives until the end of the full expression, which is what a parameter such as
// FromEnvAlloc(alloc, {2, 3}, ...) needs; do not keep such a view in a variable.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  ShapeView(std::initializer_list<int64_t> dims) : data_(dims.begin()), size_(dims.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  /*! \brief Views a contiguous container of int64_t, such as std::vector<int64_t>. */
  template <typename Container,
            typename = std::enable_if_t<std::is_convertible_v<
                decltype(std::declval<const Container&>().data()), const int64_t*>>>
  ShapeView(const Container& dims) : data_(dims.data()), size_(dims.size()) {}

  /*! \brief Number of extents. */
  size_t size() const { return size_; }
  /*! \brief Whether there are none. */
  bool empty() const { return size_ == 0; }
  /*! \brief The extents. */
  const int64_t* data() const { return data_; }
  /*! \brief Extent `i`; negative `i` counts from the end; IndexError when out of range. */
  int64_t at(int64_t i) const {
    int64_t n = static_cast<int64_t>(size_);
    if (i < -n || i >= n)
      FFI_THROW(IndexError) << "index " << i << " out of range for " << n << " dims";
    return data_[i < 0 ? i + n : i];
  }
  /*! \brief Extent `i` (unchecked). */
  int64_t operator[](size_t i) const { return data_[i]; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  /*!
   * \brief The product of the extents (1 for no extents). Throws ValueError for a negative extent
   * and OverflowError when the product does not fit in int64_t; it never wraps.
   */
  int64_t Product() const { return detail::CheckedProduct(data_, size_, "shape product"); }
  bool operator==(const ShapeView& o) const {
    return size_ == o.size_ && (size_ == 0 || std::memcmp(data_, o.data_, size_ * 8) == 0);
  }
  bool operator!=(const ShapeView& o) const { return !(*this == o); }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

namespace detail {
/*! \brief Error messages write a shape as "[2, 3]". */
template <>
struct TextFormatter<ShapeView> {
  static void Append(std::string* out, ShapeView s) {
    out->push_back('[');
    for (size_t i = 0; i < s.size(); ++i) {
      if (i) out->append(", ");
      AppendInt(out, s[i]);
    }
    out->push_back(']');
  }
};
}  // namespace detail

/*! \brief Prints "[2, 3]" (a template, so that these headers need no <ostream>). */
template <typename Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os, ShapeView s) {
  std::string text;
  detail::TextFormatter<ShapeView>::Append(&text, s);
  return os << text;
}

/*! \brief The object behind Shape (type index kTVMFFIShape). */
class ShapeObj : public Object, public TVMFFIShapeCell {
 public:
  /*! \brief The type of one extent. */
  using index_type = int64_t;
  /*! \brief The number of elements of a tensor of this shape (OverflowError past int64_t). */
  int64_t Product() const { return ShapeView(data, size).Product(); }
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Shape", ShapeObj, Object, kTVMFFIShape);
};

namespace detail {
/*! \brief A Shape object of `size` extents, for the caller to fill in through `*data`. */
inline ObjectPtr<ShapeObj> AllocShapeObj(size_t size, int64_t** data) {
  if (FFI_UNLIKELY(size > SIZE_MAX / sizeof(int64_t))) ThrowSizeOverflow("shape size in bytes");
  ObjectPtr<ShapeObj> obj = make_object_with_extra<ShapeObj>(size * sizeof(int64_t));
  *data = static_cast<int64_t*>(ExtraStorage(obj.get()));
  obj->data = *data;
  obj->size = size;
  return obj;
}
/*! \brief A Shape object holding a copy of `dims`. */
inline ObjectPtr<ShapeObj> MakeShapeObj(ShapeView dims) {
  int64_t* data = nullptr;
  ObjectPtr<ShapeObj> obj = AllocShapeObj(dims.size(), &data);
  if (!dims.empty()) std::memcpy(data, dims.data(), dims.size() * sizeof(int64_t));
  return obj;
}
/*! \brief AllocShapeObj under TVM-FFI's name; `mutable_data` may be null. */
inline ObjectPtr<ShapeObj> MakeEmptyShape(size_t length, int64_t** mutable_data) {
  int64_t* data = nullptr;
  ObjectPtr<ShapeObj> obj = AllocShapeObj(length, &data);
  if (mutable_data != nullptr) *mutable_data = data;
  return obj;
}
/*!
 * \brief The compact row-major strides of `shape`, written to `out` (extents below 1 count as 1).
 * Throws OverflowError when a stride does not fit in int64_t, which only a tensor with a zero
 * extent can reach (otherwise its element count would overflow first).
 */
inline void FillStridesFromShape(ShapeView shape, int64_t* out) {
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    out[i] = stride;
    int64_t extent = shape[i] > 0 ? shape[i] : 1;
    if (FFI_UNLIKELY(__builtin_mul_overflow(stride, extent, &stride)) && i > 0) {
      ThrowSizeOverflow("compact strides");
    }
  }
}
/*! \brief Those strides as a Shape object. */
inline ObjectPtr<ShapeObj> MakeStridesFromShape(ShapeView shape) {
  int64_t* data = nullptr;
  ObjectPtr<ShapeObj> obj = AllocShapeObj(shape.size(), &data);
  FillStridesFromShape(shape, data);
  return obj;
}
}  // namespace detail

namespace detail {
/*! \brief Whether `R` stores int64_t values contiguously behind `data()`. */
template <typename R, typename = void>
constexpr bool kHasInt64Data = false;
template <typename R>
constexpr bool kHasInt64Data<R, std::enable_if_t<std::is_convertible_v<
                                    decltype(std::declval<const R&>().data()), const int64_t*>>> =
    true;
}  // namespace detail

/*! \brief An immutable, shared list of extents. Never null; default is the empty shape. */
class Shape : public ObjectRef {
 public:
  Shape() : Shape(ShapeView()) {}
  Shape(std::initializer_list<int64_t> dims) : Shape(ShapeView(dims)) {}
  /*!
   * \brief A copy of a range of integers: std::vector<int64_t>, Array<int64_t>, std::array<int, N>,
   * ... (contiguous int64_t storage is copied in one go).
   */
  template <typename Range,
            typename = std::enable_if_t<
                !std::is_same_v<Range, ShapeView> && !std::is_base_of_v<ObjectRef, Range> &&
                std::is_convertible_v<decltype(*std::declval<const Range&>().begin()), int64_t>>>
  Shape(const Range& dims) : Shape(FromRange(dims)) {}
  /*! \brief The same for object ranges (Array<int64_t>), whose values are read one by one. */
  template <typename Range,
            typename = std::enable_if_t<std::is_base_of_v<ObjectRef, Range> &&
                                        !std::is_same_v<Range, Shape>>,
            typename = decltype(static_cast<int64_t>(*std::declval<const Range&>().begin()))>
  Shape(const Range& dims) : Shape(CopyRange(dims.begin(), dims.end())) {}
  /*! \brief A copy of the extents of a view (implicit, as `Shape s = t.shape();` expects). */
  Shape(ShapeView dims) : ObjectRef(detail::MakeShapeObj(dims)) {}
  /*! \brief A copy of the extents in `[first, last)` (any input iterators over integers). */
  template <typename Iter, typename = decltype(static_cast<int64_t>(*std::declval<Iter&>()),
                                               ++std::declval<Iter&>())>
  Shape(Iter first, Iter last) : Shape(CopyRange(first, last)) {}
  /*! \brief Wraps an existing shape object. */
  explicit Shape(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}

  /*! \brief A view of the extents, valid while this Shape lives. */
  ShapeView view() const { return ShapeView(get()->data, get()->size); }
  operator ShapeView() const { return view(); }
  /*! \brief The compact row-major strides of a tensor of extents `shape`. */
  static Shape StridesFromShape(ShapeView shape) {
    return Shape(ObjectPtr<Object>(detail::MakeStridesFromShape(shape)));
  }

  const int64_t* data() const { return get()->data; }
  size_t size() const { return get()->size; }
  bool empty() const { return size() == 0; }
  int64_t operator[](size_t i) const { return get()->data[i]; }
  int64_t at(int64_t i) const { return view().at(i); }
  /*! \brief The first and last extents; IndexError when the shape is empty. */
  int64_t front() const { return at(0); }
  int64_t back() const { return at(-1); }
  const int64_t* begin() const { return get()->data; }
  const int64_t* end() const { return get()->data + get()->size; }
  int64_t Product() const { return view().Product(); }
  bool operator==(const Shape& o) const { return view() == o.view(); }
  bool operator!=(const Shape& o) const { return view() != o.view(); }

  const ShapeObj* get() const { return static_cast<const ShapeObj*>(data_.get()); }
  const ShapeObj* operator->() const { return get(); }
  using ContainerType = ShapeObj;
  static constexpr bool _type_is_nullable = false;

 private:
  template <typename Range>
  static Shape FromRange(const Range& dims) {
    if constexpr (detail::kHasInt64Data<Range>) {
      return Shape(ShapeView(dims.data(), dims.size()));
    } else {
      return CopyRange(dims.begin(), dims.end());
    }
  }
  template <typename Iter>
  static Shape CopyRange(Iter first, Iter last) {
    size_t n = 0;
    for (Iter it = first; it != last; ++it) ++n;
    int64_t* dst = nullptr;
    ObjectPtr<ShapeObj> obj = detail::AllocShapeObj(n, &dst);
    for (size_t i = 0; first != last; ++first, ++i) dst[i] = static_cast<int64_t>(*first);
    return Shape(ObjectPtr<Object>(std::move(obj)));
  }
};

namespace detail {
/*! \brief Error messages write a shape as "[2, 3]". */
template <>
struct TextFormatter<Shape> : TextFormatter<ShapeView> {};
}  // namespace detail

/*! \brief Prints "[2, 3]". */
template <typename Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os, const Shape& s) {
  return os << s.view();
}

template <>
inline constexpr bool use_default_type_traits_v<Shape> = false;

/*!
 * \brief Shape: a Shape object, or an Array or List of integers (copied into a new Shape), as a
 * TVM-FFI function taking a Shape accepts a Python list of ints.
 */
template <>
struct TypeTraits<Shape> : ObjectRefTypeTraitsBase<Shape> {
  static constexpr int32_t field_static_type_index = kTVMFFIShape;
  static detail::CastResult<Shape> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    if (src->type_index != kTVMFFIArray && src->type_index != kTVMFFIList) return std::nullopt;
    // Both sequences keep a TVMFFISeqCell right after the object header (the ABI's layout).
    const auto* cell = reinterpret_cast<const TVMFFISeqCell*>(src->v_obj + 1);
    const auto* items = static_cast<const TVMFFIAny*>(cell->data);
    int64_t* dims = nullptr;
    ObjectPtr<ShapeObj> obj = detail::AllocShapeObj(static_cast<size_t>(cell->size), &dims);
    for (int64_t i = 0; i < cell->size; ++i) {
      Optional<int64_t> v = TypeTraits<int64_t>::TryCastFromAnyView(items + i);
      if (!v) return std::nullopt;
      dims[i] = *v;
    }
    return Shape(ObjectPtr<Object>(std::move(obj)));
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SHAPE_H_
