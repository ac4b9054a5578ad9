/*
 * ffi/detail/type_schema.h - the JSON "type schema" reflection records for fields and functions,
 * e.g. {"type":"int"} or {"type":"Optional","args":[{"type":"ffi.String"}]}, in the vocabulary
 * the reference's hosts read (its stub generator and Python dataclasses). Internal: included by
 * function.h (export metadata) and the reflection headers, never by users.
 *
 * A type's TypeTraits may supply `static std::string TypeSchema()` (containers do, to describe
 * their element types); otherwise the schema follows from the kind of the type.
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
// The containers, declared here only to name them in schemas (container/*.h define them).
template <typename T>
class Array;
template <typename T>
class List;
template <typename K, typename V>
class Map;
template <typename K, typename V>
class Dict;
template <typename... Types>
class Tuple;
template <typename... V>
class Variant;
template <typename Signature>
class TypedFunction;  // function.h, which includes this header

namespace detail {
template <typename T, typename = void>
struct HasTraitsTypeSchema : std::false_type {};
template <typename T>
struct HasTraitsTypeSchema<T, std::void_t<decltype(TypeTraits<T>::TypeSchema())>> : std::true_type {
};

/*! \brief {"type":"<key>"}. */
inline std::string SchemaOfKey(std::string_view key) {
  std::string out = "{\"type\":\"";
  out.append(key);
  out += "\"}";
  return out;
}

template <typename T>
struct TypeSchemaOf;

/*!
 * \brief The type schema of `T` (cv and references ignored): `TypeSchema<T>::v()`, the spelling
 * traits written for TVM-FFI use (`details::TypeSchema<T>::v()`) to describe their elements.
 */
template <typename T>
struct TypeSchema {
  static std::string v() {
    return TypeSchemaOf<std::remove_cv_t<std::remove_reference_t<T>>>::Get();
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

template <typename T>
struct TypeSchemaOf {
  static std::string Get() {
    if constexpr (HasTraitsTypeSchema<T>::value) {
      return TypeTraits<T>::TypeSchema();
    } else if constexpr (std::is_void_v<T> || std::is_same_v<T, std::nullptr_t>) {
      return SchemaOfKey("None");
    } else if constexpr (std::is_same_v<T, Any> || std::is_same_v<T, AnyView>) {
      return SchemaOfKey("Any");
    } else if constexpr (std::is_same_v<T, bool>) {
      return SchemaOfKey("bool");
    } else if constexpr (std::is_integral_v<T>) {
      return SchemaOfKey("int");
    } else if constexpr (std::is_floating_point_v<T>) {
      return SchemaOfKey("float");
    } else if constexpr (std::is_same_v<T, void*>) {
      return SchemaOfKey("void*");
    } else if constexpr (std::is_same_v<T, DLDevice>) {
      return SchemaOfKey("Device");
    } else if constexpr (std::is_same_v<T, DLDataType>) {
      return SchemaOfKey("DataType");
    } else if constexpr (std::is_same_v<T, DLTensor*>) {
      return SchemaOfKey("DLTensor*");
    } else if constexpr (std::is_same_v<T, std::string>) {
      return SchemaOfKey("std::string");
    } else if constexpr (std::is_same_v<T, const char*> || std::is_array_v<T>) {
      return SchemaOfKey("const char*");
    } else if constexpr (std::is_base_of_v<ObjectRef, T> || std::is_same_v<T, String> ||
                         std::is_same_v<T, Bytes>) {
      return SchemaOfKey(T::ContainerType::_type_key);
    } else {
      // Types known only by their TypeTraits (views, user types) are named by them.
      return SchemaOfKey(TypeTraits<T>::TypeStr().view());
    }
  }
};

/*! \brief {"type":"<key>","args":[<schema of each Args>]}: how containers name their elements. */
template <typename... Args>
std::string SchemaWithArgs(std::string_view key) {
  std::string out = "{\"type\":\"";
  out.append(key);
  out += "\",\"args\":[";
  bool first = true;
  ((out += (first ? "" : ","), first = false, out += TypeSchema<Args>::v()), ...);
  out += "]}";
  return out;
}
template <typename T>
struct TypeSchemaOf<Array<T>> {
  static std::string Get() { return SchemaWithArgs<T>("ffi.Array"); }
};
template <typename T>
struct TypeSchemaOf<List<T>> {
  static std::string Get() { return SchemaWithArgs<T>("ffi.List"); }
};
template <typename K, typename V>
struct TypeSchemaOf<Map<K, V>> {
  static std::string Get() { return SchemaWithArgs<K, V>("ffi.Map"); }
};
template <typename K, typename V>
struct TypeSchemaOf<Dict<K, V>> {
  static std::string Get() { return SchemaWithArgs<K, V>("ffi.Dict"); }
};
template <typename... Types>
struct TypeSchemaOf<Tuple<Types...>> {
  static std::string Get() { return SchemaWithArgs<Types...>("Tuple"); }
};
template <typename... V>
struct TypeSchemaOf<Variant<V...>> {
  static std::string Get() { return SchemaWithArgs<V...>("Variant"); }
};

template <typename T>
struct TypeSchemaOf<Optional<T>> {
  static std::string Get() { return SchemaWithArgs<T>("Optional"); }
};
/*! \brief The value's schema and the error's. */
template <typename T>
struct TypeSchemaOf<Expected<T>> {
  static std::string Get() {
    std::string out = SchemaWithArgs<T>("Expected");
    out.insert(out.size() - 2, ",{\"type\":\"ffi.Error\"}");
    return out;
  }
};

template <typename R, typename... Args>
struct TypeSchemaOf<TypedFunction<R(Args...)>> {
  static std::string Get() { return FunctionTypeSchema<R, Args...>(); }
};

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
