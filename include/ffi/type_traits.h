/*
 * ffi/type_traits.h - how C++ values go into and come out of a TVMFFIAny.
 *
 * Brings the TypeTraits protocol (traits_protocol.h) and the traits of object references
 * (object_ref_traits.h), and defines the traits of plain values (numbers, bool, pointers, DLDevice,
 * DLDataType, DLTensor*) and of Optional; strings, Function and Tensor add theirs next to their
 * definitions. Code that converts values includes this header, not its parts.
 */
#ifndef FFI_TYPE_TRAITS_H_
#define FFI_TYPE_TRAITS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "const_string.h"
#include "detail/parse.h"
#include "object_ref_traits.h"
#include "optional.h"
#include "traits_protocol.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The registry's record of a type (TVM-FFI's name for TVMFFITypeInfo). */
using TypeInfo = TVMFFITypeInfo;

namespace detail {
/*! \brief Traits shared by values stored in the payload with one type index. */
template <typename T, int32_t Index>
struct PODTraitsBase : TypeTraitsBase {
  static constexpr int32_t field_static_type_index = Index;
  static bool CheckAnyStrict(const TVMFFIAny* src) { return src->type_index == Index; }
  /*! \brief A value's schema is its TypeStr: {"type":"int"}, {"type":"Device"}, ... */
  static std::string TypeSchema() {
    return SchemaOfKey(std::string_view(TypeTraits<T>::TypeStr()));
  }
};
}  // namespace detail

namespace detail {
/*! \brief Throws OverflowError for an unsigned value past INT64_MAX (an Any holds an int64). */
[[noreturn]] inline void ThrowIntTooLarge(uint64_t value) {
  FFI_THROW(OverflowError) << "Integer value " << value
                           << " is too large to fit in int64_t. Consider explicitly casting to "
                              "int64_t first if this is intentional.";
}
}  // namespace detail

/*!
 * \brief What the traits of every integer-like type share (TVM-FFI's name, so that a user's own
 * integer type can derive its traits from it): stored as kTVMFFIInt, read from an int or a bool.
 */
template <typename Int>
struct TypeTraitsIntBase : detail::PODTraitsBase<Int, kTVMFFIInt> {
  /*! \brief Stores `v` as an int. */
  static void CopyInt64ToAnyView(int64_t v, TVMFFIAny* out) {
    out->type_index = kTVMFFIInt;
    out->zero_padding = 0;
    out->v_int64 = v;
  }
  static detail::CastResult<Int> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIInt || src->type_index == kTVMFFIBool) {
      return static_cast<Int>(src->v_int64);
    }
    return std::nullopt;
  }
  /*! \brief The value of an Any that CheckAnyStrict accepted. */
  static Int CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return static_cast<Int>(src->v_int64);
  }
  static Int MoveFromAnyAfterCheck(TVMFFIAny* src) { return CopyFromAnyViewAfterCheck(src); }
  static constexpr auto TypeStr() { return ConstString("int"); }
};

/*!
 * \brief Integers (not bool) and enums (by their value): kTVMFFIInt; a bool converts. An unsigned
 * 64-bit value past INT64_MAX is an OverflowError, as in TVM-FFI (it would come back negative).
 */
template <typename T>
struct TypeTraits<
    T, std::enable_if_t<(std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>>>
    : TypeTraitsIntBase<T> {
  /*! \brief Enums keep their own storage (any width): recorded as Any, as not an int64. */
  static constexpr int32_t field_static_type_index = std::is_enum_v<T> ? kTVMFFIAny : kTVMFFIInt;
  static void CopyToAnyView(const T& v, TVMFFIAny* out) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      if (v > static_cast<T>(INT64_MAX)) detail::ThrowIntTooLarge(v);
    }
    TypeTraitsIntBase<T>::CopyInt64ToAnyView(static_cast<int64_t>(v), out);
  }
  static void MoveToAny(T v, TVMFFIAny* out) { CopyToAnyView(v, out); }
};

/*! \brief Floating point: kTVMFFIFloat; ints and bools convert. */
template <typename T>
struct TypeTraits<T, std::enable_if_t<std::is_floating_point_v<T>>>
    : detail::PODTraitsBase<T, kTVMFFIFloat> {
  static void CopyToAnyView(const T& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIFloat;
    out->zero_padding = 0;
    out->v_float64 = static_cast<double>(v);
  }
  static void MoveToAny(T v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  static detail::CastResult<T> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIFloat) return static_cast<T>(src->v_float64);
    if (src->type_index == kTVMFFIInt || src->type_index == kTVMFFIBool) {
      return static_cast<T>(src->v_int64);
    }
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("float"); }
};

/*! \brief bool: kTVMFFIBool; an int converts (non-zero is true). */
template <>
struct TypeTraits<bool> : detail::PODTraitsBase<bool, kTVMFFIBool> {
  static void CopyToAnyView(const bool& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIBool;
    out->zero_padding = 0;
    out->v_int64 = v ? 1 : 0;
  }
  static void MoveToAny(bool v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  static detail::CastResult<bool> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIBool || src->type_index == kTVMFFIInt) {
      return src->v_int64 != 0;
    }
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("bool"); }
};

/*!
 * \brief A bool that converts only from a bool: an int does not, as it does to `bool`. For
 * overloads and fallback conversions where an int must take another path.
 */
class StrictBool {
 public:
  /*! \brief From a bool. */
  StrictBool(bool value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  /*! \brief The bool. */
  operator bool() const { return value_; }  // NOLINT(google-explicit-constructor)

 private:
  bool value_;
};

/*! \brief StrictBool: kTVMFFIBool only. */
template <>
struct TypeTraits<StrictBool> : detail::PODTraitsBase<StrictBool, kTVMFFIBool> {
  static void CopyToAnyView(const StrictBool& v, TVMFFIAny* out) {
    TypeTraits<bool>::CopyToAnyView(static_cast<bool>(v), out);
  }
  static void MoveToAny(StrictBool v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  static detail::CastResult<StrictBool> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIBool) return StrictBool(src->v_int64 != 0);
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("bool"); }
};

/*! \brief void*: kTVMFFIOpaquePtr, null too (as the reference stores it); None reads as nullptr. */
template <>
struct TypeTraits<void*> : detail::PODTraitsBase<void*, kTVMFFIOpaquePtr> {
  static void CopyToAnyView(void* const& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIOpaquePtr;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_ptr = v;
  }
  static void MoveToAny(void* v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  static detail::CastResult<void*> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIOpaquePtr) return src->v_ptr;
    if (src->type_index == kTVMFFINone) return static_cast<void*>(nullptr);
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("void*"); }
};

/*! \brief nullptr: None. */
template <>
struct TypeTraits<std::nullptr_t> : detail::PODTraitsBase<std::nullptr_t, kTVMFFINone> {
  static void CopyToAnyView(const std::nullptr_t&, TVMFFIAny* out) { detail::SetNone(out); }
  static void MoveToAny(std::nullptr_t, TVMFFIAny* out) { detail::SetNone(out); }
  static detail::CastResult<std::nullptr_t> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return nullptr;
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("None"); }
};

namespace detail {
/*! \brief The text of a string value (small, object or borrowed C string); false for others. */
inline bool StringPayload(const TVMFFIAny* src, TVMFFIByteArray* text) {
  if (src->type_index == kTVMFFISmallStr) {
    *text = TVMFFIByteArray{src->v_bytes, src->small_str_len};
  } else if (src->type_index == kTVMFFIStr) {
    *text = *TVMFFIBytesGetByteArrayPtr(src->v_obj);
  } else if (src->type_index == kTVMFFIRawStr && src->v_c_str != nullptr) {
    *text = TVMFFIByteArray{src->v_c_str, std::char_traits<char>::length(src->v_c_str)};
  } else {
    return false;
  }
  return true;
}
}  // namespace detail

/*! \brief DLDevice: kTVMFFIDevice; a string naming a device converts. */
template <>
struct TypeTraits<DLDevice> : detail::PODTraitsBase<DLDevice, kTVMFFIDevice> {
  static void CopyToAnyView(const DLDevice& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIDevice;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_device = v;
  }
  static void MoveToAny(DLDevice v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  /*! \brief A device, or a string naming one ("cuda:1"), as in the reference. */
  static detail::CastResult<DLDevice> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIDevice) return src->v_device;
    TVMFFIByteArray text;
    DLDevice out;
    if (detail::StringPayload(src, &text) &&
        detail::TryParseDevice(std::string_view(text.data, text.size), &out)) {
      return out;
    }
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("Device"); }
};

/*! \brief DLDataType: kTVMFFIDataType. */
template <>
struct TypeTraits<DLDataType> : detail::PODTraitsBase<DLDataType, kTVMFFIDataType> {
  static void CopyToAnyView(const DLDataType& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIDataType;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_dtype = v;
  }
  static void MoveToAny(DLDataType v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  /*! \brief A dtype, or a string naming one ("float32"), as in the reference; a bad name throws. */
  static detail::CastResult<DLDataType> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIDataType) return src->v_dtype;
    TVMFFIByteArray text;
    if (!detail::StringPayload(src, &text)) return std::nullopt;
    DLDataType out;
    FFI_CHECK_SAFE_CALL(TVMFFIDataTypeFromString(&text, &out));
    return out;
  }
  static constexpr auto TypeStr() { return ConstString("DataType"); }
};

/*!
 * \brief DLTensor*: a borrowed kTVMFFIDLTensorPtr; the DLTensor inside a Tensor object also
 * converts (a view of it). Only views can be made, never an owned value.
 */
template <>
struct TypeTraits<DLTensor*> : detail::PODTraitsBase<DLTensor*, kTVMFFIDLTensorPtr> {
  static void CopyToAnyView(DLTensor* const& v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    out->type_index = kTVMFFIDLTensorPtr;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_ptr = v;
  }
  static detail::CastResult<DLTensor*> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIDLTensorPtr) return static_cast<DLTensor*>(src->v_ptr);
    if (src->type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(src->v_obj);
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("DLTensor*"); }
};

/*! \brief Optional<T>: None or whatever converts to `T`. */
template <typename T>
struct TypeTraits<Optional<T>> : TypeTraitsBase {
  /*! \brief Held by an Any when a `T` may be. */
  static constexpr bool storage_enabled = detail::storage_enabled_v<T>;
  static void CopyToAnyView(const Optional<T>& v, TVMFFIAny* out) {
    if (!v.has_value()) return detail::SetNone(out);
    TypeTraits<T>::CopyToAnyView(*v, out);
  }
  static void MoveToAny(Optional<T> v, TVMFFIAny* out) {
    if (!v.has_value()) return detail::SetNone(out);
    TypeTraits<T>::MoveToAny(*std::move(v), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFINone || TypeTraits<T>::CheckAnyStrict(src);
  }
  static detail::CastResult<Optional<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return Optional<T>();
    if (auto v = TypeTraits<T>::TryCastFromAnyView(src)) return Optional<T>(*std::move(v));
    return std::nullopt;
  }
  static Optional<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return Optional<T>();
    return Optional<T>(detail::CopyFromAnyViewAfterCheck<T>(src));
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    return detail::MismatchTypeInfo<T>(src);
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<T>::Of("Optional"); }
  static constexpr auto TypeStr() {
    return ConstString("Optional<") + TypeTraits<T>::TypeStr() + ">";
  }
};

/*!
 * \brief The base of traits for a type `T` made only from other values (TVM-FFI's name): a
 * value converts when it converts to one of `FallbackTypes`, tried in order, and the trait's
 * `static T ConvertFallbackValue(Fallback)` makes the `T`. An Any never holds a `T` itself:
 *
 *     template <> struct TypeTraits<half*> : FallbackOnlyTraitsBase<half*, DLTensor*, int64_t> {
 *       static half* ConvertFallbackValue(DLTensor* t) { return static_cast<half*>(t->data); }
 *       static half* ConvertFallbackValue(int64_t address) { ... }
 *       static constexpr auto TypeStr() { return ConstString("half*"); }
 *     };
 */
template <typename T, typename... FallbackTypes>
struct FallbackOnlyTraitsBase : TypeTraitsBase {
  /*! \brief Nothing stores a `T`. */
  static constexpr bool storage_enabled = false;
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  static detail::CastResult<T> TryCastFromAnyView(const TVMFFIAny* src) {
    return TryFallbackTypes<FallbackTypes...>(src);
  }
  /*! \brief The first of `First, Rest...` that `src` converts to, made into a `T`. */
  template <typename First, typename... Rest>
  static detail::CastResult<T> TryFallbackTypes(const TVMFFIAny* src) {
    static_assert(!std::is_same_v<First, bool>,
                  "bool as a fallback type takes every int; use StrictBool");
    if (auto value = TypeTraits<First>::TryCastFromAnyView(src)) {
      return TypeTraits<T>::ConvertFallbackValue(First(*std::move(value)));
    }
    if constexpr (sizeof...(Rest) > 0) {
      return TryFallbackTypes<Rest...>(src);
    } else {
      return std::nullopt;
    }
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_TYPE_TRAITS_H_
