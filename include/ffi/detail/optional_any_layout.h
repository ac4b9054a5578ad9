/*
 * ffi/detail/optional_any_layout.h - the Optionals laid out as a TVMFFIAny, as TVM-FFI's: of a
 * number narrower than 8 bytes (stored widened), of a String/Bytes/Variant/Expected (the value's
 * own cell, None for nothing), and of an Optional (nested). Included by optional.h at its end,
 * after the general and the pointer Optional; not for users to include.
 */
#ifndef FFI_DETAIL_OPTIONAL_ANY_LAYOUT_H_
#define FFI_DETAIL_OPTIONAL_ANY_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "../optional.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*!
 * \brief Whether Optional<T> stores a number narrower than 8 bytes widened in an Any (an int64 or a
 * double), as TVM-FFI's does, so that an object's Optional<int>/<bool>/<float> field has one
 * layout under either header set. Such an Optional gives its value by value.
 */
template <typename T>
inline constexpr bool kWidenedOptional = std::is_arithmetic_v<T> && sizeof(T) < 8;
}  // namespace detail

/*!
 * \brief An Optional of a number narrower than 8 bytes (`bool`, `int`, `float`, ...): a TVMFFIAny
 * holding the number widened (kTVMFFIInt / kTVMFFIBool / kTVMFFIFloat) or None. The value is
 * returned by value (`*opt`, `value()`), as TVM-FFI's; assign to change it.
 */
template <typename T>
class Optional<T, std::enable_if_t<detail::kWidenedOptional<T>>>
    : public detail::OptionalComparisons<Optional<T>, T> {
 public:
  /*! \brief Nothing. */
  Optional() noexcept = default;
  Optional(std::nullopt_t) noexcept {}
  /*! \brief Nothing, from `nullptr`. */
  template <typename N, typename = std::enable_if_t<std::is_null_pointer_v<N>>>
  Optional(N) noexcept {}
  /*! \brief A value. */
  Optional(T value) noexcept { Set(value); }
  /*! \brief The value of a std::optional, if it has one. */
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> value) noexcept {
    if (value.has_value()) Set(*value);
  }
  /*! \brief From a CastResult of the same `T`. */
  template <typename OtherTag, typename = std::enable_if_t<!std::is_same_v<OtherTag, void>>>
  Optional(Optional<T, OtherTag> other) noexcept {
    if (other.has_value()) Set(*other);
  }
  /*! \brief Holds `value` instead. */
  Optional& operator=(T value) noexcept {
    Set(value);
    return *this;
  }
  /*! \brief Holds nothing. */
  Optional& operator=(std::nullopt_t) noexcept {
    reset();
    return *this;
  }
  template <typename N, typename = std::enable_if_t<std::is_null_pointer_v<N>>>
  Optional& operator=(N) noexcept {
    reset();
    return *this;
  }

  /*! \brief Whether a value is present. */
  bool has_value() const noexcept { return value_.type_index != kTVMFFINone; }
  explicit operator bool() const noexcept { return has_value(); }
  /*! \brief The value; throws RuntimeError ("Bad optional access") when there is none. */
  T value() const {
    if (!has_value()) FFI_THROW(RuntimeError) << "Bad optional access";
    return Get();
  }
  /*! \brief The value, or `fallback` when there is none. */
  T value_or(T fallback) const noexcept { return has_value() ? Get() : fallback; }
  /*! \brief The value (unchecked). */
  T operator*() const noexcept { return Get(); }
  /*! \brief Drops the value, if any. */
  void reset() noexcept { value_ = TVMFFIAny{}; }
  using detail::OptionalComparisons<Optional, T>::operator==;
  using detail::OptionalComparisons<Optional, T>::operator!=;
  /*! \brief Equal when both are empty, or both hold equal values. */
  bool operator==(const Optional& other) const noexcept {
    return has_value() == other.has_value() && (!has_value() || Get() == *other);
  }
  bool operator!=(const Optional& other) const noexcept { return !(*this == other); }

 private:
  void Set(T v) noexcept {
    value_ = TVMFFIAny{};
    if constexpr (std::is_same_v<T, bool>) {
      value_.type_index = kTVMFFIBool;
      value_.v_int64 = v ? 1 : 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      value_.type_index = kTVMFFIFloat;
      value_.v_float64 = static_cast<double>(v);
    } else {
      value_.type_index = kTVMFFIInt;
      value_.v_int64 = static_cast<int64_t>(v);
    }
  }
  T Get() const noexcept {
    if constexpr (std::is_same_v<T, bool>) {
      return value_.v_int64 != 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(value_.v_float64);
    } else {
      return static_cast<T>(value_.v_int64);
    }
  }
  TVMFFIAny value_{};  // type index kTVMFFINone when empty
};

namespace detail {
/*!
 * \brief Whether `T`'s whole state is one TVMFFIAny (String, Bytes, Variant), so that Optional<T>
 * is a `T` marked None inside when it holds nothing. Each such class specializes this beside
 * itself, with a CellOptionalAccess<T> giving `static bool IsNone(const T&)`, `static void
 * SetNone(T&)` (releasing the value) and `static T None()`.
 */
template <typename T>
inline constexpr bool kCellOptional = false;
template <typename T>
struct CellOptionalAccess;
}  // namespace detail

/*!
 * \brief An Optional String, Bytes or Variant: the value's own 16-byte cell, holding None for
 * nothing, so it is laid out as an Any (as TVM-FFI's) and reads the same under either header set.
 * `*opt` and `opt->` reach the held value; moving the value out leaves nothing.
 */
template <typename T>
class Optional<T, std::enable_if_t<detail::kCellOptional<T>>>
    : public detail::OptionalComparisons<Optional<T>, T> {
 public:
  /*! \brief Nothing. */
  Optional() noexcept : value_(Access::None()) {}
  Optional(std::nullopt_t) noexcept : value_(Access::None()) {}
  /*! \brief Nothing, from `nullptr`. */
  template <typename N, typename = std::enable_if_t<std::is_null_pointer_v<N>>>
  Optional(N) noexcept : value_(Access::None()) {}
  /*! \brief A value. */
  Optional(T value) noexcept : value_(std::move(value)) {}
  /*! \brief The value of a std::optional, if it has one. */
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> value) noexcept
      : value_(value.has_value() ? *std::move(value) : Access::None()) {}
  /*! \brief The value of a CastResult, if it has one. */
  Optional(detail::CastResult<T> value) noexcept
      : value_(value.has_value() ? *std::move(value) : Access::None()) {}
  Optional(const Optional& other) noexcept = default;
  Optional(Optional&& other) noexcept : value_(std::move(other.value_)) {
    Access::SetNone(other.value_);
  }
  Optional& operator=(const Optional& other) noexcept = default;
  Optional& operator=(Optional&& other) noexcept {
    if (this != &other) {
      value_ = std::move(other.value_);
      Access::SetNone(other.value_);
    }
    return *this;
  }
  /*! \brief Holds `value` instead (also from what converts to `T`: `opt = "text"`). */
  Optional& operator=(T value) noexcept {
    value_ = std::move(value);
    return *this;
  }
  /*! \brief Holds nothing. */
  Optional& operator=(std::nullopt_t) noexcept {
    reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }

  /*! \brief Whether a value is present. */
  bool has_value() const noexcept { return !Access::IsNone(value_); }
  explicit operator bool() const noexcept { return has_value(); }
  /*! \brief The value; throws RuntimeError ("Bad optional access") when there is none. */
  const T& value() const& {
    if (!has_value()) ThrowEmpty();
    return value_;
  }
  /*! \brief The value, moved out; nothing is left. */
  T value() && {
    if (!has_value()) ThrowEmpty();
    return std::move(*this).operator*();
  }
  /*! \brief The value, or `fallback` when there is none. */
  template <typename U = T>
  T value_or(U&& fallback) const {
    return has_value() ? value_ : T(std::forward<U>(fallback));
  }
  /*! \brief The value (unchecked: an empty cell when there is none). */
  const T& operator*() const& noexcept { return value_; }
  T& operator*() & noexcept { return value_; }
  T operator*() && noexcept {
    T out = std::move(value_);
    Access::SetNone(value_);
    return out;
  }
  const T* operator->() const noexcept { return &value_; }
  T* operator->() noexcept { return &value_; }
  /*! \brief Drops the value, if any. */
  void reset() noexcept { Access::SetNone(value_); }

  using detail::OptionalComparisons<Optional, T>::operator==;
  using detail::OptionalComparisons<Optional, T>::operator!=;
  /*! \brief Equal when both are empty, or both hold equal values. */
  bool operator==(const Optional& other) const noexcept {
    return has_value() == other.has_value() && (!has_value() || value_ == other.value_);
  }
  bool operator!=(const Optional& other) const noexcept { return !(*this == other); }

 private:
  using Access = detail::CellOptionalAccess<T>;
  [[noreturn]] static void ThrowEmpty() { FFI_THROW(RuntimeError) << "Bad optional access"; }

  T value_;  // a cell of type index kTVMFFINone when empty (holding no object)
};

namespace detail {
/*!
 * \brief Whether Optional<T> is laid out as a TVMFFIAny whose type index is None exactly when it
 * holds nothing: Any payloads (numbers, DLDevice, ...), String, Bytes, Variant, and Optionals
 * nested in those ways.
 */
template <typename T>
inline constexpr bool kAnyLayoutOptional = kAnyPayloadIndex<T> != kTVMFFIAny || kCellOptional<T>;
/*! \brief Whether Optional<T> is an Optional of an Optional laid out as an Any (see below). */
template <typename T>
inline constexpr bool kNestedOptional = false;
template <typename U>
inline constexpr bool kNestedOptional<Optional<U>> = kAnyLayoutOptional<U> || kPointerOptional<U>;
template <typename U>
inline constexpr bool kAnyLayoutOptional<Optional<U>> = kNestedOptional<Optional<U>>;

/*! \brief A nested Optional's storage: the inner Optional, already an Any. */
template <typename Inner, bool kPointer = sizeof(Inner) == sizeof(void*)>
struct NestedOptionalStorage {
  void Sync() noexcept {}
  Inner inner;
};
/*!
 * \brief A nested Optional's storage around a one-pointer Optional: the type index an Any holding
 * the object would carry (None when empty) before it, so the whole reads as that Any.
 */
template <typename Inner>
struct NestedOptionalStorage<Inner, true> {
  void Sync() noexcept {
    type_index = inner.has_value() ? inner.get()->type_index() : int32_t{kTVMFFINone};
  }
  int32_t type_index = kTVMFFINone;
  uint32_t zero_padding = 0;
  Inner inner;
};
}  // namespace detail

/*!
 * \brief An Optional of an Optional of a number, String, Bytes or reference: laid out as an Any
 * holding the inner value, as TVM-FFI's, so such fields read the same under either header set.
 * As there, an empty inner Optional is nothing: `Optional<Optional<int>>(Optional<int>())` holds
 * nothing, exactly as the same value does after a round trip through an Any.
 */
template <typename T>
class Optional<T, std::enable_if_t<detail::kNestedOptional<T>>>
    : public detail::OptionalComparisons<Optional<T>, T> {
 public:
  /*! \brief Nothing. */
  Optional() noexcept = default;
  Optional(std::nullopt_t) noexcept {}
  /*! \brief Nothing, from `nullptr`. */
  template <typename N, typename = std::enable_if_t<std::is_null_pointer_v<N>>>
  Optional(N) noexcept {}
  /*! \brief The inner Optional (nothing when it is empty). */
  Optional(T value) noexcept { Set(std::move(value)); }
  /*! \brief The value of a std::optional, if it has one. */
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> value) noexcept {
    if (value.has_value()) Set(*std::move(value));
  }
  /*! \brief The value of a CastResult, if it has one. */
  Optional(detail::CastResult<T> value) noexcept {
    if (value.has_value()) Set(*std::move(value));
  }
  Optional(const Optional& other) noexcept = default;
  Optional(Optional&& other) noexcept { Set(std::move(other.store_.inner)), other.reset(); }
  Optional& operator=(const Optional& other) noexcept = default;
  Optional& operator=(Optional&& other) noexcept {
    if (this != &other) Set(std::move(other.store_.inner)), other.reset();
    return *this;
  }
  /*! \brief Holds `value` instead (nothing when it is empty). */
  Optional& operator=(T value) noexcept {
    Set(std::move(value));
    return *this;
  }
  /*! \brief Holds nothing. */
  Optional& operator=(std::nullopt_t) noexcept {
    reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }

  /*! \brief Whether a (non-empty) inner Optional is present. */
  bool has_value() const noexcept { return store_.inner.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  /*! \brief The inner Optional; throws RuntimeError ("Bad optional access") when there is none. */
  const T& value() const& {
    if (!has_value()) FFI_THROW(RuntimeError) << "Bad optional access";
    return store_.inner;
  }
  /*! \brief The inner Optional, moved out; nothing is left. */
  T value() && {
    if (!has_value()) FFI_THROW(RuntimeError) << "Bad optional access";
    T out = std::move(store_.inner);
    reset();
    return out;
  }
  /*! \brief The inner Optional, or `fallback` when there is none. */
  template <typename U = T>
  T value_or(U&& fallback) const {
    return has_value() ? store_.inner : T(std::forward<U>(fallback));
  }
  /*! \brief The inner Optional (an empty one when there is none). */
  const T& operator*() const& noexcept { return store_.inner; }
  T operator*() && noexcept { return std::move(*this).value_or(T()); }
  const T* operator->() const noexcept { return &store_.inner; }
  /*! \brief Drops the value, if any. */
  void reset() noexcept { Set(T()); }

  using detail::OptionalComparisons<Optional, T>::operator==;
  using detail::OptionalComparisons<Optional, T>::operator!=;
  /*! \brief Equal when both are empty, or both hold equal inner values. */
  bool operator==(const Optional& other) const {
    return has_value() == other.has_value() && (!has_value() || store_.inner == other.store_.inner);
  }
  bool operator!=(const Optional& other) const { return !(*this == other); }

 private:
  void Set(T value) noexcept {
    store_.inner = std::move(value);
    store_.Sync();
  }

  detail::NestedOptionalStorage<T> store_;
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_OPTIONAL_ANY_LAYOUT_H_
