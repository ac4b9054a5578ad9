/*
 * ffi/detail/map_traits.h - what Map<K, V> and Dict<K, V> share on top of MapBaseObj: reading a
 * stored Any as K or V, their constructors and reading API (MapRefBase), which typed maps convert
 * to which, and their Any conversions (the TypeTraits of both).
 */
#ifndef FFI_DETAIL_MAP_TRAITS_H_
#define FFI_DETAIL_MAP_TRAITS_H_

#include <initializer_list>
#include <iterator>
#include <optional>
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
 * \brief What Map<K, V> and Dict<K, V> (`Ref<K, V>`) share over their table object `TableObj`
 * (MapObj or DictObj): constructors, element types and the reading API. They differ only in how
 * they change the table (Map copies a shared table first, Dict changes it for every holder), so
 * that stays in each class. It adds no data: a map reference is one ObjectRef.
 */
template <template <typename, typename> class Ref, typename K, typename V, typename TableObj>
class MapRefBase : public ObjectRef {
 public:
  /*! \brief Iterator yielding (key, value) pairs converted to K and V. */
  using iterator = MapIterator<K, V>;
  /*! \brief Key type. */
  using key_type = K;
  /*! \brief Value type. */
  using mapped_type = V;

  /*! \brief An empty table. */
  MapRefBase() : ObjectRef(MapImpl::SmallEmpty<TableObj>(0)) {}
  /*! \brief Shares the table of a map of the same kind whose elements are also valid K and V. */
  template <typename KU, typename VU,
            typename = std::enable_if_t<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  MapRefBase(const Ref<KU, VU>& other) : ObjectRef(other) {}
  /*! \brief Takes over the table of such a map. */
  template <typename KU, typename VU,
            typename = std::enable_if_t<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  MapRefBase(Ref<KU, VU>&& other) : ObjectRef(std::move(other)) {}
  /*! \brief Wraps a table of type TableObj. */
  explicit MapRefBase(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null reference, for a field filled in before use (see UnsafeInit). */
  explicit MapRefBase(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief The pairs in [first, last); a later duplicate key overwrites an earlier one. */
  template <typename It>
  MapRefBase(It first, It last) : ObjectRef(MapImpl::FromRange<TableObj>(first, last)) {}
  /*! \brief The pairs of a braced list. */
  MapRefBase(std::initializer_list<std::pair<K, V>> init) : MapRefBase(init.begin(), init.end()) {}
  /*! \brief The pairs of a standard map (std::unordered_map, std::map, ...). */
  template <typename R, typename = std::enable_if_t<IsPairRange<R, K, V>::value>>
  MapRefBase(const R& pairs) : MapRefBase(pairs.begin(), pairs.end()) {}

  /*! \brief Number of entries. */
  size_t size() const { return obj() == nullptr ? 0 : obj()->size(); }
  /*! \brief 1 if `key` is present, else 0. */
  size_t count(const K& key) const { return obj() == nullptr ? 0 : obj()->count(key); }
  /*! \brief Whether there are no entries. */
  bool empty() const { return size() == 0; }
  /*! \brief The value of `key`, or nullopt when absent. */
  std::optional<V> Get(const K& key) const {
    MapBaseObj::iterator it = obj()->find(key);
    if (it == obj()->end()) return std::nullopt;
    return MapElementAs<V>(it->second);
  }
  /*! \brief The first entry in insertion order. */
  iterator begin() const { return iterator(obj()->begin()); }
  /*! \brief Past the last entry. */
  iterator end() const { return iterator(obj()->end()); }
  /*! \brief The entry of `key`, or end(). */
  iterator find(const K& key) const { return iterator(obj()->find(key)); }
  /*! \brief The table. */
  const TableObj* get() const { return obj(); }
  /*! \brief The table, for its untyped API. */
  const TableObj* operator->() const { return obj(); }

  /*! \brief The object type of the table. */
  using ContainerType = TableObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief A map reference always has a table. */
  static constexpr bool _type_is_nullable = false;

 protected:
  /*! \brief The table, mutable for the derived class's own changes. */
  TableObj* obj() const { return static_cast<TableObj*>(const_cast<Object*>(data_.get())); }
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
  /*! \brief "Map<K, V>" or "Dict<K, V>", from the table's type key. */
  static constexpr auto TypeStr() {
    return ObjectTypeName<typename Ref::ContainerType>() + "<" + TypeTraits<K>::TypeStr() + ", " +
           TypeTraits<V>::TypeStr() + ">";
  }
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

template <typename K, typename V>
class Map;
template <typename K, typename V>
class Dict;

// Map and Dict convert through MapTraitsBase, which looks at the elements, not through the traits
// of plain object references.
template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Map<K, V>> = false;
template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Dict<K, V>> = false;
/*! \brief A Map<KU, VU> is a Map<K, V> when every KU is a K and every VU a V. */
template <typename K, typename V, typename KU, typename VU>
inline constexpr bool type_subsumes_v<Map<K, V>, Map<KU, VU>> =
    type_subsumes_v<K, KU>&& type_subsumes_v<V, VU>;
/*! \brief A Dict<KU, VU> is a Dict<K, V> by the same rule. */
template <typename K, typename V, typename KU, typename VU>
inline constexpr bool type_subsumes_v<Dict<K, V>, Dict<KU, VU>> =
    type_subsumes_v<Map<K, V>, Map<KU, VU>>;

/*!
 * \brief Map<K, V>: kTVMFFIMap; a Dict converts (copied into a new Map), and so does a map whose
 * elements convert to K and V (element by element).
 */
template <typename K, typename V>
struct TypeTraits<Map<K, V>> : detail::MapTraitsBase<Map<K, V>, K, V, kTVMFFIMap, kTVMFFIDict> {};
/*!
 * \brief Dict<K, V>: kTVMFFIDict; a Map converts (copied into a new Dict), and so does a dict
 * whose elements convert to K and V (element by element, into a new Dict).
 */
template <typename K, typename V>
struct TypeTraits<Dict<K, V>> : detail::MapTraitsBase<Dict<K, V>, K, V, kTVMFFIDict, kTVMFFIMap> {};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_MAP_TRAITS_H_
