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

#include <utility>

#include "../detail/map_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief A map from K to V with copy-on-write sharing. Never null: a default Map is an empty
 * table. K and V are any types with Any conversions, or Any itself.
 */
template <typename K, typename V>
class Map : public detail::MapRefBase<Map, K, V, MapObj> {
 public:
  /*! \brief The value of `key`; throws KeyError ("key is not in Map") when absent. */
  const V at(const K& key) const { return detail::MapElementAs<V>(this->obj()->at(key)); }
  /*! \brief Same as at(): a Map is only changed through Set. */
  const V operator[](const K& key) const { return at(key); }

  // The constructors, iteration and the other lookups are MapRefBase's.
  using detail::MapRefBase<Map, K, V, MapObj>::MapRefBase;

  /*! \brief Drops every entry (this reference gets a new empty table). */
  void clear() {
    if (this->obj() != nullptr) this->data_ = detail::MapImpl::SmallEmpty<MapObj>(0);
  }
  /*! \brief Inserts or overwrites `key` (the table is copied first when shared). */
  void Set(const K& key, const V& value) {
    CopyOnWrite();
    ObjectPtr<Object> grown =
        detail::MapImpl::Insert<MapObj>(MapBaseObj::KVType(key, value), this->data_);
    if (grown) this->data_ = std::move(grown);
  }
  /*! \brief Removes `key`, if present (the table is copied first when shared). */
  void erase(const K& key) { CopyOnWrite()->erase(key); }
  /*! \brief The table, made this reference's own (copied when shared) so it can be changed. */
  MapObj* CopyOnWrite() {
    if (this->data_ == nullptr) {
      this->data_ = detail::MapImpl::SmallEmpty<MapObj>(0);
    } else if (this->data_.use_count() != 1) {
      this->data_ = MapObj::ShallowCopy(this->obj());
    }
    return this->obj();
  }
};

/*! \brief `lhs` with the entries of `rhs` set into it (`rhs` wins on common keys). */
template <typename K, typename V>
Map<K, V> Merge(Map<K, V> lhs, const Map<K, V>& rhs) {
  for (const auto& kv : rhs) lhs.Set(kv.first, kv.second);
  return lhs;
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_MAP_H_
