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

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>

#include "../detail/map_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The object behind Dict (type key "ffi.Dict"). */
class DictObj : public MapBaseObj {
 public:
  /*! \brief A new table with the same entries in the same order. */
  static ObjectPtr<Object> ShallowCopy(const DictObj* src) {
    return detail::MapImpl::Copy<DictObj>(src);
  }
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Dict", DictObj, Object, kTVMFFIDict);
};
static_assert(sizeof(DictObj) == 56, "DictObj layout");

/*! \brief A mutable map from K to V, shared by reference. Never null; default is empty. */
template <typename K, typename V>
class Dict : public ObjectRef {
 public:
  /*! \brief Iterator yielding (key, value) pairs converted to K and V. */
  using iterator = detail::MapIterator<K, V>;
  /*! \brief Key type. */
  using key_type = K;
  /*! \brief Value type. */
  using mapped_type = V;

  /*! \brief An empty dict. */
  Dict() : ObjectRef(detail::MapImpl::SmallEmpty<DictObj>(0)) {}
  Dict(const Dict&) = default;
  Dict(Dict&&) = default;
  Dict& operator=(const Dict&) = default;
  Dict& operator=(Dict&&) = default;
  /*! \brief Shares the table of a dict whose elements are also valid K and V. */
  template <typename KU, typename VU,
            typename = std::enable_if_t<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Dict(const Dict<KU, VU>& other) : ObjectRef(other.data_) {}
  template <typename KU, typename VU,
            typename = std::enable_if_t<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Dict(Dict<KU, VU>&& other) : ObjectRef(std::move(other.data_)) {}
  /*! \brief Wraps a DictObj table. */
  explicit Dict(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null Dict, for a field filled in before use (see UnsafeInit). */
  explicit Dict(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief The pairs in [first, last); a later duplicate key overwrites an earlier one. */
  template <typename It>
  Dict(It first, It last) : ObjectRef(detail::MapImpl::FromRange<DictObj>(first, last)) {}
  /*! \brief The pairs of a braced list. */
  Dict(std::initializer_list<std::pair<K, V>> init) : Dict(init.begin(), init.end()) {}
  /*! \brief The pairs of a standard map (std::unordered_map, std::map, ...). */
  template <typename R, typename = std::enable_if_t<detail::IsPairRange<R, K, V>::value>>
  Dict(const R& pairs) : Dict(pairs.begin(), pairs.end()) {}

  /*! \brief The value of `key`; throws KeyError ("key is not in Map") when absent. */
  V at(const K& key) const { return detail::MapElementAs<V>(obj()->at(key)); }
  /*! \brief Same as at(); use Set to change a value. */
  V operator[](const K& key) const { return at(key); }
  /*! \brief Number of entries. */
  size_t size() const { return obj() == nullptr ? 0 : obj()->size(); }
  /*! \brief 1 if `key` is present, else 0. */
  size_t count(const K& key) const { return obj() == nullptr ? 0 : obj()->count(key); }
  /*! \brief Whether there are no entries. */
  bool empty() const { return size() == 0; }
  /*! \brief Removes every entry from the shared table. */
  void clear() {
    if (obj() != nullptr) obj()->clear();
  }
  /*! \brief Inserts or overwrites `key` in the shared table. */
  void Set(const K& key, const V& value) {
    if (data_ == nullptr) data_ = detail::MapImpl::SmallEmpty<DictObj>(0);
    ObjectPtr<Object> grown =
        detail::MapImpl::Insert<DictObj>(MapBaseObj::KVType(key, value), data_);
    // Grown storage moves into this object, which every reference shares.
    if (grown) detail::MapImpl::SwitchTo(obj(), std::move(grown));
  }
  /*! \brief Removes `key` from the shared table, if present. */
  void erase(const K& key) {
    if (obj() != nullptr) obj()->erase(key);
  }
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
  /*! \brief The table. */
  const DictObj* get() const { return obj(); }
  const DictObj* operator->() const { return obj(); }

  /*! \brief The object type of the table. */
  using ContainerType = DictObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief A Dict always has a table. */
  static constexpr bool _type_is_nullable = false;

 private:
  DictObj* obj() const { return static_cast<DictObj*>(const_cast<Object*>(data_.get())); }
  template <typename, typename>
  friend class Dict;
};

/*!
 * \brief Dict<K, V>: kTVMFFIDict; a Map converts (copied into a new Dict), and so does a dict
 * whose elements convert to K and V (element by element, into a new Dict).
 */
template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Dict<K, V>> = false;
/*! \brief A Dict<KU, VU> is a Dict<K, V> when every KU is a K and every VU a V. */
template <typename K, typename V, typename KU, typename VU>
inline constexpr bool type_subsumes_v<Dict<K, V>, Dict<KU, VU>> =
    type_subsumes_v<K, KU>&& type_subsumes_v<V, VU>;

template <typename K, typename V>
struct TypeTraits<Dict<K, V>> : detail::MapTraitsBase<Dict<K, V>, K, V, kTVMFFIDict, kTVMFFIMap> {
  static constexpr auto TypeStr() {
    return ConstString("Dict<") + TypeTraits<K>::TypeStr() + ", " + TypeTraits<V>::TypeStr() + ">";
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_DICT_H_
