/*
 * ffi/detail/optional_any_layout.h - the Optionals laid out as a TVMFFIAny, as TVM-FFI's: of a
 * number narrower than 8 bytes (stored widened), and of a String/Bytes/Variant/Expected or of an
 * Optional (nested): the value's own cell, None for nothing. Included by optional.h at its end,
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
    value_.type_index = detail::kAnyPayloadIndex<T>;  // Bool, Float or Int
    if constexpr (std::is_floating_point_v<T>) {
      value_.v_float64 = static_cast<double>(v);
    } else {
      value_.v_int64 = static_cast<int64_t>(v);  // a bool as 0 or 1
    }
  }
  T Get() const noexcept {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(value_.v_float64);
    } else {
      return static_cast<T>(value_.v_int64);  // a bool: non-zero is true
    }
  }
  TVMFFIAny value_{};  // type index kTVMFFINone when empty
};

namespace detail {
/*!
 * \brief Whether `T`'s whole state is one TVMFFIAny (String, Bytes, Variant, Expected), so that
 * Optional<T> is a `T` marked None inside when it holds nothing. Each such class specializes this
 * beside itself, with a CellOptionalAccess<T> giving `static bool IsNone(const T&)`, `static void
 * SetNone(T&)` (releasing the value) and `static T None()`. Nested Optionals are cells too (below).
 */
template <typename T>
inline constexpr bool kCellOptional = false;
template <typename T>
struct CellOptionalAccess;

/*!
 * \brief Whether Optional<T> is laid out as a TVMFFIAny whose type index is None exactly when it
 * holds nothing: Any payloads (numbers, DLDevice, ...), String, Bytes, Variant, Expected, and
 * Optionals nested in those ways.
 */
template <typename T>
inline constexpr bool kAnyLayoutOptional = kAnyPayloadIndex<T> != kTVMFFIAny || kCellOptional<T>;

/*!
 * \brief An Optional of an Optional laid out as an Any or as one pointer is a cell Optional of the
 * inner one, as TVM-FFI's: an empty inner Optional is nothing, exactly as the same value is after
 * a round trip through an Any.
 */
template <typename U>
inline constexpr bool kCellOptional<Optional<U>> =
    kAnyLayoutOptional<U> || use_object_ptr_optional_v<U>;
template <typename U>
struct CellOptionalAccess<Optional<U>> {
  static bool IsNone(const Optional<U>& v) noexcept { return !v.has_value(); }
  static void SetNone(Optional<U>& v) noexcept { v.reset(); }
  static Optional<U> None() noexcept { return Optional<U>(); }
};

/*! \brief A cell Optional's storage: the value, already laid out as an Any. */
template <typename T, bool kIndexed = sizeof(T) == sizeof(void*)>
struct CellOptionalStorage {
  static constexpr bool kHasTypeIndex = false;
  explicit CellOptionalStorage(T v) noexcept : value(std::move(v)) {}
  void Sync() noexcept {}
  T value;
};
/*!
 * \brief A cell Optional's storage around a one-pointer value (a nested Optional of a reference):
 * the type index an Any holding the object would carry (None when empty) before it, so the whole
 * reads as that Any. Sync() after every change of `value`.
 */
template <typename T>
struct CellOptionalStorage<T, true> {
  static constexpr bool kHasTypeIndex = true;
  explicit CellOptionalStorage(T v) noexcept : value(std::move(v)) { Sync(); }
  void Sync() noexcept {
    type_index = value.has_value() ? value.get()->type_index() : int32_t{kTVMFFINone};
  }
  int32_t type_index = kTVMFFINone;
  uint32_t zero_padding = 0;
  T value;
};
}  // namespace detail

/*!
 * \brief An Optional String, Bytes, Variant, Expected or Optional: the value's own 16-byte cell,
 * holding None for nothing, so it is laid out as an Any (as TVM-FFI's) and reads the same under
 * either header set. `*opt` and `opt->` reach the held value (read-only for a nested Optional of a
 * reference, whose type index follows the value); moving the value out leaves nothing.
 */
template <typename T>
class Optional<T, std::enable_if_t<detail::kCellOptional<T>>>
    : public detail::OptionalComparisons<Optional<T>, T> {
  using Access = detail::CellOptionalAccess<T>;
  using Storage = detail::CellOptionalStorage<T>;

 public:
  /*! \brief Nothing. */
  Optional() noexcept : store_(Access::None()) {}
  Optional(std::nullopt_t) noexcept : store_(Access::None()) {}
  /*! \brief Nothing, from `nullptr`. */
  template <typename N, typename = std::enable_if_t<std::is_null_pointer_v<N>>>
  Optional(N) noexcept : store_(Access::None()) {}
  /*! \brief A value (nothing when it is itself an empty Optional). */
  Optional(T value) noexcept : store_(std::move(value)) {}
  /*! \brief The value of a std::optional, if it has one. */
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> value) noexcept
      : store_(value.has_value() ? *std::move(value) : Access::None()) {}
  /*! \brief The value of a CastResult, if it has one. */
  Optional(detail::CastResult<T> value) noexcept
      : store_(value.has_value() ? *std::move(value) : Access::None()) {}
  Optional(const Optional& other) noexcept = default;
  Optional(Optional&& other) noexcept : store_(std::move(other.store_.value)) { other.reset(); }
  Optional& operator=(const Optional& other) noexcept = default;
  Optional& operator=(Optional&& other) noexcept {
    if (this != &other) {
      Assign(std::move(other.store_.value));
      other.reset();
    }
    return *this;
  }
  /*! \brief Holds `value` instead (also from what converts to `T`: `opt = "text"`). */
  Optional& operator=(T value) noexcept {
    Assign(std::move(value));
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
  bool has_value() const noexcept { return !Access::IsNone(store_.value); }
  explicit operator bool() const noexcept { return has_value(); }
  /*! \brief The value; throws RuntimeError ("Bad optional access") when there is none. */
  const T& value() const& {
    if (!has_value()) ThrowEmpty();
    return store_.value;
  }
  /*! \brief The value, moved out; nothing is left. */
  T value() && {
    if (!has_value()) ThrowEmpty();
    return std::move(*this).operator*();
  }
  /*! \brief The value, or `fallback` when there is none. */
  template <typename U = T>
  T value_or(U&& fallback) const {
    return has_value() ? store_.value : T(std::forward<U>(fallback));
  }
  /*! \brief The value (unchecked: an empty cell when there is none). */
  const T& operator*() const& noexcept { return store_.value; }
  template <typename S = Storage, typename = std::enable_if_t<!S::kHasTypeIndex>>
  T& operator*() & noexcept {
    return store_.value;
  }
  T operator*() && noexcept {
    T out = std::move(store_.value);
    reset();
    return out;
  }
  const T* operator->() const noexcept { return &store_.value; }
  template <typename S = Storage, typename = std::enable_if_t<!S::kHasTypeIndex>>
  T* operator->() noexcept {
    return &store_.value;
  }
  /*! \brief Drops the value, if any. */
  void reset() noexcept {
    Access::SetNone(store_.value);
    store_.Sync();
  }

  using detail::OptionalComparisons<Optional, T>::operator==;
  using detail::OptionalComparisons<Optional, T>::operator!=;
  /*! \brief Equal when both are empty, or both hold equal values. */
  bool operator==(const Optional& other) const {
    return has_value() == other.has_value() && (!has_value() || store_.value == other.store_.value);
  }
  bool operator!=(const Optional& other) const { return !(*this == other); }

 private:
  void Assign(T value) noexcept {
    store_.value = std::move(value);
    store_.Sync();
  }
  [[noreturn]] static void ThrowEmpty() { FFI_THROW(RuntimeError) << "Bad optional access"; }

  Storage store_;  // a cell of type index kTVMFFINone when empty (holding no object)
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_OPTIONAL_ANY_LAYOUT_H_
