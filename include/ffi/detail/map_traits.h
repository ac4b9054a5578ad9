/*
 * ffi/detail/map_traits.h - what Map<K, V> and Dict<K, V> share on top of MapBaseObj: reading a
 * stored Any as K or V, which typed maps convert to which, and their Any conversions.
 */
#ifndef FFI_DETAIL_MAP_TRAITS_H_
#define FFI_DETAIL_MAP_TRAITS_H_

#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../container/map_base.h"
#include "type_schema.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {

/*! \brief A stored value as a `T` (TypeError when it is not one; Any is returned as is). */
template <typename T>
T MapElementAs(const Any& v) {
  if constexpr (std::is_same_v<T, Any>) {
    return v;
  } else {
    return v.cast<T>();
  }
}

/*! \brief Whether `R` is a range of pairs convertible to (K, V), such as a std::unordered_map. */
template <typename R, typename K, typename V, typename = void>
struct IsPairRange : std::false_type {};
template <typename R, typename K, typename V>
struct IsPairRange<R, K, V,
                   std::void_t<decltype(std::declval<const R&>().begin()->first),
                               decltype(std::declval<const R&>().begin()->second),
                               decltype(std::declval<const R&>().end())>>
    : std::bool_constant<
          !std::is_base_of_v<ObjectRef, R> &&
          std::is_constructible_v<Any, decltype(std::declval<const R&>().begin()->first)> &&
          std::is_constructible_v<Any, decltype(std::declval<const R&>().begin()->second)>> {};

/*!
 * \brief Iterator of Map<K, V> and Dict<K, V>: walks the table in its iteration order and yields
 * each entry as a (K, V) pair (a copy, converted from the stored Anys).
 */
template <typename K, typename V>
class MapIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using difference_type = int64_t;
  using value_type = const std::pair<K, V>;
  using pointer = value_type*;
  using reference = value_type;

  MapIterator() = default;
  /*! \brief At `it` of the untyped table. */
  explicit MapIterator(MapBaseObj::iterator it) : it_(it) {}
  bool operator==(const MapIterator& other) const { return it_ == other.it_; }
  bool operator!=(const MapIterator& other) const { return it_ != other.it_; }
  /*! \brief The entry as a (K, V) pair. */
  reference operator*() const {
    const MapBaseObj::KVType& kv = *it_;
    return std::pair<K, V>(MapElementAs<K>(kv.first), MapElementAs<V>(kv.second));
  }
  MapIterator& operator++() {
    ++it_;
    return *this;
  }
  MapIterator& operator--() {
    --it_;
    return *this;
  }
  MapIterator operator++(int) {
    MapIterator copy = *this;
    ++it_;
    return copy;
  }
  MapIterator operator--(int) {
    MapIterator copy = *this;
    --it_;
    return copy;
  }

 private:
  MapBaseObj::iterator it_;
};

/*!
 * \brief Any conversions of a map reference `Ref` (Map or Dict) with element types K and V.
 * `Primary` is its own type index, `Other` the index of the other map kind, which converts by
 * copying into a new table. A table of the right kind whose elements are already stored as K
 * and V is shared; otherwise every element is converted (and a new table built), or the
 * conversion fails when one cannot be.
 */
template <typename Ref, typename K, typename V, int32_t Primary, int32_t Other>
struct MapTraitsBase : TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIObject;  // a reference
  /*! \brief {"type":"ffi.Map","args":[<K's schema>,<V's schema>]} (ffi.Dict for a Dict). */
  static std::string TypeSchema() {
    return SchemaWithArgs<K, V>::Of(Ref::ContainerType::_type_key);
  }
  static void CopyToAnyView(const Ref& v, TVMFFIAny* out) {
    TVMFFIObject* h = ObjectUnsafe::HeaderOf(v);
    if (h == nullptr) return SetNone(out);
    out->type_index = h->type_index;
    out->zero_padding = 0;
    out->v_obj = h;
  }
  static void MoveToAny(Ref v, TVMFFIAny* out) {
    TVMFFIObject* h = ObjectUnsafe::MoveToHeader(std::move(v));
    if (h == nullptr) return SetNone(out);
    out->type_index = h->type_index;
    out->zero_padding = 0;
    out->v_obj = h;
  }
  static const MapBaseObj* Table(const TVMFFIAny* src) {
    return static_cast<const MapBaseObj*>(ObjectUnsafe::FromHeader(src->v_obj));
  }
  /*! \brief Whether every key is stored as a K and every value as a V. */
  static bool ElementsStrict(const MapBaseObj* m) {
    if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
      return true;
    } else {
      for (const auto& kv : *m) {
        if (!TypeTraits<K>::CheckAnyStrict(kv.first.raw())) return false;
        if (!TypeTraits<V>::CheckAnyStrict(kv.second.raw())) return false;
      }
      return true;
    }
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == Primary && ElementsStrict(Table(src));
  }
  /*!
   * \brief What `src` is when it does not convert, naming the first offending element as the
   * convention does: "Map[some key is str, V]", "Dict[K, some value is float]".
   */
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != Primary && src->type_index != Other) {
      return MismatchName(src->type_index);
    }
    std::string_view name = src->type_index == kTVMFFIMap ? "Map" : "Dict";
    for (const auto& kv : *Table(src)) {
      if (!TypeTraits<K>::TryCastFromAnyView(kv.first.raw()).has_value()) {
        return std::string(name) + "[some key is " + MismatchTypeInfo<K>(kv.first.raw()) + ", V]";
      }
      if (!TypeTraits<V>::TryCastFromAnyView(kv.second.raw()).has_value()) {
        return std::string(name) + "[K, some value is " + MismatchTypeInfo<V>(kv.second.raw()) +
               "]";
      }
    }
    return std::string(name);
  }
  static detail::CastResult<Ref> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != Primary && src->type_index != Other) return std::nullopt;
    const MapBaseObj* m = Table(src);
    if (src->type_index == Primary && ElementsStrict(m)) {
      return ObjectUnsafe::RefFromBorrowedHeader<Ref>(src->v_obj);
    }
    Ref out;
    for (const auto& kv : *m) {
      auto k = TypeTraits<K>::TryCastFromAnyView(kv.first.raw());
      if (!k.has_value()) return std::nullopt;
      auto v = TypeTraits<V>::TryCastFromAnyView(kv.second.raw());
      if (!v.has_value()) return std::nullopt;
      out.Set(*std::move(k), *std::move(v));
    }
    return out;
  }
};

}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_MAP_TRAITS_H_
