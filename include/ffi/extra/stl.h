/*
 * ffi/extra/stl.h - standard library types as typed-function parameters and results.
 *
 * With this header included, a typed function may take and return std::vector, std::array,
 * std::tuple, std::map, std::unordered_map, std::optional, std::variant and std::function:
 *
 *   std::vector<int64_t> Sizes(std::map<std::string, int64_t> table);
 *   FFI_DLL_EXPORT_TYPED_FUNC(sizes, Sizes);
 *
 * They travel as the ABI's own values, so callers of any implementation see ordinary containers:
 * sequences (vector, array, tuple) as an Array, maps as a Map, optional as None or the value,
 * variant as its alternative, function as a Function. Every conversion copies: converting from a
 * value builds a new container (an Array or a List both convert to a vector), converting to one
 * builds a new object. Prefer Array/Map where the copy matters.
 *
 * Opt-in (not in ffi.h): it includes the standard containers it converts.
 */
#ifndef FFI_EXTRA_STL_H_
#define FFI_EXTRA_STL_H_

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "../container/array.h"
#include "../container/map.h"
#include "../detail/type_schema.h"
#include "../function.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {

/*!
 * \brief Shared by the STL traits: they have no borrowed form (a call passing one builds an owned
 * container for the duration of the call) and convert from a value through an owned copy.
 */
struct STLTraitsBase : TypeTraitsBase {
  /*! \brief STL values are never stored as such: only a conversion produces them. */
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
};

/*! \brief The values of a sequence (Array or List) as Anys, or nothing when `src` is neither. */
inline Optional<Array<Any>> SeqValues(const TVMFFIAny* src) {
  if (src->type_index != kTVMFFIArray && src->type_index != kTVMFFIList) return std::nullopt;
  return TypeTraits<Array<Any>>::TryCastFromAnyView(src);
}

/*! \brief An Array holding each value of a range, converted to Any. */
template <typename Range>
Array<Any> ArrayFromRange(Range&& values) {
  Array<Any> out;
  out.reserve(static_cast<int64_t>(std::size(values)));
  for (auto&& v : values) {
    if constexpr (std::is_rvalue_reference_v<Range&&>) {
      out.push_back(Any(std::move(v)));
    } else {
      out.push_back(Any(v));
    }
  }
  return out;
}

/*! \brief A Map holding each (key, value) of a range, converted to Any. */
template <typename Range>
Map<Any, Any> MapFromRange(const Range& entries) {
  Map<Any, Any> out;
  for (const auto& kv : entries) out.Set(Any(kv.first), Any(kv.second));
  return out;
}

/*! \brief A std::map or std::unordered_map from a Map or Dict value; nothing when one fails. */
template <typename StdMap>
Optional<StdMap> StdMapFromAny(const TVMFFIAny* src) {
  using K = typename StdMap::key_type;
  using V = typename StdMap::mapped_type;
  if (src->type_index != kTVMFFIMap && src->type_index != kTVMFFIDict) return std::nullopt;
  Optional<Map<Any, Any>> entries = TypeTraits<Map<Any, Any>>::TryCastFromAnyView(src);
  if (!entries.has_value()) return std::nullopt;
  StdMap out;
  for (const auto& kv : *entries) {
    std::optional<K> key = kv.first.template try_cast<K>();
    std::optional<V> value = kv.second.template try_cast<V>();
    if (!key.has_value() || !value.has_value()) return std::nullopt;
    out.emplace(*std::move(key), *std::move(value));
  }
  return StdMap(std::move(out));
}

/*! \brief Element `I` of `values` converted into `*out`, or false when it does not convert. */
template <size_t I, typename Tuple>
bool TupleElementFromValue(const Array<Any>& values, Tuple* out) {
  auto item = values[I].template try_cast<std::tuple_element_t<I, Tuple>>();
  if (item.has_value()) std::get<I>(*out) = *std::move(item);
  return item.has_value();
}
/*! \brief Every element of `values` converted into `*out`, stopping at the first that does not. */
template <typename Tuple, size_t... I>
bool TupleFromValues(const Array<Any>& values, Tuple* out, std::index_sequence<I...>) {
  return (TupleElementFromValue<I>(values, out) && ...);
}

}  // namespace detail

/*! \brief std::vector<T>: an Array (from an Array or a List whose values convert to T). */
template <typename T, typename Alloc>
struct TypeTraits<std::vector<T, Alloc>> : detail::STLTraitsBase {
  using Self = std::vector<T, Alloc>;
  static void MoveToAny(Self v, TVMFFIAny* out) {
    TypeTraits<Array<Any>>::MoveToAny(detail::ArrayFromRange(std::move(v)), out);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    Optional<Array<Any>> values = detail::SeqValues(src);
    if (!values.has_value()) return std::nullopt;
    Self out;
    out.reserve(values->size());
    for (const Any& v : *values) {
      std::optional<T> item = v.try_cast<T>();
      if (!item.has_value()) return std::nullopt;
      out.push_back(*std::move(item));
    }
    return Optional<Self>(std::move(out));
  }
  static constexpr auto TypeStr() {
    return ConstString("std::vector<") + TypeTraits<T>::TypeStr() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<T>::Of("std::vector"); }
};

/*! \brief std::array<T, N>: an Array of exactly N values. */
template <typename T, size_t N>
struct TypeTraits<std::array<T, N>> : detail::STLTraitsBase {
  using Self = std::array<T, N>;
  static void MoveToAny(Self v, TVMFFIAny* out) {
    TypeTraits<Array<Any>>::MoveToAny(detail::ArrayFromRange(std::move(v)), out);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    Optional<Array<Any>> values = detail::SeqValues(src);
    if (!values.has_value() || values->size() != N) return std::nullopt;
    Self out{};
    for (size_t i = 0; i < N; ++i) {
      std::optional<T> item = (*values)[static_cast<int64_t>(i)].template try_cast<T>();
      if (!item.has_value()) return std::nullopt;
      out[i] = *std::move(item);
    }
    return out;
  }
  static constexpr auto TypeStr() {
    return ConstString("std::array<") + TypeTraits<T>::TypeStr() + ", " +
           detail::DecimalString<N>() + ">";
  }
  static std::string TypeSchema() {
    return detail::SchemaWithArgs<T>::Of("std::array", std::to_string(N));
  }
};

/*! \brief std::tuple<Ts...>: an Array of sizeof...(Ts) values, one per element. */
template <typename... Ts>
struct TypeTraits<std::tuple<Ts...>> : detail::STLTraitsBase {
  using Self = std::tuple<Ts...>;
  static void MoveToAny(Self v, TVMFFIAny* out) {
    Array<Any> values;
    values.reserve(static_cast<int64_t>(sizeof...(Ts)));
    std::apply([&](auto&&... items) { (values.push_back(Any(std::move(items))), ...); }, v);
    TypeTraits<Array<Any>>::MoveToAny(std::move(values), out);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    Optional<Array<Any>> values = detail::SeqValues(src);
    if (!values.has_value() || values->size() != sizeof...(Ts)) return std::nullopt;
    Self out;
    if (!detail::TupleFromValues(*values, &out, std::index_sequence_for<Ts...>{})) {
      return std::nullopt;
    }
    return out;
  }
  static constexpr auto TypeStr() {
    return ConstString("std::tuple<") + detail::JoinTypeStrs<Ts...>() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<Ts...>::Of("std::tuple"); }
};

/*! \brief std::map<K, V>: a Map (from a Map or Dict whose keys and values convert). */
template <typename K, typename V, typename Compare, typename Alloc>
struct TypeTraits<std::map<K, V, Compare, Alloc>> : detail::STLTraitsBase {
  using Self = std::map<K, V, Compare, Alloc>;
  static void MoveToAny(const Self& v, TVMFFIAny* out) {
    TypeTraits<Map<Any, Any>>::MoveToAny(detail::MapFromRange(v), out);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    return detail::StdMapFromAny<Self>(src);
  }
  static constexpr auto TypeStr() {
    return ConstString("std::map<") + detail::JoinTypeStrs<K, V>() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<K, V>::Of("std::map"); }
};

/*! \brief std::unordered_map<K, V>: a Map (from a Map or Dict whose keys and values convert). */
template <typename K, typename V, typename Hash, typename Eq, typename Alloc>
struct TypeTraits<std::unordered_map<K, V, Hash, Eq, Alloc>> : detail::STLTraitsBase {
  using Self = std::unordered_map<K, V, Hash, Eq, Alloc>;
  static void MoveToAny(const Self& v, TVMFFIAny* out) {
    TypeTraits<Map<Any, Any>>::MoveToAny(detail::MapFromRange(v), out);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    return detail::StdMapFromAny<Self>(src);
  }
  static constexpr auto TypeStr() {
    return ConstString("std::unordered_map<") + detail::JoinTypeStrs<K, V>() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<K, V>::Of("std::unordered_map"); }
};

/*! \brief std::optional<T>: None for nullopt, else the value as T travels. */
template <typename T>
struct TypeTraits<std::optional<T>> : detail::STLTraitsBase {
  using Self = std::optional<T>;
  static void MoveToAny(Self v, TVMFFIAny* out) {
    if (!v.has_value()) return detail::SetNone(out);
    Any value(*std::move(v));
    *out = value.release();
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return Self();
    auto value = TypeTraits<T>::TryCastFromAnyView(src);
    if (!value.has_value()) return std::nullopt;
    return Self(*std::move(value));
  }
  static constexpr auto TypeStr() {
    return ConstString("std::optional<") + TypeTraits<T>::TypeStr() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<T>::Of("std::optional"); }
};

/*!
 * \brief std::variant<Ts...>: the alternative it holds. From a value, the first alternative (in
 * declaration order) the value converts to.
 */
template <typename... Ts>
struct TypeTraits<std::variant<Ts...>> : detail::STLTraitsBase {
  using Self = std::variant<Ts...>;
  static void MoveToAny(Self v, TVMFFIAny* out) {
    Any value = std::visit([](auto&& item) { return Any(std::move(item)); }, std::move(v));
    *out = value.release();
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    Optional<Self> out;
    (void)(TryOne<Ts>(src, &out) || ...);
    return out;
  }
  static constexpr auto TypeStr() {
    return ConstString("std::variant<") + detail::JoinTypeStrs<Ts...>() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<Ts...>::Of("std::variant"); }

 private:
  template <typename T>
  static bool TryOne(const TVMFFIAny* src, Optional<Self>* out) {
    auto item = TypeTraits<T>::TryCastFromAnyView(src);
    if (!item.has_value()) return false;
    *out = Self(std::in_place_type<T>, *std::move(item));
    return true;
  }
};

/*!
 * \brief std::function<R(Args...)>: a Function. Calling the std::function made from a Function
 * converts the arguments and the result as typed calls do (TypeError on a result of another type).
 */
template <typename R, typename... Args>
struct TypeTraits<std::function<R(Args...)>> : detail::STLTraitsBase {
  using Self = std::function<R(Args...)>;
  static void MoveToAny(Self v, TVMFFIAny* out) {
    if (!v) return detail::SetNone(out);
    TypeTraits<Function>::MoveToAny(Function::FromTyped(std::move(v)), out);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    auto f = TypeTraits<Function>::TryCastFromAnyView(src);
    if (!f.has_value()) return std::nullopt;
    return Self([fn = *std::move(f)](Args... args) -> R {
      if constexpr (std::is_void_v<R>) {
        fn(std::forward<Args>(args)...);
      } else {
        return fn(std::forward<Args>(args)...).template cast<R>();
      }
    });
  }
  static constexpr auto TypeStr() {
    return ConstString("std::function<") + detail::SignatureTypeName<R>() + "(" +
           detail::JoinTypeStrs<Args...>() + ")>";
  }
  static std::string TypeSchema() {
    std::string schema = detail::FunctionTypeSchema<R, Args...>();
    return "{\"type\":\"std::function\"" + schema.substr(schema.find(','));
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_STL_H_
