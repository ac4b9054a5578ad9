/*
 * ffi/detail/map_layout.h - MapBaseObj: the object behind Map and Dict, and its dense form's
 * records. The layout is the convention's; container/map_base.h describes it and its algorithms.
 */
#ifndef FFI_DETAIL_MAP_LAYOUT_H_
#define FFI_DETAIL_MAP_LAYOUT_H_

#include <cstdint>
#include <iterator>
#include <utility>

#include "../any.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
class MapImpl;
}  // namespace detail

/*!
 * \brief The storage behind Map and Dict: a hash table from Any to Any in insertion order.
 * It has no type index of its own; MapObj and DictObj give it theirs.
 */
class MapBaseObj : public Object {
 public:
  /*! \brief Key type. */
  using key_type = Any;
  /*! \brief Value type. */
  using mapped_type = Any;
  /*! \brief An entry as stored (32 bytes: two ABI values). */
  using KVType = std::pair<Any, Any>;

  /*! \brief Iterator over the entries in insertion order (bidirectional). */
  class iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using difference_type = int64_t;
    using value_type = KVType;
    using pointer = KVType*;
    using reference = KVType&;

    iterator() = default;
    bool operator==(const iterator& other) const {
      return index_ == other.index_ && self_ == other.self_;
    }
    bool operator!=(const iterator& other) const { return !(*this == other); }
    /*! \brief The entry. */
    KVType& operator*() const { return *operator->(); }
    KVType* operator->() const;
    iterator& operator++();
    iterator& operator--();
    iterator operator++(int) {
      iterator copy = *this;
      ++*this;
      return copy;
    }
    iterator operator--(int) {
      iterator copy = *this;
      --*this;
      return copy;
    }

   private:
    iterator(uint64_t index, const MapBaseObj* self) : index_(index), self_(self) {}
    uint64_t index_ = 0;
    const MapBaseObj* self_ = nullptr;
    friend class MapBaseObj;
    friend class detail::MapImpl;
  };

  /*! \brief Number of entries. */
  size_t size() const { return size_; }
  /*! \brief 1 if `key` is present, else 0. */
  size_t count(const Any& key) const;
  /*! \brief The value of `key`; throws KeyError when it is absent. */
  const Any& at(const Any& key) const;
  /*! \brief The value of `key`, writable; throws KeyError when it is absent. */
  Any& at(const Any& key);
  /*! \brief The first entry in insertion order. */
  iterator begin() const;
  /*! \brief Past the last entry. */
  iterator end() const;
  /*! \brief The entry of `key`, or end(). */
  iterator find(const Any& key) const;
  /*! \brief Removes the entry at `position` (nothing for end()). */
  void erase(const iterator& position);
  /*! \brief Removes the entry of `key`, if any. */
  void erase(const Any& key) { erase(find(key)); }
  /*! \brief Removes every entry, keeping the storage. */
  void clear();

  MapBaseObj(const MapBaseObj&) = delete;
  MapBaseObj& operator=(const MapBaseObj&) = delete;

 protected:
  MapBaseObj() = default;
  /*! \brief Releases the entries and the storage (whichever form the table has by then). */
  ~MapBaseObj();

  /*! \brief The entries (small form) or the blocks (dense form). */
  void* data_ = nullptr;
  /*! \brief Number of entries. */
  uint64_t size_ = 0;
  /*! \brief Number of slots; the top bit marks the small form. */
  uint64_t slots_ = 0;
  /*! \brief Frees `data_` when it is not the object's own inline storage. */
  void (*data_deleter_)(void*) = nullptr;

  friend class detail::MapImpl;
};

namespace detail {
/*! \brief The dense form's fields, right after the 56 bytes of MapBaseObj. */
struct DenseTail {
  uint32_t fib_shift;
  uint64_t iter_head;
  uint64_t iter_tail;
};
/*! \brief A dense slot's contents. */
struct DenseItem {
  MapBaseObj::KVType kv;
  uint64_t prev;
  uint64_t next;
};
static_assert(sizeof(MapBaseObj::KVType) == 32, "a map entry is two ABI values");
static_assert(sizeof(DenseItem) == 48, "dense item layout");
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_MAP_LAYOUT_H_
