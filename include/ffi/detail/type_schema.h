/*
 * ffi/detail/type_schema.h - the JSON "type schema" reflection records for fields and functions,
 * e.g. {"type":"int"} or {"type":"Optional","args":[{"type":"ffi.String"}]}, in the vocabulary
 * the reference's hosts read (its stub generator and Python dataclasses). Internal: included by
 * function.h (export metadata) and the reflection headers, never by users.
 *
 * Each type's TypeTraits supplies `static std::string TypeSchema()` (traits_protocol.h declares
 * the helpers they use, defined here); this header turns traits into schemas and adds function
 * signatures.
 */
#ifndef FFI_DETAIL_TYPE_SCHEMA_H_
#define FFI_DETAIL_TYPE_SCHEMA_H_

#include <string>
#include <type_traits>

#include "../any.h"
#include "../expected.h"
#include "../optional.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {
template <typename T, typename = void>
struct HasTraitsTypeSchema : std::false_type {};
template <typename T>
struct HasTraitsTypeSchema<T, std::void_t<decltype(TypeTraits<T>::TypeSchema())>> : std::true_type {
};

/*!
 * \brief The schema of a `T` (no cv or reference): its traits' TypeSchema() (every built-in trait
 * has one, as do the traits of types written for TVM-FFI that describe their elements); None for
 * void; for a trait without one, the object type's key (object references) or the TypeStr.
 */
template <typename T>
struct TypeSchemaOf {
  static std::string Get() {
    if constexpr (HasTraitsTypeSchema<T>::value) {
      return TypeTraits<T>::TypeSchema();
    } else if constexpr (std::is_void_v<T>) {
      return SchemaOfKey("None");
    } else if constexpr (std::is_base_of_v<ObjectRef, T>) {
      return SchemaOfKey(T::ContainerType::_type_key);
    } else {
      return SchemaOfKey(std::string_view(TypeTraits<T>::TypeStr()));
    }
  }
};

template <typename T>
struct TypeSchema {
  /*! \brief The schema, e.g. {"type":"int"}: the spelling TVM-FFI traits use for elements. */
  static std::string v() {
    return TypeSchemaOf<std::remove_cv_t<std::remove_reference_t<T>>>::Get();
  }
};

template <typename... Args>
struct SchemaWithArgs {
  /*! \brief {"type":"<key>","args":[<schema of each Args>, <extra, already JSON, if any>]}. */
  static std::string Of(std::string_view key, std::string_view extra = {}) {
    std::string out = "{\"type\":\"";
    out.append(key);
    out += "\",\"args\":[";
    bool first = true;
    ((out += (first ? "" : ","), first = false, out += TypeSchema<Args>::v()), ...);
    if (!extra.empty()) (out += (first ? "" : ",")).append(extra);
    out += "]}";
    return out;
  }
};

/*! \brief The schema of a function `R(Args...)`: its return type and parameters. */
template <typename R, typename... Args>
std::string FunctionTypeSchema() {
  std::string out = "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[";
  out += TypeSchema<R>::v();
  out += "],\"params\":[";
  bool first = true;
  ((out += (first ? "" : ","), first = false, out += TypeSchema<Args>::v()), ...);
  out += "]}}";
  return out;
}

/*! \brief The schema of a callable `F` (function, pointer or lambda), via FunctionInfo. */
template <typename F>
struct CallableSchema : CallableSchema<decltype(&F::operator())> {};
template <typename R, typename... Args>
struct CallableSchema<R(Args...)> {
  static std::string Get() { return FunctionTypeSchema<R, std::decay_t<Args>...>(); }
};
template <typename R, typename... Args>
struct CallableSchema<R (*)(Args...)> : CallableSchema<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct CallableSchema<R (C::*)(Args...) const> : CallableSchema<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct CallableSchema<R (C::*)(Args...)> : CallableSchema<R(Args...)> {};

}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_TYPE_SCHEMA_H_
