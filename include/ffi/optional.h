/*
 * ffi/optional.h - Optional<T>: a value or nothing; None in a TVMFFIAny means nothing.
 *
 * Optional is also what TypeTraits<T>::TryCastFromAnyView returns. It is written here rather than
 * wrapping std::optional because every header's conversions instantiate it for their own types,
 * and std::optional's layered implementation made that a sizable share of a kernel's compile time.
 */
#ifndef FFI_OPTIONAL_H_
#define FFI_OPTIONAL_H_

#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "error.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief A `T` or nothing, like std::optional<T>, and convertible through the ABI: nothing is None.
 * value() on an empty Optional throws RuntimeError ("Bad optional access"), as TVM-FFI's does.
 */
template <typename T>
class Optional {
 public:
  /*! \brief Nothing. */
  Optional() noexcept { InitStorage(); }
  Optional(std::nullopt_t) noexcept { InitStorage(); }
  /*! \brief Nothing, from `nullptr` (except for Optional<std::nullptr_t>, where it is a value). */
  template <typename N,
            typename = std::enable_if_t<std::is_null_pointer_v<N> && !std::is_null_pointer_v<T>>>
  Optional(N) noexcept {
    InitStorage();
  }
  /*! \brief A value. */
  Optional(T value) { Emplace(std::move(value)); }
  /*! \brief The value of a std::optional, if it has one (a template, so that other conversions
   * do not instantiate std::optional<T>). */
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> value) {
    if (value.has_value()) {
      Emplace(*std::move(value));
    } else {
      InitStorage();
    }
  }
  // Storage is zeroed only when it stays empty: a typed call moves each converted argument
  // through here, and zeroing a large T (TensorView: 104 bytes) first would cost more than the
  // move itself.
  Optional(const Optional& other) {
    if (other.has_value_) {
      Emplace(other.value_);
    } else {
      InitStorage();
    }
  }
  Optional(Optional&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (other.has_value_) {
      Emplace(std::move(other.value_));
    } else {
      InitStorage();
    }
  }
  Optional& operator=(const Optional& other) {
    if (this != &other) {
      reset();
      if (other.has_value_) Emplace(other.value_);
    }
    return *this;
  }
  Optional& operator=(Optional&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      reset();
      if (other.has_value_) Emplace(std::move(other.value_));
    }
    return *this;
  }
  ~Optional() { reset(); }

  /*! \brief Whether a value is present. */
  bool has_value() const { return has_value_; }
  explicit operator bool() const { return has_value_; }
  /*! \brief The value; throws ValueError when there is none. */
  const T& value() const& {
    if (!has_value_) ThrowEmpty();
    return value_;
  }
  T&& value() && {
    if (!has_value_) ThrowEmpty();
    return std::move(value_);
  }
  /*! \brief The value, or `fallback` when there is none. */
  T value_or(T fallback) const { return has_value_ ? value_ : std::move(fallback); }
  /*! \brief The value (unchecked). */
  const T& operator*() const& { return value_; }
  T& operator*() & { return value_; }
  T&& operator*() && { return std::move(value_); }
  const T* operator->() const { return &value_; }
  T* operator->() { return &value_; }
  /*! \brief Drops the value, if any. */
  void reset() {
    if (has_value_) {
      value_.~T();
      has_value_ = false;
    }
  }
  bool operator==(std::nullopt_t) const { return !has_value_; }
  bool operator!=(std::nullopt_t) const { return has_value_; }
  bool operator==(std::nullptr_t) const { return !has_value_; }
  bool operator!=(std::nullptr_t) const { return has_value_; }

 private:
  /*!
   * \brief Zeroes the storage of an empty Optional (no T lives there): one small store, and
   * without it GCC 13 reports "may be used uninitialized" (an error under -Werror) where it cannot
   * see that an empty Optional is never read.
   */
  void InitStorage() noexcept { __builtin_memset(static_cast<void*>(&value_), 0, sizeof(T)); }
  template <typename U>
  void Emplace(U&& value) {
    new (&value_) T(std::forward<U>(value));
    has_value_ = true;
  }
  [[noreturn]] static void ThrowEmpty() { FFI_THROW(RuntimeError) << "Bad optional access"; }

  union {
    T value_;  // alive exactly when has_value_
  };
  bool has_value_ = false;
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_OPTIONAL_H_
