/*
 * ffi/container/map.h - Map<K, V>: an immutable-by-sharing hash map (type index kTVMFFIMap).
 *
 * A Map is a reference to a MapObj table (layout in container/map_base.h, the convention's). Copies
 * share the table; Set and erase copy it first unless this reference is its only owner
 * (copy-on-write), so a Map handed to someone else never changes under them. Iteration follows
 * insertion order. Keys are compared by AnyHash/AnyEqual: strings by content, everything else by
 * value or identity.
 *
 *   ffi::Map<ffi::String, int64_t> sizes{{"a", 1}, {"b", 2}};
 *   sizes.Set("c", 3);
 *   for (auto [name, n] : sizes) ...
 *   int64_t a = sizes.at("a");               // KeyError when absent
 *   std::optional<int64_t> z = sizes.Get("z");
 */
#ifndef FFI_CONTAINER_MAP_H_
#define FFI_CONTAINER_MAP_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>

#include "../detail/map_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The object behind Map (type key "ffi.Map"). */
class MapObj : public MapBaseObj {
 public:
  /*! \brief A new table with the same entries in the same order. */
  static ObjectPtr<Object> ShallowCopy(const MapObj* src) {
    return detail::MapImpl::Copy<MapObj>(src);
  }
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Map", MapObj, Object, kTVMFFIMap);
};
static_assert(sizeof(MapObj) == 56, "MapObj layout");

/*!
 * \brief A map from K to V with copy-on-write sharing. Never null: a default Map is an empty
 * table. K and V are any types with Any conversions, or Any itself.
 */
template <typename K, typename V>
class Map : public ObjectRef {
 public:
  /*! \brief Iterator yielding (key, value) pairs converted to K and V. */
  using iterator = detail::MapIterator<K, V>;
  /*! \brief Key type. */
  using key_type = K;
  /*! \brief Value type. */
  using mapped_type = V;

  /*! \brief An empty map. */
  Map() : ObjectRef(detail::MapImpl::SmallEmpty<MapObj>(0)) {}
  Map(const Map&) = default;
  Map(Map&&) = default;
  Map& operator=(const Map&) = default;
  Map& operator=(Map&&) = default;
  /*! \brief Shares the table of a map whose elements are also valid K and V. */
  template <typename KU, typename VU,
            typename = std::enable_if_t<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Map(const Map<KU, VU>& other) : ObjectRef(other.data_) {}
  template <typename KU, typename VU,
            typename = std::enable_if_t<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Map(Map<KU, VU>&& other) : ObjectRef(std::move(other.data_)) {}
  /*! \brief Wraps a MapObj table. */
  explicit Map(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null Map, for a field filled in before use (see UnsafeInit). */
  explicit Map(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief The pairs in [first, last); a later duplicate key overwrites an earlier one. */
  template <typename It>
  Map(It first, It last) : ObjectRef(detail::MapImpl::FromRange<MapObj>(first, last)) {}
  /*! \brief The pairs of a braced list. */
  Map(std::initializer_list<std::pair<K, V>> init) : Map(init.begin(), init.end()) {}
  /*! \brief The pairs of a standard map (std::unordered_map, std::map, ...). */
  template <typename R, typename = std::enable_if_t<detail::IsPairRange<R, K, V>::value>>
  Map(const R& pairs) : Map(pairs.begin(), pairs.end()) {}

  /*! \brief The value of `key`; throws KeyError ("key is not in Map") when absent. */
  const V at(const K& key) const { return detail::MapElementAs<V>(obj()->at(key)); }
  /*! \brief Same as at(): a Map is only changed through Set. */
  const V operator[](const K& key) const { return at(key); }
  /*! \brief Number of entries. */
  size_t size() const { return obj() == nullptr ? 0 : obj()->size(); }
  /*! \brief 1 if `key` is present, else 0. */
  size_t count(const K& key) const { return obj() == nullptr ? 0 : obj()->count(key); }
  /*! \brief Whether there are no entries. */
  bool empty() const { return size() == 0; }
  /*! \brief Drops every entry (this reference gets a new empty table). */
  void clear() {
    if (obj() != nullptr) data_ = detail::MapImpl::SmallEmpty<MapObj>(0);
  }
  /*! \brief Inserts or overwrites `key` (the table is copied first when shared). */
  void Set(const K& key, const V& value) {
    CopyOnWrite();
    ObjectPtr<Object> grown =
        detail::MapImpl::Insert<MapObj>(MapBaseObj::KVType(key, value), data_);
    if (grown) data_ = std::move(grown);
  }
  /*! \brief Removes `key`, if present (the table is copied first when shared). */
  void erase(const K& key) { CopyOnWrite()->erase(key); }
  /*! \brief The value of `key`, or nullopt when absent. */
  std::optional<V> Get(const K& key) const {
    MapBaseObj::iterator it = obj()->find(key);
    if (it == obj()->end()) return std::nullopt;
    return detail::MapElementAs<V>(it->second);
  }
  /*! \brief The first entry in insertion order. */
  iterator begin() const { return iterator(obj()->begin()); }
  /*! \brief Past the last entry. */
  iterator end() const { return iterator(obj()->end()); }
  /*! \brief The entry of `key`, or end(). */
  iterator find(const K& key) const { return iterator(obj()->find(key)); }
  /*! \brief The table, made this reference's own (copied when shared) so it can be changed. */
  MapObj* CopyOnWrite() {
    if (data_ == nullptr) {
      data_ = detail::MapImpl::SmallEmpty<MapObj>(0);
    } else if (data_.use_count() != 1) {
      data_ = MapObj::ShallowCopy(obj());
    }
    return obj();
  }
  /*! \brief The table. */
  const MapObj* get() const { return obj(); }
  const MapObj* operator->() const { return obj(); }

  /*! \brief The object type of the table. */
  using ContainerType = MapObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief A Map always has a table. */
  static constexpr bool _type_is_nullable = false;

 private:
  MapObj* obj() const { return static_cast<MapObj*>(const_cast<Object*>(data_.get())); }
  template <typename, typename>
  friend class Map;
};

/*! \brief `lhs` with the entries of `rhs` set into it (`rhs` wins on common keys). */
template <typename K, typename V>
Map<K, V> Merge(Map<K, V> lhs, const Map<K, V>& rhs) {
  for (const auto& kv : rhs) lhs.Set(kv.first, kv.second);
  return lhs;
}

/*!
 * \brief Map<K, V>: kTVMFFIMap; a Dict converts (copied into a new Map), and so does a map whose
 * elements convert to K and V (element by element).
 */
template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Map<K, V>> = false;
/*! \brief A Map<KU, VU> is a Map<K, V> when every KU is a K and every VU a V. */
template <typename K, typename V, typename KU, typename VU>
inline constexpr bool type_subsumes_v<Map<K, V>, Map<KU, VU>> =
    type_subsumes_v<K, KU>&& type_subsumes_v<V, VU>;

template <typename K, typename V>
struct TypeTraits<Map<K, V>> : detail::MapTraitsBase<Map<K, V>, K, V, kTVMFFIMap, kTVMFFIDict> {
  static constexpr auto TypeStr() {
    return ConstString("Map<") + TypeTraits<K>::TypeStr() + ", " + TypeTraits<V>::TypeStr() + ">";
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_MAP_H_
