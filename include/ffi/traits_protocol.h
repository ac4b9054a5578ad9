/*
 * ffi/traits_protocol.h - the TypeTraits protocol: how C++ values go into and come out of a
 * TVMFFIAny.
 *
 * TypeTraits<T> is the single place that knows how a type is stored in the ABI value. This header
 * defines the primary template, TypeTraitsBase (the base of every specialization) and the helpers
 * that read a value through any type's traits. The specializations live elsewhere: plain values and
 * Optional in type_traits.h, object references in object_ref_traits.h (both included by
 * type_traits.h), strings, Function and Tensor next to their definitions. Any, AnyView and typed
 * functions use nothing else.
 *
 * A specialization provides:
 *   CopyToAnyView(const T&, TVMFFIAny*)   borrowed view of the value
 *   MoveToAny(T, TVMFFIAny*)              owned value (one reference when it is an object)
 *   CheckAnyStrict(const TVMFFIAny*)      whether the value is stored exactly as a T
 *   TryCastFromAnyView(const TVMFFIAny*)  detail::CastResult<T>: the value, with the permitted
 *                                         conversions, or nothing
 *   TypeStr()                             the name used in error messages and signatures, a
 *                                         constexpr ConstString (const_string.h)
 *   TypeSchema()                          the JSON type schema recorded in function and field
 *                                         metadata, e.g. {"type":"ffi.Array","args":[...]};
 *                                         every built-in trait has one (detail/type_schema.h
 *                                         falls back on TypeStr for a trait without)
 */
#ifndef FFI_TRAITS_PROTOCOL_H_
#define FFI_TRAITS_PROTOCOL_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "const_string.h"
#include "object.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Conversion of `T` to and from TVMFFIAny; specialized per type. */
template <typename T, typename = void>
struct TypeTraits {
  /*! \brief False for types with no conversion. */
  static constexpr bool enabled = false;
  /*! \brief The same, under TVM-FFI's name. */
  static constexpr bool convert_enabled = false;
  /*! \brief Nor can an Any hold one. */
  static constexpr bool storage_enabled = false;
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
  /*!
   * \brief The type index an object field of the type is recorded with (TVMFFIFieldInfo), which
   * hosts read to know how the field is stored (they copy and release the fields of types defined
   * in Python that way): the kind for values (Int, Float, Device, ...) and for Array, List, Shape
   * and Function, DLTensorPtr for tensors, Object for other references and object pointers, and
   * Any (this default) where the value may take several forms (Optional, Variant, Any, String
   * and Bytes, which hold short values inline) or the storage is not one of those.
   */
  static constexpr int32_t field_static_type_index = kTVMFFIAny;
};

/*!
 * \brief The registered type keys of the built-in types, by the name of their type index (TVM-FFI's
 * table): `StaticTypeKey::kTVMFFITensor` is "ffi.Tensor".
 */
struct StaticTypeKey {
  static constexpr const char* kTVMFFIAny = "Any";
  static constexpr const char* kTVMFFINone = "None";
  static constexpr const char* kTVMFFIBool = "bool";
  static constexpr const char* kTVMFFIInt = "int";
  static constexpr const char* kTVMFFIFloat = "float";
  static constexpr const char* kTVMFFIOpaquePtr = "void*";
  static constexpr const char* kTVMFFIDataType = "DataType";
  static constexpr const char* kTVMFFIDevice = "Device";
  static constexpr const char* kTVMFFIDLTensorPtr = "DLTensor*";
  static constexpr const char* kTVMFFIRawStr = "const char*";
  static constexpr const char* kTVMFFIByteArrayPtr = "TVMFFIByteArray*";
  static constexpr const char* kTVMFFIObjectRValueRef = "ObjectRValueRef";
  static constexpr const char* kTVMFFISmallStr = "ffi.SmallStr";
  static constexpr const char* kTVMFFISmallBytes = "ffi.SmallBytes";
  static constexpr const char* kTVMFFIUnchanged = "ffi.Unchanged";
  static constexpr const char* kTVMFFIError = "ffi.Error";
  static constexpr const char* kTVMFFIBytes = "ffi.Bytes";
  static constexpr const char* kTVMFFIStr = "ffi.String";
  static constexpr const char* kTVMFFIBigInt = "ffi.BigInt";
  static constexpr const char* kTVMFFIShape = "ffi.Shape";
  static constexpr const char* kTVMFFITensor = "ffi.Tensor";
  static constexpr const char* kTVMFFIObject = "ffi.Object";
  static constexpr const char* kTVMFFIFunction = "ffi.Function";
  static constexpr const char* kTVMFFIArray = "ffi.Array";
  static constexpr const char* kTVMFFIList = "ffi.List";
  static constexpr const char* kTVMFFIMap = "ffi.Map";
  static constexpr const char* kTVMFFIModule = "ffi.Module";
  static constexpr const char* kTVMFFIDict = "ffi.Dict";
  static constexpr const char* kTVMFFIVisitInterrupt = "ffi.VisitInterrupt";
  static constexpr const char* kTVMFFIOpaquePyObject = "ffi.OpaquePyObject";
};

/*! \brief TypeTraits of `T` with const and references removed (TVM-FFI's name). */
template <typename T>
using TypeTraitsNoCR = TypeTraits<std::remove_const_t<std::remove_reference_t<T>>>;

/*!
 * \brief The type index an object field of type `T` is recorded with:
 * `TypeTraits<T>::field_static_type_index`, kTVMFFIAny for a type without conversions.
 */
template <typename T, typename = void>
struct TypeToFieldStaticTypeIndex {
  static constexpr int32_t value = kTVMFFIAny;
};
template <typename T>
struct TypeToFieldStaticTypeIndex<T, std::enable_if_t<TypeTraits<T>::convert_enabled>> {
  static constexpr int32_t value = TypeTraits<T>::field_static_type_index;
};

/*!
 * \brief The runtime type index of a `T`: `v()` is the registered index of a reference class's
 * object type (specialized in object_ref_traits.h), the recorded field index (Int, Float, Device,
 * ...) otherwise.
 */
template <typename T, typename = void>
struct TypeToRuntimeTypeIndex {
  static int32_t v() { return TypeToFieldStaticTypeIndex<T>::value; }
};

namespace detail {
/*! \brief {"type":"<key>"}: the type schema of a type named by one key. */
inline std::string SchemaOfKey(std::string_view key) {
  std::string out = "{\"type\":\"";
  out.append(key);
  out += "\"}";
  return out;
}
/*!
 * \brief The type schema of `T` (cv and references ignored): `TypeSchema<T>::v()`. Defined in
 * detail/type_schema.h, which every header whose traits describe element types includes.
 */
template <typename T>
struct TypeSchema;
/*!
 * \brief `SchemaWithArgs<Args...>::Of(key, extra)` is {"type":"<key>","args":[<schema of each
 * Args>, <extra>]}: how generic types name their elements (defined in detail/type_schema.h).
 */
template <typename... Args>
struct SchemaWithArgs;
}  // namespace detail

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
}  // namespace detail

/*!
 * \brief The registered type key of a type index: "int", "ffi.SmallStr", "ffi.Tensor", ...; the
 * name TypeIndexToName gives for an index the runtime does not know.
 */
inline std::string TypeIndexToTypeKey(int32_t index) {
  if (const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index)) {
    return std::string(detail::ByteView(info->type_key));
  }
  return detail::TypeIndexToName(index);
}

namespace detail {
/*!
 * \brief What a value that did not convert is, in mismatch messages: the TypeIndexToName of plain
 * values and strings ("int", "str", "Device"), the full type key of other objects ("ffi.Array",
 * "ffi.OpaquePyObject", "my.Point"), as the reference's messages name them.
 */
inline std::string MismatchName(int32_t index) {
  bool plain = index < kTVMFFIStaticObjectBegin || index == kTVMFFIStr || index == kTVMFFIBytes;
  return plain ? TypeIndexToName(index) : TypeIndexToTypeKey(index);
}
}  // namespace detail

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
    return MismatchName(src->type_index);
  }
}
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_TRAITS_PROTOCOL_H_
