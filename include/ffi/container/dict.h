/*
 * ffi/container/dict.h - Dict<K, V>: a mutable hash map shared by reference (type index
 * kTVMFFIDict).
 *
 * A Dict is a reference to a DictObj table, laid out as a Map's (container/map_base.h). Unlike Map
 * there is no copy-on-write: every reference to the table sees Set, erase and clear at once, also
 * across libraries and languages. When a table must grow, the new storage is moved into the same
 * object, so references never go stale.
 *
 *   ffi::Dict<ffi::String, ffi::Any> d;
 *   ffi::Dict<ffi::String, ffi::Any> alias = d;
 *   d.Set("k", 1);                // alias.count("k") == 1
 */
#ifndef FFI_CONTAINER_DICT_H_
#define FFI_CONTAINER_DICT_H_

#include <utility>

#include "../detail/map_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief A mutable map from K to V, shared by reference. Never null; default is empty. */
template <typename K, typename V>
class Dict : public detail::MapRefBase<Dict, K, V, DictObj> {
 public:
  /*! \brief The value of `key`; throws KeyError ("key is not in Map") when absent. */
  V at(const K& key) const { return detail::MapElementAs<V>(this->obj()->at(key)); }
  /*! \brief Same as at(); use Set to change a value. */
  V operator[](const K& key) const { return at(key); }

  // The constructors, iteration and the other lookups are MapRefBase's.
  using detail::MapRefBase<Dict, K, V, DictObj>::MapRefBase;

  /*! \brief Removes every entry from the shared table. */
  void clear() {
    if (this->obj() != nullptr) this->obj()->clear();
  }
  /*! \brief Inserts or overwrites `key` in the shared table. */
  void Set(const K& key, const V& value) {
    if (this->data_ == nullptr) this->data_ = detail::MapImpl::SmallEmpty<DictObj>(0);
    ObjectPtr<Object> grown =
        detail::MapImpl::Insert<DictObj>(MapBaseObj::KVType(key, value), this->data_);
    // Grown storage moves into this object, which every reference shares.
    if (grown) detail::MapImpl::SwitchTo(this->obj(), std::move(grown));
  }
  /*! \brief Removes `key` from the shared table, if present. */
  void erase(const K& key) {
    if (this->obj() != nullptr) this->obj()->erase(key);
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_DICT_H_
