/*
 * ffi/optional.h - Optional<T>: a value or nothing; None in a TVMFFIAny means nothing.
 */
#ifndef FFI_OPTIONAL_H_
#define FFI_OPTIONAL_H_

#include <optional>
#include <string>
#include <utility>

#include "error.h"
#include "type_traits.h"

namespace ffi {

/*!
 * \brief A `T` or nothing, like std::optional<T>, and convertible through the ABI: nothing is None.
 * value() on an empty Optional throws ValueError instead of std::bad_optional_access.
 */
template <typename T>
class Optional {
 public:
  Optional() = default;
  Optional(std::nullopt_t) {}                                    // NOLINT(*)
  Optional(std::nullptr_t) {}                                    // NOLINT(*)
  Optional(T value) : data_(std::move(value)) {}                 // NOLINT(*)
  Optional(std::optional<T> value) : data_(std::move(value)) {}  // NOLINT(*)

  /*! \brief Whether a value is present. */
  bool has_value() const { return data_.has_value(); }
  explicit operator bool() const { return data_.has_value(); }
  /*! \brief The value; throws ValueError when there is none. */
  const T& value() const& {
    if (!data_.has_value())
      FFI_THROW(ValueError) << "Optional<" << TypeTraits<T>::TypeStr() << "> has no value";
    return *data_;
  }
  T&& value() && {
    if (!data_.has_value())
      FFI_THROW(ValueError) << "Optional<" << TypeTraits<T>::TypeStr() << "> has no value";
    return *std::move(data_);
  }
  /*! \brief The value, or `fallback` when there is none. */
  T value_or(T fallback) const { return data_.has_value() ? *data_ : std::move(fallback); }
  const T& operator*() const { return *data_; }
  const T* operator->() const { return &*data_; }
  bool operator==(std::nullopt_t) const { return !data_.has_value(); }
  bool operator!=(std::nullopt_t) const { return data_.has_value(); }
  bool operator==(std::nullptr_t) const { return !data_.has_value(); }
  bool operator!=(std::nullptr_t) const { return data_.has_value(); }

 private:
  std::optional<T> data_;
};

/*! \brief Optional<T>: None or whatever converts to `T`. */
template <typename T>
struct TypeTraits<Optional<T>> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const Optional<T>& v, TVMFFIAny* out) {
    if (!v.has_value()) return detail::SetNone(out);
    TypeTraits<T>::CopyToAnyView(*v, out);
  }
  static void MoveToAny(Optional<T> v, TVMFFIAny* out) {
    if (!v.has_value()) return detail::SetNone(out);
    TypeTraits<T>::MoveToAny(std::move(v).value(), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFINone || TypeTraits<T>::CheckAnyStrict(src);
  }
  static std::optional<Optional<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return Optional<T>();
    if (auto v = TypeTraits<T>::TryCastFromAnyView(src)) return Optional<T>(*std::move(v));
    return std::nullopt;
  }
  static constexpr auto TypeStr() {
    return ConstString("Optional<") + TypeTraits<T>::TypeStr() + ">";
  }
};

}  // namespace ffi

#endif  // FFI_OPTIONAL_H_
