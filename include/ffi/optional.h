/*
 * ffi/optional.h - Optional<T>: a value or nothing; None in a TVMFFIAny means nothing.
 *
 * Optional is also what TypeTraits<T>::TryCastFromAnyView returns. It is written here rather than
 * wrapping std::optional because every header's conversions instantiate it for their own types,
 * and std::optional's layered implementation made that a sizable share of a kernel's compile time.
 *
 * The Optionals laid out as an Any (of narrow numbers, of String/Bytes/Variant/Expected, and nested
 * ones) are in detail/optional_any_layout.h, which this header includes at its end.
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

namespace detail {
/*! \brief The type of `a == b` for a `const A&` and a `const B&`, when that compiles. */
template <typename A, typename B>
using EqualityResult = decltype(std::declval<const A&>() == std::declval<const B&>());
/*! \brief Whether `a == b` compiles. */
template <typename A, typename B, typename = void>
inline constexpr bool kComparable = false;
template <typename A, typename B>
inline constexpr bool kComparable<A, B, std::void_t<EqualityResult<A, B>>> = true;

/*!
 * \brief The comparisons both kinds of Optional share, through `Derived`'s has_value() and `*`:
 * with nothing (std::nullopt, nullptr) and with a value (`T`'s `==`).
 */
template <typename Derived, typename T>
class OptionalComparisons {
 public:
  /*! \brief The type of the value an Optional may hold. */
  using value_type = T;
  bool operator==(std::nullopt_t) const { return !self().has_value(); }
  bool operator!=(std::nullopt_t) const { return self().has_value(); }
  bool operator==(std::nullptr_t) const { return !self().has_value(); }
  bool operator!=(std::nullptr_t) const { return self().has_value(); }
  /*! \brief Whether a value is held and equals `other`. */
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, Derived> && kComparable<T, U>>>
  bool operator==(const U& other) const {
    return self().has_value() && static_cast<bool>(*self() == other);
  }
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, Derived> && kComparable<T, U>>>
  bool operator!=(const U& other) const {
    return !(*this == other);
  }
  /*!
   * \brief The value, copied into a std::optional: code written for TVM-FFI, whose
   * TypeTraits<T>::TryCastFromAnyView returns one, keeps the result of ours in one.
   */
  operator std::optional<T>() const {
    if (!self().has_value()) return std::nullopt;
    return std::optional<T>(*self());
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};
}  // namespace detail

namespace detail {
/*!
 * \brief The type index of a TVMFFIAny holding a `T` in its 8-byte payload (numbers, DLDevice,
 * DLDataType, void*), else kTVMFFIAny. Optional<T> of such a `T` is laid out as that Any (type
 * index first, None when empty, the value 8 bytes in), as the reference's, so it reads the same
 * from an object compiled with either header set. (Numbers narrower than 8 bytes have their own
 * Optional, in detail/optional_any_layout.h, which stores them widened.)
 */
template <typename T>
inline constexpr int32_t kAnyPayloadIndex = std::is_same_v<T, bool>         ? kTVMFFIBool
                                            : std::is_floating_point_v<T>   ? kTVMFFIFloat
                                            : std::is_integral_v<T>         ? kTVMFFIInt
                                            : std::is_same_v<T, DLDevice>   ? kTVMFFIDevice
                                            : std::is_same_v<T, DLDataType> ? kTVMFFIDataType
                                            : std::is_same_v<T, void*>      ? kTVMFFIOpaquePtr
                                                                            : kTVMFFIAny;
}  // namespace detail

/*!
 * \brief A `T` or nothing, like std::optional<T>, and convertible through the ABI: nothing is None.
 * value() on an empty Optional throws RuntimeError ("Bad optional access"), as TVM-FFI's does. An
 * Optional of a reference class is one pointer (see the specialization below).
 */
template <typename T, typename Tag = void>
class Optional : public detail::OptionalComparisons<Optional<T, Tag>, T> {
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
  /*! \brief From an Optional of the same `T` of the other kind (a CastResult, or the reverse). */
  template <typename OtherTag, typename = std::enable_if_t<!std::is_same_v<OtherTag, Tag>>>
  Optional(Optional<T, OtherTag> other) {
    if (other.has_value()) {
      Emplace(*std::move(other));
    } else {
      InitStorage();
    }
  }
  // Storage is zeroed only when it stays empty: a typed call moves each converted argument
  // through here, and zeroing a large T (TensorView: 104 bytes) first would cost more than the
  // move itself.
  Optional(const Optional& other) {
    if (other.has_value()) {
      Emplace(other.value_);
    } else {
      InitStorage();
    }
  }
  Optional(Optional&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (other.has_value()) {
      Emplace(std::move(other.value_));
    } else {
      InitStorage();
    }
  }
  Optional& operator=(const Optional& other) {
    if (this != &other) {
      reset();
      if (other.has_value()) Emplace(other.value_);
    }
    return *this;
  }
  Optional& operator=(Optional&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      reset();
      if (other.has_value()) Emplace(std::move(other.value_));
    }
    return *this;
  }
  ~Optional() { reset(); }
  /*! \brief Holds `value` instead (also from what converts to `T`: `opt = "text"`). */
  Optional& operator=(T value) {
    reset();
    Emplace(std::move(value));
    return *this;
  }
  /*! \brief Holds nothing (an exact match, so `= std::nullopt` is never ambiguous). */
  Optional& operator=(std::nullopt_t) {
    reset();
    return *this;
  }
  /*! \brief Holds nothing, from `nullptr` (for Optional<std::nullptr_t> it is a value). */
  template <typename N,
            typename = std::enable_if_t<std::is_null_pointer_v<N> && !std::is_null_pointer_v<T>>>
  Optional& operator=(N) {
    reset();
    return *this;
  }

  /*! \brief Whether a value is present. */
  bool has_value() const { return type_index_ != kTVMFFINone; }
  explicit operator bool() const { return has_value(); }
  /*! \brief The value; throws RuntimeError ("Bad optional access") when there is none. */
  const T& value() const& {
    if (!has_value()) ThrowEmpty();
    return value_;
  }
  T&& value() && {
    if (!has_value()) ThrowEmpty();
    return std::move(value_);
  }
  /*! \brief The value, or `fallback` when there is none. */
  T value_or(T fallback) const { return has_value() ? value_ : std::move(fallback); }
  /*! \brief The value (unchecked). */
  const T& operator*() const& { return value_; }
  T& operator*() & { return value_; }
  T&& operator*() && { return std::move(value_); }
  const T* operator->() const { return &value_; }
  T* operator->() { return &value_; }
  /*! \brief Drops the value, if any. */
  void reset() {
    if (has_value()) {
      value_.~T();
      type_index_ = kTVMFFINone;
    }
  }
  using detail::OptionalComparisons<Optional, T>::operator==;
  using detail::OptionalComparisons<Optional, T>::operator!=;
  /*! \brief Equal when both are empty, or both hold equal values. */
  template <typename U = T, typename = std::enable_if_t<detail::kComparable<T, U>>>
  bool operator==(const Optional<U>& other) const {
    if (has_value() != other.has_value()) return false;
    return !has_value() || static_cast<bool>(value_ == *other);
  }
  template <typename U = T, typename = std::enable_if_t<detail::kComparable<T, U>>>
  bool operator!=(const Optional<U>& other) const {
    return !(*this == other);
  }

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
    type_index_ = kTypeIndex;
  }
  [[noreturn]] static void ThrowEmpty() { FFI_THROW(RuntimeError) << "Bad optional access"; }

  /*! \brief What a TVMFFIAny holding the value would say (see kAnyPayloadIndex). */
  static constexpr int32_t kTypeIndex = detail::kAnyPayloadIndex<T>;
  /*! \brief Whether the value sits 8 bytes in, where a TVMFFIAny holds it. */
  static constexpr bool kAnyPayload = kTypeIndex != kTVMFFIAny;
  int32_t type_index_ = kTVMFFINone;  // kTVMFFINone: empty; else kTypeIndex and value_ is alive
  union {
    alignas(kAnyPayload ? 8 : alignof(T)) T value_;
  };
};

/*! \brief Whether `T` is an Optional (TVM-FFI's name). */
template <typename T>
inline constexpr bool is_optional_type_v = false;
template <typename T>
inline constexpr bool is_optional_type_v<Optional<T>> = true;

namespace detail {
/*! \brief Selects the general Optional (a value and a flag) for CastResult. */
struct CastResultTag {};
/*!
 * \brief What TypeTraits<T>::TryCastFromAnyView returns: a `T`, or nothing when the value does not
 * convert. Always a value and a flag, so that a null reference (None converted to a nullable
 * class) is a value here, where in Optional<Ref> it would be nothing.
 */
template <typename T>
using CastResult = Optional<T, CastResultTag>;
}  // namespace detail

template <typename T>
class Arc;

/*! \brief Whether `T` is a reference class (an Optional of one is not), TVM-FFI's name. */
template <typename T>
inline constexpr bool use_object_ref_optional_v =
    std::is_base_of_v<ObjectRef, T> && !is_optional_type_v<T>;
/*! \brief Whether `T` is an ObjectPtr. */
template <typename T>
inline constexpr bool is_object_ptr_type_v = false;
template <typename U>
inline constexpr bool is_object_ptr_type_v<ObjectPtr<U>> = true;
/*! \brief Whether `T` is an Arc. */
template <typename T>
inline constexpr bool is_arc_type_v = false;
template <typename U>
inline constexpr bool is_arc_type_v<Arc<U>> = true;
/*!
 * \brief Whether Optional<T> is one pointer, null meaning nothing: for reference classes, ObjectPtr
 * and Arc (TVM-FFI's name).
 */
template <typename T>
inline constexpr bool use_object_ptr_optional_v =
    use_object_ref_optional_v<T> || is_object_ptr_type_v<T> || is_arc_type_v<T>;

namespace detail {
/*! \brief The object type a pointer-sized Optional<T> points to. */
template <typename T>
struct PointerOptionalTarget {
  using Type = typename T::ContainerType;
};
template <typename U>
struct PointerOptionalTarget<ObjectPtr<U>> {
  using Type = U;
};
template <typename U>
struct PointerOptionalTarget<Arc<U>> {
  using Type = U;
};
}  // namespace detail

/*!
 * \brief An Optional of a reference class, ObjectPtr or Arc is the reference itself, null meaning
 * nothing: one pointer wide, as TVM-FFI's. So a null reference of a nullable class is nothing too.
 * `->` reaches the object as the reference's own `->` does (`opt->field`), `same_as` compares
 * identity, and `==` compares values where the class defines `==`, else identity.
 */
template <typename T>
class Optional<T, std::enable_if_t<use_object_ptr_optional_v<T>>>
    : public detail::OptionalComparisons<Optional<T>, T> {
 public:
  /*! \brief The object type `T` points to. */
  using ContainerType = typename detail::PointerOptionalTarget<T>::Type;

  /*! \brief Nothing. */
  Optional() noexcept : data_(Null()) {}
  Optional(std::nullopt_t) noexcept : data_(Null()) {}
  /*! \brief Nothing, from `nullptr`. */
  template <typename N, typename = std::enable_if_t<std::is_null_pointer_v<N>>>
  Optional(N) noexcept : data_(Null()) {}
  /*! \brief `value` (nothing when it is a null reference). */
  Optional(T value) : data_(std::move(value)) {}
  /*! \brief The value of a std::optional, if it has one. */
  template <typename U, typename = std::enable_if_t<std::is_same_v<U, T>>>
  Optional(std::optional<U> value) : data_(value.has_value() ? *std::move(value) : Null()) {}
  /*! \brief The value of a CastResult, if it has one. */
  Optional(detail::CastResult<T> value) : data_(value.has_value() ? *std::move(value) : Null()) {}
  Optional(const Optional&) = default;
  Optional(Optional&&) noexcept = default;
  Optional& operator=(const Optional&) = default;
  Optional& operator=(Optional&& other) noexcept {
    data_ = std::move(other.data_);
    return *this;
  }
  /*! \brief Holds `value` instead. */
  Optional& operator=(T value) {
    data_ = std::move(value);
    return *this;
  }
  /*! \brief Holds nothing. */
  Optional& operator=(std::nullopt_t) {
    reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) {
    reset();
    return *this;
  }

  /*! \brief Whether a value is present. */
  bool has_value() const noexcept { return Address() != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  /*! \brief The value; throws RuntimeError when there is none. */
  const T& value() const& {
    if (!has_value()) ThrowEmpty();
    return data_;
  }
  T value() && {
    if (!has_value()) ThrowEmpty();
    return std::move(data_);
  }
  /*! \brief The value, or `fallback` when there is none. */
  template <typename U = T>
  T value_or(U&& fallback) const {
    return has_value() ? data_ : T(std::forward<U>(fallback));
  }
  /*! \brief The value (unchecked: a null reference when there is none). */
  const T& operator*() const& noexcept { return data_; }
  T& operator*() & noexcept { return data_; }
  T&& operator*() && noexcept { return std::move(data_); }
  /*! \brief The object, as the reference's (or pointer's) `->` gives it; null when nothing. */
  auto operator->() const { return data_.operator->(); }
  /*! \brief The object, or null. */
  const ContainerType* get() const { return static_cast<const ContainerType*>(Address()); }
  /*! \brief Drops the value, if any. */
  void reset() { data_ = Null(); }

  /*! \brief Whether both hold the same object, or both nothing. */
  bool same_as(const Optional& other) const { return Address() == other.Address(); }
  /*! \brief Whether this holds the object `other` refers to (or nothing, for a null `other`). */
  bool same_as(const ObjectRef& other) const { return Address() == other.get(); }
  /*! \brief Number of strong references to the object (0 when there is none). */
  uint32_t use_count() const { return data_.use_count(); }
  /*! \brief Whether this is the only strong reference to the object. */
  bool unique() const { return data_.use_count() == 1; }
  /*! \brief As ObjectRef::as: the object as a `const U*`, or the reference as a std::optional<U>.
   */
  template <typename U>
  auto as() const {
    return data_.template as<U>();
  }

  using detail::OptionalComparisons<Optional, T>::operator==;
  using detail::OptionalComparisons<Optional, T>::operator!=;
  /*!
   * \brief Equal when both are empty, or both hold equal values (`T`'s `==`, else the same
   * object).
   */
  bool operator==(const Optional& other) const {
    if (has_value() != other.has_value()) return false;
    if (!has_value()) return true;
    if constexpr (detail::kComparable<T, T>) {
      return static_cast<bool>(data_ == other.data_);
    } else {
      return same_as(other);
    }
  }
  bool operator!=(const Optional& other) const { return !(*this == other); }

 private:
  static T Null() {
    if constexpr (std::is_base_of_v<ObjectRef, T>) {
      return detail::ObjectUnsafe::RefFromOwnedHeader<T>(nullptr);
    } else if constexpr (std::is_constructible_v<T, std::nullptr_t>) {
      return T(nullptr);  // ObjectPtr
    } else {
      return T(UnsafeInit{});  // Arc: null only here, where it means nothing
    }
  }
  /*! \brief The object, or null (a Tuple's own get() reads an element, so not that). */
  const Object* Address() const noexcept {
    if constexpr (std::is_base_of_v<ObjectRef, T>) {
      return static_cast<const ObjectRef&>(data_).get();
    } else {
      return data_.get();
    }
  }
  [[noreturn]] static void ThrowEmpty() { FFI_THROW(RuntimeError) << "Bad optional access"; }

  T data_;
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

// The Optionals laid out as an Any: narrow numbers, String/Bytes/Variant/Expected, nested ones.
#include "detail/optional_any_layout.h"

#endif  // FFI_OPTIONAL_H_
