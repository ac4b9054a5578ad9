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

namespace ffi {

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
  ShapeView(const Container& dims) : data_(dims.data()), size_(dims.size()) {}  // NOLINT(*)

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
  /*! \brief The product of the extents (1 for no extents). */
  int64_t Product() const {
    int64_t p = 1;
    for (int64_t d : *this) p *= d;
    return p;
  }
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
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Shape", ShapeObj, Object, kTVMFFIShape);
};

namespace detail {
/*! \brief A Shape object of `size` extents, for the caller to fill in through `*data`. */
inline ObjectPtr<ShapeObj> AllocShapeObj(size_t size, int64_t** data) {
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
}  // namespace detail

/*! \brief An immutable, shared list of extents. Never null; default is the empty shape. */
class Shape : public ObjectRef {
 public:
  Shape() : Shape(ShapeView()) {}
  Shape(std::initializer_list<int64_t> dims) : Shape(ShapeView(dims)) {}
  /*! \brief A copy of a contiguous container of int64_t, such as std::vector<int64_t>. */
  template <typename Container,
            typename = std::enable_if_t<std::is_convertible_v<
                decltype(std::declval<const Container&>().data()), const int64_t*>>>
  Shape(const Container& dims) : Shape(ShapeView(dims)) {}  // NOLINT(*)
  explicit Shape(ShapeView dims) : ObjectRef(detail::MakeShapeObj(dims)) {}
  /*! \brief Wraps an existing shape object. */
  explicit Shape(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}

  /*! \brief A view of the extents, valid while this Shape lives. */
  ShapeView view() const { return ShapeView(get()->data, get()->size); }
  operator ShapeView() const { return view(); }  // NOLINT(*)
  size_t size() const { return get()->size; }
  int64_t operator[](size_t i) const { return get()->data[i]; }
  int64_t at(int64_t i) const { return view().at(i); }
  const int64_t* begin() const { return get()->data; }
  const int64_t* end() const { return get()->data + get()->size; }
  int64_t Product() const { return view().Product(); }
  bool operator==(const Shape& o) const { return view() == o.view(); }
  bool operator!=(const Shape& o) const { return view() != o.view(); }

  const ShapeObj* get() const { return static_cast<const ShapeObj*>(data_.get()); }
  const ShapeObj* operator->() const { return get(); }
  using ContainerType = ShapeObj;
  static constexpr bool _type_is_nullable = false;
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

}  // namespace ffi

#endif  // FFI_SHAPE_H_
