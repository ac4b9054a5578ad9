/*
 * ffi/container/map_base.h - MapBaseObj: the hash table shared by Map and Dict, laid out as
 * TVM-FFI's, and their table objects MapObj and DictObj (the same layout, told apart by type
 * index).
 *
 * Kernels built with either implementation's headers read and (for Dict) write each other's
 * tables inline, so the layout and the algorithms are the convention's:
 *
 *   object   {TVMFFIObject; void* data; uint64_t size; uint64_t slots; void (*data_deleter)(void*)}
 *            (56 bytes). The top bit of `slots` marks the small form.
 *   small    up to 4 {Any key, Any value} pairs in insertion order at `data`, normally right after
 *            the object (data_deleter null); the allocation always has room for 2 pairs, so that a
 *            Dict can turn into the dense form in place.
 *   dense    after the 56 bytes: {uint32_t fib_shift; uint64_t iter_head; uint64_t iter_tail}.
 *            `data` is an array of blocks, each 16 metadata bytes then 16 items
 *            {Any key, Any value, uint64_t prev, uint64_t next} (48 bytes); prev/next link the
 *            items in insertion order, which is the iteration order. A key's chain starts at slot
 *            (hash * 11400714819323198485) >> fib_shift. Metadata: 0xFF empty, 0xFE protected
 *            (vacated during a move), else bit 7 clear for a chain head, set for a chain member,
 *            and bits 0-6 index a table of jump distances to the chain's next slot (0 = end).
 *
 * A map built from fewer than 4 pairs is small; a small map grows 2 -> 4 slots and then turns
 * dense. A dense table doubles when an insertion would pass 99% load or finds no free slot within
 * reach of the jump table. Setting an existing key keeps its place in a small map and moves it to
 * the end of the iteration order in a dense one.
 */
#ifndef FFI_CONTAINER_MAP_BASE_H_
#define FFI_CONTAINER_MAP_BASE_H_

#include "../detail/map_impl.h"
#include "../detail/map_layout.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

inline MapBaseObj::~MapBaseObj() {
  if (detail::MapImpl::IsSmall(this)) {
    detail::MapImpl::SmallReset(this);
  } else {
    detail::MapImpl::DenseReset(this);
  }
}

inline MapBaseObj::KVType* MapBaseObj::iterator::operator->() const {
  using detail::MapImpl;
  if (MapImpl::IsSmall(self_)) return MapImpl::SmallData(self_) + index_;
  return &MapImpl::Item(self_, index_).kv;
}

inline MapBaseObj::iterator& MapBaseObj::iterator::operator++() {
  using detail::MapImpl;
  if (MapImpl::IsSmall(self_)) {
    index_ = index_ + 1 < self_->size_ ? index_ + 1 : self_->size_;
  } else if (index_ != MapImpl::kNone) {
    index_ = MapImpl::Item(self_, index_).next;
  }
  return *this;
}

inline MapBaseObj::iterator& MapBaseObj::iterator::operator--() {
  using detail::MapImpl;
  if (MapImpl::IsSmall(self_)) {
    index_ = index_ > 0 ? index_ - 1 : self_->size_;
  } else {
    index_ = index_ == MapImpl::kNone ? MapImpl::Tail(self_)->iter_tail
                                      : MapImpl::Item(self_, index_).prev;
  }
  return *this;
}

inline MapBaseObj::iterator MapBaseObj::begin() const {
  using detail::MapImpl;
  return iterator(MapImpl::IsSmall(this) ? 0 : MapImpl::Tail(this)->iter_head, this);
}

inline MapBaseObj::iterator MapBaseObj::end() const {
  using detail::MapImpl;
  return iterator(MapImpl::IsSmall(this) ? size_ : MapImpl::kNone, this);
}

inline MapBaseObj::iterator MapBaseObj::find(const Any& key) const {
  using detail::MapImpl;
  if (MapImpl::IsSmall(this)) return iterator(MapImpl::SmallFind(this, key), this);
  return iterator(MapImpl::Search(this, key), this);
}

inline size_t MapBaseObj::count(const Any& key) const { return find(key) != end() ? 1 : 0; }

inline const Any& MapBaseObj::at(const Any& key) const {
  iterator it = find(key);
  if (it == end()) FFI_THROW(KeyError) << "key is not in Map";
  return it->second;
}

inline Any& MapBaseObj::at(const Any& key) {
  return const_cast<Any&>(static_cast<const MapBaseObj*>(this)->at(key));
}

inline void MapBaseObj::erase(const iterator& position) {
  using detail::MapImpl;
  if (position.self_ != this) return;
  if (MapImpl::IsSmall(this)) {
    MapImpl::SmallErase(this, position.index_);
  } else if (position.index_ < slots_) {
    MapImpl::DenseErase(this, position.index_);
  }
}

inline void MapBaseObj::clear() {
  if (detail::MapImpl::IsSmall(this)) {
    detail::MapImpl::SmallClear(this);
  } else {
    detail::MapImpl::DenseClear(this);
  }
}

namespace detail {
/*! \brief Base of MapObj and DictObj (`Self`): a table whose copies are of its own type. */
template <typename Self>
class MapTableObj : public MapBaseObj {
 public:
  /*! \brief A new table with the same entries in the same order. */
  static ObjectPtr<Object> ShallowCopy(const Self* src) { return MapImpl::Copy<Self>(src); }
};
}  // namespace detail

/*! \brief The object behind Map (type key "ffi.Map"), copied before a change when shared. */
class MapObj : public detail::MapTableObj<MapObj> {
 public:
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Map", MapObj, Object, kTVMFFIMap);
};
/*! \brief The object behind Dict (type key "ffi.Dict"), changed in place for every holder. */
class DictObj : public detail::MapTableObj<DictObj> {
 public:
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Dict", DictObj, Object, kTVMFFIDict);
};
static_assert(sizeof(MapObj) == 56, "MapObj layout");
static_assert(sizeof(DictObj) == 56, "DictObj layout");

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_MAP_BASE_H_
