/*
 * ffi/enum.h - enums whose members are objects, shared by every library and language in the
 * process.
 *
 * An enum class is an object type derived from EnumObj (or IntEnumObj / StrEnumObj) whose members
 * are its only instances, made once. Each member has two canonical indices: an integer
 * (`_int_index`, its position unless the enum is an IntEnum) and a string (`_str_index`, its
 * name). The class's `__ffi_enum__` type attribute, an EnumState, lists the members and maps both
 * indices to them; C++ (reflection::EnumDef, <ffi/reflection/enum_def.h>), Python
 * (ffi.dataclasses.Enum) and JSON graphs all define and find members through it:
 *
 *   class ActivationObj : public ffi::EnumObj {
 *    public:
 *     FFI_DECLARE_OBJECT_INFO_FINAL("my.Activation", ActivationObj, ffi::EnumObj);
 *   };
 *   FFI_STATIC_INIT_BLOCK() {
 *     ffi::reflection::ObjectDef<ActivationObj>(ffi::reflection::init(false));
 *     ffi::reflection::EnumDef<ActivationObj>("relu").set_attr("arity", 1);
 *   }
 *   ffi::Enum relu = ffi::EnumObj::_GetByStrIndex<ActivationObj>("relu");
 *
 * The layouts are the ABI's: code built with the reference headers reads these fields in place.
 */
#ifndef FFI_ENUM_H_
#define FFI_ENUM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "any.h"
#include "container/dict.h"
#include "container/list.h"
#include "error.h"
#include "object.h"
#include "reflection/accessor.h"
#include "string.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

class Enum;

/*!
 * \brief A String held in 16 bytes, as an Any holding it: a string of at most 7 bytes inline,
 * else a reference to the string object. That is how the reference headers store a String member,
 * so a String field other libraries read in place (an enum's name) has this type here. It converts
 * to and from String.
 */
class AnyString {
 public:
  /*! \brief The empty string. */
  AnyString() : value_(String()) {}
  /*! \brief Holds `s`. */
  AnyString(String s) : value_(std::move(s)) {}  // NOLINT(google-explicit-constructor)
  /*! \brief Holds a copy of the C string `s`. */
  AnyString(const char* s) : value_(String(s)) {}  // NOLINT(google-explicit-constructor)
  /*! \brief The string. */
  String get() const { return value_.cast<String>(); }
  /*! \brief The string. */
  operator String() const { return get(); }  // NOLINT(google-explicit-constructor)
  /*! \brief The Any holding the string (never anything else). */
  const Any& as_any() const { return value_; }

  friend bool operator==(const AnyString& a, const AnyString& b) { return a.get() == b.get(); }
  friend bool operator!=(const AnyString& a, const AnyString& b) { return !(a == b); }
  /*! \brief Writes the string (any std::basic_ostream; this header includes no stream header). */
  template <typename Traits>
  friend std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                                      const AnyString& s) {
    return os << s.get();
  }

 private:
  Any value_;
};
static_assert(sizeof(AnyString) == sizeof(TVMFFIAny), "AnyString must keep the Any layout");

/*! \brief AnyString travels as the String it holds. */
template <>
struct TypeTraits<AnyString> : TypeTraitsBase {
  static void CopyToAnyView(const AnyString& v, TVMFFIAny* out) { *out = *v.as_any().raw(); }
  static void MoveToAny(AnyString v, TVMFFIAny* out) { *out = Any(v.as_any()).release(); }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return TypeTraits<String>::CheckAnyStrict(src);
  }
  static detail::CastResult<AnyString> TryCastFromAnyView(const TVMFFIAny* src) {
    if (auto s = TypeTraits<String>::TryCastFromAnyView(src)) return AnyString(*s);
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("str"); }
  static std::string TypeSchema() { return R"({"type":"ffi.String"})"; }
};

/*! \brief The shared state of one enum class (the `__ffi_enum__` type attribute). */
class EnumStateObj : public Object {
 public:
  /*! \brief The members, in the order they were defined. */
  List<ObjectRef> entries;
  /*! \brief Integer and string index -> member. */
  Dict<Any, ObjectRef> indexes;
  /*! \brief Extensible attributes: attribute name -> member -> value. */
  Dict<String, Dict<ObjectRef, Any>> attrs;

  FFI_DECLARE_OBJECT_INFO_FINAL("ffi.EnumState", EnumStateObj, Object);
};

/*! \brief Reference to an EnumStateObj. */
class EnumState : public ObjectRef {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(EnumState, ObjectRef, EnumStateObj);
};

/*! \brief The base of enum member objects. */
class EnumObj : public Object {
 public:
  /*! \brief The canonical integer index. */
  int64_t _int_index = 0;
  /*! \brief The canonical string index (the member's name). */
  AnyString _str_index;

  EnumObj() = default;
  /*! \brief A member with the given indices (EnumDef registers it). */
  EnumObj(int64_t int_index, String str_index)
      : _int_index(int_index), _str_index(std::move(str_index)) {}

  // NOLINTBEGIN(bugprone-reserved-identifier): the reference's names.
  /*! \brief The member of enum class `EnumClsObj` at integer index `index`; ValueError if none. */
  template <typename EnumClsObj>
  static Enum _GetByIntIndex(int64_t index);
  /*! \brief The member of enum class `EnumClsObj` at string index `index`; ValueError if none. */
  template <typename EnumClsObj>
  static Enum _GetByStrIndex(const String& index);
  /*! \brief The member of the enum type `type_index` at integer index `index`. */
  static Enum _GetByIntIndex(int32_t type_index, int64_t index);
  /*! \brief The member of the enum type `type_index` at string index `index`. */
  static Enum _GetByStrIndex(int32_t type_index, const String& index);
  // NOLINTEND(bugprone-reserved-identifier)

  /*! \brief Members are singletons: structurally equal only to themselves. */
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  FFI_DECLARE_OBJECT_INFO("ffi.Enum", EnumObj, Object);

 private:
  static Enum GetByIndex(int32_t type_index, const Any& index, std::string_view shown);
};

/*! \brief Reference to an enum member. */
class Enum : public ObjectRef {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(Enum, ObjectRef, EnumObj);
};

/*! \brief The base of enums whose members are declared by integer index (any int64). */
class IntEnumObj : public EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO("ffi.IntEnum", IntEnumObj, EnumObj);
};

/*! \brief Reference to an IntEnumObj member. */
class IntEnum : public Enum {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(IntEnum, Enum, IntEnumObj);
};

/*! \brief The base of enums whose members are declared by string index. */
class StrEnumObj : public EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO("ffi.StrEnum", StrEnumObj, EnumObj);
};

/*! \brief Reference to a StrEnumObj member. */
class StrEnum : public Enum {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(StrEnum, Enum, StrEnumObj);
};

namespace type_attr {
/*! \brief An enum class's EnumState. */
inline constexpr reflection::AttrKey<EnumState> kEnumState{"__ffi_enum__"};
}  // namespace type_attr

namespace detail {
/*! \brief The state of enum type `type_index`; nullopt when it has none (no member defined). */
inline std::optional<EnumState> FindEnumState(int32_t type_index) {
  TVMFFIByteArray name = reflection::AsByteArray(type_attr::kEnumState.name);
  if (TVMFFIGetTypeAttrColumn(&name) == nullptr) return std::nullopt;
  return type_attr::kEnumState.ValueFrom(
      reflection::TypeAttrColumn(type_attr::kEnumState)[type_index]);
}
}  // namespace detail

inline Enum EnumObj::GetByIndex(int32_t type_index, const Any& index, std::string_view shown) {
  if (std::optional<EnumState> state = detail::FindEnumState(type_index)) {
    if (std::optional<ObjectRef> member = (*state)->indexes.Get(index)) {
      return Any(std::move(*member)).cast<Enum>();
    }
  }
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  FFI_THROW(ValueError) << "Enum `"
                        << (info ? detail::ByteView(info->type_key) : std::string_view("?"))
                        << "` has no member with index " << shown;
}

template <typename EnumClsObj>
inline Enum EnumObj::_GetByIntIndex(int64_t index) {
  static_assert(std::is_base_of_v<EnumObj, EnumClsObj>, "an enum class derives from EnumObj");
  return _GetByIntIndex(EnumClsObj::RuntimeTypeIndex(), index);
}

template <typename EnumClsObj>
inline Enum EnumObj::_GetByStrIndex(const String& index) {
  static_assert(std::is_base_of_v<EnumObj, EnumClsObj>, "an enum class derives from EnumObj");
  return _GetByStrIndex(EnumClsObj::RuntimeTypeIndex(), index);
}

inline Enum EnumObj::_GetByIntIndex(int32_t type_index, int64_t index) {
  return GetByIndex(type_index, Any(index), std::to_string(index));
}

inline Enum EnumObj::_GetByStrIndex(int32_t type_index, const String& index) {
  return GetByIndex(type_index, Any(index), "\"" + std::string(index.view()) + "\"");
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_ENUM_H_
