/*
 * ffi/type_traits.h - how C++ values go into and come out of a TVMFFIAny.
 *
 * TypeTraits<T> is the single place that knows how a type is stored in the ABI value. This header
 * defines the primary template, the traits of plain values (numbers, bool, pointers, DLDevice,
 * DLDataType, DLTensor*), of object references and of Optional; strings, Function and Tensor add
 * theirs next to their definitions. Any, AnyView and typed functions use nothing else.
 *
 * A specialization provides:
 *   CopyToAnyView(const T&, TVMFFIAny*)   borrowed view of the value
 *   MoveToAny(T, TVMFFIAny*)              owned value (one reference when it is an object)
 *   CheckAnyStrict(const TVMFFIAny*)      whether the value is stored exactly as a T
 *   TryCastFromAnyView(const TVMFFIAny*)  detail::CastResult<T>: the value, with the permitted
 *                                         conversions, or nothing
 *   TypeStr()                             the name used in error messages and signatures, a
 *                                         constexpr ConstString (const_string.h)
 */
#ifndef FFI_TYPE_TRAITS_H_
#define FFI_TYPE_TRAITS_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

#include "const_string.h"
#include "detail/parse.h"
#include "object.h"
#include "optional.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief The type key of object type `T` with the "ffi." prefix dropped ("Tensor", "my.Box"). */
template <typename T>
constexpr auto ObjectTypeName() {
  constexpr std::string_view key = T::_type_key;
  constexpr std::string_view name = key.substr(0, 4) == "ffi." ? key.substr(4) : key;
  return ConstString<name.size()>::FromChars(name.data());
}
}  // namespace detail

/*! \brief The registry's record of a type (TVM-FFI's name for TVMFFITypeInfo). */
using TypeInfo = TVMFFITypeInfo;

/*! \brief Conversion of `T` to and from TVMFFIAny; specialized per type. */
template <typename T, typename = void>
struct TypeTraits {
  /*! \brief False for types with no conversion. */
  static constexpr bool enabled = false;
};

/*!
 * \brief The base of every specialization of TypeTraits (ours, and those written for TVM-FFI's
 * headers): the type converts (`enabled`, and TVM-FFI's name for it, `convert_enabled`) and may
 * be stored in an Any (`storage_enabled`, which views set to false).
 */
struct TypeTraitsBase {
  /*! \brief The type converts to and from TVMFFIAny. */
  static constexpr bool enabled = true;
  /*! \brief The same, under TVM-FFI's name. */
  static constexpr bool convert_enabled = true;
  /*! \brief A value of the type may be held by an Any (false for views such as RValueRef). */
  static constexpr bool storage_enabled = true;
};

namespace detail {
/*!
 * \brief Whether a `T` may be held by an Any: its traits' `storage_enabled` where they say, else
 * whether it converts at all (TVM-FFI's `details::storage_enabled_v`).
 */
template <typename T, typename = void>
inline constexpr bool storage_enabled_v = TypeTraits<T>::enabled;
template <typename T>
inline constexpr bool storage_enabled_v<T, std::void_t<decltype(TypeTraits<T>::storage_enabled)>> =
    TypeTraits<T>::storage_enabled;
}  // namespace detail

namespace detail {
/*! \brief A TVMFFIAny holding None. */
inline void SetNone(TVMFFIAny* out) {
  out->type_index = kTVMFFINone;
  out->zero_padding = 0;
  out->v_int64 = 0;
}

/*!
 * \brief The name of what a value holds, in the vocabulary of TypeStr: "int", "str", "Tensor"...
 * Object kinds use their type key with the "ffi." prefix dropped.
 */
inline std::string TypeIndexToName(int32_t index) {
  std::string_view name;
  switch (index) {
    case kTVMFFINone:
      name = "None";
      break;
    case kTVMFFIInt:
      name = "int";
      break;
    case kTVMFFIBool:
      name = "bool";
      break;
    case kTVMFFIFloat:
      name = "float";
      break;
    case kTVMFFIOpaquePtr:
      name = "void*";
      break;
    case kTVMFFIDataType:
      name = "DataType";
      break;
    case kTVMFFIDevice:
      name = "Device";
      break;
    case kTVMFFIDLTensorPtr:
      name = "DLTensor*";
      break;
    case kTVMFFIRawStr:
    case kTVMFFISmallStr:
    case kTVMFFIStr:
      name = "str";
      break;
    case kTVMFFIByteArrayPtr:
    case kTVMFFISmallBytes:
    case kTVMFFIBytes:
      name = "bytes";
      break;
    case kTVMFFIObjectRValueRef:
      name = "ObjectRValueRef";
      break;
    default:
      if (const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index)) {
        name = ByteView(info->type_key);
        if (name.substr(0, 4) == "ffi.") name.remove_prefix(4);
      } else {
        char buf[32];
        return std::string(
            buf, static_cast<size_t>(std::snprintf(buf, sizeof(buf), "<type index %d>", index)));
      }
  }
  return std::string(name);
}

/*! \brief Traits shared by values stored in the payload with one type index. */
template <typename T, int32_t Index>
struct PODTraitsBase : TypeTraitsBase {
  static bool CheckAnyStrict(const TVMFFIAny* src) { return src->type_index == Index; }
};
}  // namespace detail

/*! \brief Integers (not bool) and enums (by their value): kTVMFFIInt; a bool converts. */
template <typename T>
struct TypeTraits<
    T, std::enable_if_t<(std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>>>
    : detail::PODTraitsBase<T, kTVMFFIInt> {
  static void CopyToAnyView(const T& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIInt;
    out->zero_padding = 0;
    out->v_int64 = static_cast<int64_t>(v);
  }
  static void MoveToAny(T v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  static detail::CastResult<T> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIInt || src->type_index == kTVMFFIBool) {
      return static_cast<T>(src->v_int64);
    }
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("int"); }
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

/*!
 * \brief Whether reference class `T` converts through the generic object-reference traits below.
 * Containers whose conversions look at their elements (Array<T>, Map<K, V>, ...) set it to false
 * for their class template and specialize TypeTraits themselves; otherwise both would match.
 */
template <typename T>
inline constexpr bool use_default_type_traits_v = true;

class Any;

/*!
 * \brief Whether every value stored as a `SourceType` is also a valid `TargetType`, so that a
 * container of the one may be shared as a container of the other without looking at its elements
 * (Array<Any> from Array<int>, Map<String, ObjectRef> from Map<String, Tensor>). Containers,
 * Variant and ObjectPtr specialize it next to their definitions; so may a library for its own
 * reference classes.
 */
template <typename TargetType, typename SourceType, typename = void>
inline constexpr bool type_subsumes_v = std::is_same_v<TargetType, SourceType> ||
                                        (std::is_base_of_v<ObjectRef, TargetType> &&
                                         std::is_base_of_v<TargetType, SourceType>);
/*! \brief Any holds every value. */
template <typename SourceType>
inline constexpr bool type_subsumes_v<Any, SourceType> = true;

/*!
 * \brief The conversions of object reference `T` (see below). A class that also converts other
 * values (Shape from a list of integers) specializes TypeTraits on top of these; a specialization
 * that narrows CheckAnyStrict gets it used by TryCastFromAnyView too.
 */
template <typename T>
struct ObjectRefTypeTraitsBase : TypeTraitsBase {
  using Container = typename T::ContainerType;
  static void CopyToAnyView(const T& v, TVMFFIAny* out) {
    TVMFFIObject* h = detail::ObjectUnsafe::HeaderOf(v);
    if (h == nullptr) return detail::SetNone(out);
    out->type_index = h->type_index;
    out->zero_padding = 0;
    out->v_obj = h;
  }
  static void MoveToAny(T v, TVMFFIAny* out) {
    TVMFFIObject* h = detail::ObjectUnsafe::MoveToHeader(std::move(v));
    if (h == nullptr) return detail::SetNone(out);
    out->type_index = h->type_index;
    out->zero_padding = 0;
    out->v_obj = h;
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return T::_type_is_nullable;
    return src->type_index >= kTVMFFIStaticObjectBegin &&
           detail::ObjectUnsafe::FromHeader(src->v_obj)->template IsInstance<Container>();
  }
  static detail::CastResult<T> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!TypeTraits<T>::CheckAnyStrict(src)) return std::nullopt;
    return CopyFromAnyViewAfterCheck(src);
  }
  /*! \brief The value, known to pass CheckAnyStrict (containers use it to read their elements). */
  static T CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return detail::ObjectUnsafe::RefFromBorrowedHeader<T>(
        src->type_index == kTVMFFINone ? nullptr : src->v_obj);
  }
  static constexpr auto TypeStr() { return detail::ObjectTypeName<Container>(); }
};

/*!
 * \brief Object references: the object's own type index; None for a null reference of a nullable
 * class. A value converts when its object is a `T::ContainerType` or derives from it.
 */
template <typename T>
struct TypeTraits<T,
                  std::enable_if_t<std::is_base_of_v<ObjectRef, T> && use_default_type_traits_v<T>>>
    : ObjectRefTypeTraitsBase<T> {};

/*!
 * \brief Traits of a reference class that is also made from other values: a value of the class
 * itself converts as usual, otherwise the first of `FallbackTypes` the value converts to is passed
 * to `TypeTraits<RefT>::ConvertFallbackValue` (one overload per fallback type), in order. Use
 * StrictBool rather than bool as a fallback, or every int would take the bool path.
 *
 * \code
 *   template <>
 *   struct TypeTraits<PrimExpr> : ObjectRefWithFallbackTraitsBase<PrimExpr, int64_t, double> {
 *     static PrimExpr ConvertFallbackValue(int64_t v) { return IntImm(v); }
 *     static PrimExpr ConvertFallbackValue(double v) { return FloatImm(v); }
 *   };
 * \endcode
 */
template <typename RefT, typename... FallbackTypes>
struct ObjectRefWithFallbackTraitsBase : ObjectRefTypeTraitsBase<RefT> {
  static detail::CastResult<RefT> TryCastFromAnyView(const TVMFFIAny* src) {
    if (TypeTraits<RefT>::CheckAnyStrict(src)) {
      return ObjectRefTypeTraitsBase<RefT>::CopyFromAnyViewAfterCheck(src);
    }
    return TryFallbacks<FallbackTypes...>(src);
  }

 private:
  template <typename First, typename... Rest>
  static Optional<RefT> TryFallbacks(const TVMFFIAny* src) {
    static_assert(!std::is_same_v<First, bool>,
                  "bool as a fallback type takes every int; use StrictBool");
    if (auto value = TypeTraits<First>::TryCastFromAnyView(src)) {
      return RefT(TypeTraits<RefT>::ConvertFallbackValue(First(*std::move(value))));
    }
    if constexpr (sizeof...(Rest) > 0) {
      return TryFallbacks<Rest...>(src);
    } else {
      return std::nullopt;
    }
  }
};

namespace detail {
/*! \brief Detects TypeTraits<T>::CopyFromAnyViewAfterCheck. */
template <typename T, typename = void>
constexpr bool kHasCopyAfterCheck = false;
template <typename T>
constexpr bool kHasCopyAfterCheck<
    T, std::void_t<decltype(TypeTraits<T>::CopyFromAnyViewAfterCheck(nullptr))>> = true;

/*!
 * \brief Reads a `T` out of a value already known to pass TypeTraits<T>::CheckAnyStrict, such as
 * an element of an Array<T>: traits that can skip the check (objects, containers) provide
 * CopyFromAnyViewAfterCheck, the others convert as usual.
 */
template <typename T>
T CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
  if constexpr (kHasCopyAfterCheck<T>) {
    return TypeTraits<T>::CopyFromAnyViewAfterCheck(src);
  } else {
    return *TypeTraits<T>::TryCastFromAnyView(src);
  }
}

/*! \brief Detects TypeTraits<T>::GetMismatchTypeInfo. */
template <typename T, typename = void>
constexpr bool kHasMismatchInfo = false;
template <typename T>
constexpr bool
    kHasMismatchInfo<T, std::void_t<decltype(TypeTraits<T>::GetMismatchTypeInfo(nullptr))>> = true;

/*! \brief ", " before every item but the first, for JoinTypeStrs. */
template <size_t I, typename T>
constexpr auto TypeStrListItem() {
  if constexpr (I == 0) {
    return TypeTraits<T>::TypeStr();
  } else {
    return ConstString(", ") + TypeTraits<T>::TypeStr();
  }
}
template <typename... Ts, size_t... I>
constexpr auto JoinTypeStrsImpl(std::index_sequence<I...>) {
  return (ConstString("") + ... + TypeStrListItem<I, Ts>());
}
/*! \brief The TypeStr of each of `Ts`, joined by ", " (at compile time): "int, str". */
template <typename... Ts>
constexpr auto JoinTypeStrs() {
  return JoinTypeStrsImpl<Ts...>(std::index_sequence_for<Ts...>{});
}

/*!
 * \brief What error messages say a value that did not convert to `T` is: its type name, or for a
 * container the first element that did not convert ("Array[index 1: str]"), as TVM-FFI does.
 */
template <typename T>
std::string MismatchTypeInfo(const TVMFFIAny* src) {
  if constexpr (kHasMismatchInfo<T>) {
    return TypeTraits<T>::GetMismatchTypeInfo(src);
  } else {
    return TypeIndexToName(src->type_index);
  }
}
}  // namespace detail

template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int>>
std::optional<T> ObjectRef::as() const {
  if (data_ == nullptr) {
    if constexpr (T::_type_is_nullable)
      return detail::ObjectUnsafe::RefFromBorrowedHeader<T>(nullptr);
    return std::nullopt;
  }
  TVMFFIAny view;
  view.type_index = data_->type_index();
  view.zero_padding = 0;
  view.v_obj = detail::ObjectUnsafe::Header(data_.get());
  // The reference class's own check: an Array<int> also checks its elements.
  if (!TypeTraits<T>::CheckAnyStrict(&view)) return std::nullopt;
  return detail::ObjectUnsafe::RefFromBorrowedHeader<T>(view.v_obj);
}

template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int>>
T ObjectRef::as_or_throw() const {
  std::optional<T> out = as<T>();
  if (FFI_UNLIKELY(!out.has_value())) {
    TVMFFIAny view;
    view.type_index = type_index();
    view.zero_padding = 0;
    view.v_obj = data_ ? detail::ObjectUnsafe::Header(data_.get()) : nullptr;
    FFI_THROW(TypeError) << "Cannot treat type `" << detail::MismatchTypeInfo<T>(&view)
                         << "` as type `" << TypeTraits<T>::TypeStr() << "`";
  }
  return *std::move(out);
}

/*!
 * \brief Pointers to objects (`const MyObj*`, as reflected methods take `self`): a view of the
 * object, which the caller keeps alive; storing one in an Any takes a reference. Null is None.
 */
template <typename T>
struct TypeTraits<T*, std::enable_if_t<std::is_base_of_v<Object, std::remove_cv_t<T>>>>
    : TypeTraitsBase {
  using Obj = std::remove_cv_t<T>;
  static void CopyToAnyView(T* const& v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    out->type_index = v->type_index();
    out->zero_padding = 0;
    out->v_obj = detail::ObjectUnsafe::Header(v);
  }
  static void MoveToAny(T* v, TVMFFIAny* out) {
    CopyToAnyView(v, out);
    if (v != nullptr) detail::ObjectUnsafe::IncRef(out->v_obj);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index >= kTVMFFIStaticObjectBegin &&
           detail::ObjectUnsafe::FromHeader(src->v_obj)->template IsInstance<Obj>();
  }
  static detail::CastResult<T*> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return static_cast<T*>(nullptr);
    if (!CheckAnyStrict(src)) return std::nullopt;
    return static_cast<T*>(static_cast<Obj*>(detail::ObjectUnsafe::FromHeader(src->v_obj)));
  }
  static constexpr auto TypeStr() { return detail::ObjectTypeName<Obj>(); }
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
  static constexpr auto TypeStr() {
    return ConstString("Optional<") + TypeTraits<T>::TypeStr() + ">";
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_TYPE_TRAITS_H_
