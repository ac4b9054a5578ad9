/*
 * ffi/expected.h - Expected<T>: a value of type T or an Error, for error handling without
 * exceptions.
 *
 *   Expected<int> Parse(String s) {
 *     if (s.empty()) return Unexpected(Error("ValueError", "empty"));
 *     return 42;
 *   }
 *   Expected<int> r = Parse("1");
 *   if (r.is_ok()) use(r.value()); else report(r.error());
 *
 * In the ABI an Expected is its content: the value itself, or the Error object (type index
 * kTVMFFIError), returned normally (return code 0). A typed function returning Expected<T> thus
 * returns an Error object rather than raising it; Function::CallExpected<T> turns both a raised
 * error and a returned Error into an Expected.
 */
#ifndef FFI_EXPECTED_H_
#define FFI_EXPECTED_H_

#include <string>
#include <type_traits>
#include <utility>

#include "any.h"
#include "error.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief An error wrapped to make an Expected hold it: `return Unexpected(Error(...));`. */
template <typename E>
class Unexpected {
 public:
  static_assert(std::is_base_of_v<Error, E>, "Unexpected holds an ffi::Error");
  explicit Unexpected(E error) : error_(std::move(error)) {}
  const E& error() const& noexcept { return error_; }
  E& error() & noexcept { return error_; }
  E&& error() && noexcept { return std::move(error_); }

 private:
  E error_;
};
template <typename E>
Unexpected(E) -> Unexpected<E>;

template <typename T>
class Expected;

namespace detail {
template <typename T>
inline constexpr bool kIsExpected = false;
template <typename T>
inline constexpr bool kIsExpected<Expected<T>> = true;
template <typename T>
inline constexpr bool kIsUnexpected = false;
template <typename E>
inline constexpr bool kIsUnexpected<Unexpected<E>> = true;

/*! \brief The error an Expected holds, thrown by value() and read by error(). */
inline Error ErrorIn(const Any& data) {
  return ObjectUnsafe::RefFromBorrowedHeader<Error>(data.raw()->v_obj);
}
[[noreturn]] inline void ThrowBadExpectedAccess() {
  FFI_THROW(RuntimeError) << "Bad expected access: contains value, not error";
}

/*!
 * \brief What Expected<T> and Expected<void> share: the one Any holding the result or an Error,
 * the error constructors and the error-side queries.
 */
class ExpectedBase {
 public:
  /*! \brief An error. */
  ExpectedBase(Error error) : data_(Any(std::move(error))) {}
  /*! \brief The error `unexpected` holds. */
  template <typename E>
  ExpectedBase(Unexpected<E> unexpected) : data_(Any(Error(std::move(unexpected).error()))) {}

  /*! \brief The stored type index (kTVMFFIError for an error). */
  int32_t type_index() const noexcept { return data_.type_index(); }
  /*! \brief Whether it holds a value (or, for Expected<void>, success). */
  bool is_ok() const noexcept { return data_.type_index() != kTVMFFIError; }
  /*! \brief Whether it holds an error. */
  bool is_err() const noexcept { return data_.type_index() == kTVMFFIError; }
  /*! \brief Same as is_ok(). */
  bool has_value() const noexcept { return is_ok(); }
  /*! \brief The error; RuntimeError when it holds none. */
  Error error() const {
    if (FFI_UNLIKELY(is_ok())) ThrowBadExpectedAccess();
    return ErrorIn(data_);
  }
  /*! \brief The content as it travels in the ABI. */
  const Any& data() const& { return data_; }
  Any&& data() && { return std::move(data_); }

 protected:
  ExpectedBase() = default;
  explicit ExpectedBase(Any data) : data_(std::move(data)) {}
  /*! \brief Throws the error when it holds one. */
  void ThrowIfError() const {
    if (FFI_UNLIKELY(is_err())) throw ErrorIn(data_);
  }

  Any data_;  // the value (None for Expected<void>), or an Error
};
}  // namespace detail

/*! \brief A `T` or an Error; stored as one Any holding either. */
template <typename T>
class Expected : public detail::ExpectedBase {
 public:
  static_assert(!std::is_void_v<T> || std::is_same_v<T, void>, "use Expected<void>");
  static_assert(!std::is_base_of_v<Error, T>, "Expected<Error> is not allowed; use Error");

  /*! \brief A value. */
  Expected(T value) : ExpectedBase(Any(std::move(value))) {}
  /*! \brief A value of a type converting to `T`. */
  template <typename U,
            typename = std::enable_if_t<
                !detail::kIsExpected<std::decay_t<U>> && !detail::kIsUnexpected<std::decay_t<U>> &&
                !std::is_base_of_v<Error, std::decay_t<U>> && !std::is_same_v<std::decay_t<U>, T> &&
                std::is_convertible_v<U, T>>>
  Expected(U&& value) : ExpectedBase(Any(T(std::forward<U>(value)))) {}
  using ExpectedBase::ExpectedBase;  // an Error, or an Unexpected's

  /*! \brief The value; throws the error when it holds one. */
  T value() const {
    ThrowIfError();
    return data_.cast<T>();
  }
  /*! \brief The value, or `fallback` when it holds an error. */
  template <typename U = T>
  T value_or(U&& fallback) const {
    if (is_ok()) return data_.cast<T>();
    return T(std::forward<U>(fallback));
  }

 private:
  struct NoneTag {};
  explicit Expected(NoneTag) noexcept {}  // None: only an empty Optional<Expected<T>> holds it
  friend struct detail::CellOptionalAccess<Expected<T>>;
};

namespace detail {
/*! \brief Optional<Expected<T>> is the Expected's Any, None when it holds nothing. */
template <typename T>
inline constexpr bool kCellOptional<Expected<T>> = true;
template <typename T>
struct CellOptionalAccess<Expected<T>> {
  static bool IsNone(const Expected<T>& v) noexcept { return v.data_.type_index() == kTVMFFINone; }
  static void SetNone(Expected<T>& v) noexcept { v.data_ = Any(); }
  static Expected<T> None() noexcept { return Expected<T>(typename Expected<T>::NoneTag()); }
};
}  // namespace detail

/*! \brief Success (None) or an Error. */
template <>
class Expected<void> : public detail::ExpectedBase {
 public:
  /*! \brief Success. */
  Expected() = default;
  using ExpectedBase::ExpectedBase;  // an Error, or an Unexpected's
  /*! \brief Throws the error when it holds one. */
  void value() const { ThrowIfError(); }
};

/*! \brief Expected<T> travels as its value or its Error; either converts back. */
template <typename T>
struct TypeTraits<Expected<T>> : TypeTraitsBase {
  static void CopyToAnyView(const Expected<T>& v, TVMFFIAny* out) { *out = *v.data().raw(); }
  static void MoveToAny(Expected<T> v, TVMFFIAny* out) { *out = std::move(v).data().release(); }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFIError || ValueTraits::CheckAnyStrict(src);
  }
  static detail::CastResult<Expected<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIError) {
      return Expected<T>(ObjectUnsafe::RefFromBorrowedHeader<Error>(src->v_obj));
    }
    if constexpr (std::is_void_v<T>) {
      if (src->type_index == kTVMFFINone) return Expected<T>();
    } else {
      if (auto v = ValueTraits::TryCastFromAnyView(src)) return Expected<T>(*std::move(v));
    }
    return std::nullopt;
  }
  static constexpr auto TypeStr() {
    return ConstString("Expected<") + ValueTraits::TypeStr() + ">";
  }
  /*! \brief The value's schema, then the error's. */
  static std::string TypeSchema() {
    return detail::SchemaWithArgs<T>::Of("Expected", R"({"type":"ffi.Error"})");
  }

 private:
  using ValueTraits = TypeTraits<std::conditional_t<std::is_void_v<T>, std::nullptr_t, T>>;
  using ObjectUnsafe = detail::ObjectUnsafe;
};

namespace detail {
/*! \brief Moving an Expected's content in and out of a raw ABI value, unchecked. */
struct ExpectedUnsafe {
  /*! \brief Takes ownership of `raw`, which must hold a `T` or an Error. */
  template <typename T>
  static Expected<T> MoveFromTVMFFIAny(TVMFFIAny raw) {
    Any data = Any::FromRaw(raw);
    if (data.type_index() == kTVMFFIError) return Expected<T>(data.cast<Error>());
    if constexpr (std::is_void_v<T>) {
      return Expected<void>();
    } else {
      return Expected<T>(std::move(data).cast<T>());
    }
  }
  /*! \brief Gives up the content as an owned raw value. */
  template <typename T>
  static TVMFFIAny MoveToTVMFFIAny(Expected<T>&& result) {
    return std::move(result).data().release();
  }
  /*! \brief The content. */
  template <typename T>
  static const Any& GetData(const Expected<T>& result) noexcept {
    return result.data();
  }
};
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXPECTED_H_
