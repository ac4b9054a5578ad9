/*
 * ffi/detail/map_impl.h - the algorithms on MapBaseObj tables, small and dense (the convention's,
 * described in container/map_base.h): lookup, insertion with growth, erasure, copies, and a Dict
 * adopting grown storage in place.
 */
#ifndef FFI_DETAIL_MAP_IMPL_H_
#define FFI_DETAIL_MAP_IMPL_H_

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "../any_hash.h"
#include "map_layout.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*!
 * \brief The algorithms on MapBaseObj, small and dense, shared by Map and Dict. Static functions
 * only; `ObjT` (MapObj or DictObj) gives new tables their type index.
 */
class MapImpl {
 public:
  using KV = MapBaseObj::KVType;
  static constexpr uint64_t kSmallTag = uint64_t{1} << 63;
  static constexpr uint64_t kSmallInitSlots = 2;
  static constexpr uint64_t kSmallMaxSlots = 4;
  static constexpr uint64_t kBlockSlots = 16;
  static constexpr uint64_t kBlockBytes = kBlockSlots * (1 + sizeof(DenseItem));
  static constexpr uint8_t kEmpty = 0xFF;
  static constexpr uint8_t kProtected = 0xFE;
  static constexpr uint64_t kNone = ~uint64_t{0};
  static constexpr int kNumJumps = 126;

  static bool IsSmall(const MapBaseObj* m) { return (m->slots_ & kSmallTag) != 0; }
  static uint64_t Slots(const MapBaseObj* m) { return m->slots_ & ~kSmallTag; }
  static KV* SmallData(const MapBaseObj* m) { return static_cast<KV*>(m->data_); }
  static DenseTail* Tail(const MapBaseObj* m) {
    return reinterpret_cast<DenseTail*>(const_cast<char*>(reinterpret_cast<const char*>(m)) +
                                        sizeof(MapBaseObj));
  }

  // ---- small form --------------------------------------------------------------------------
  static uint64_t SmallFind(const MapBaseObj* m, const Any& key) {
    KV* kv = SmallData(m);
    for (uint64_t i = 0; i < m->size_; ++i) {
      if (AnyEqual()(kv[i].first, key)) return i;
    }
    return m->size_;
  }
  /*! \brief An empty small table with room for max(n, 2) entries inline. */
  template <typename ObjT>
  static ObjectPtr<ObjT> SmallEmpty(uint64_t n) {
    static_assert(sizeof(ObjT) == sizeof(MapBaseObj), "map objects add no fields");
    if (n < kSmallInitSlots) n = kSmallInitSlots;
    ObjectPtr<ObjT> p = make_object_with_extra<ObjT>(n * sizeof(KV));
    p->data_ = ExtraStorage(p.get());
    p->size_ = 0;
    p->slots_ = n | kSmallTag;
    return p;
  }
  /*! \brief A small table of copies of [first, last) (no duplicate check), with `n` slots. */
  template <typename ObjT, typename It>
  static ObjectPtr<Object> SmallFromRange(uint64_t n, It first, It last) {
    ObjectPtr<ObjT> p = SmallEmpty<ObjT>(n);
    for (KV* kv = SmallData(p.get()); first != last; ++first, ++p->size_) new (kv++) KV(*first);
    return ObjectPtr<Object>(std::move(p));
  }
  /*! \brief Inserts or overwrites; returns a replacement table when this one had no room. */
  template <typename ObjT>
  static ObjectPtr<Object> SmallInsert(KV&& kv, const ObjectPtr<Object>& map) {
    MapBaseObj* m = static_cast<MapBaseObj*>(map.get());
    uint64_t i = SmallFind(m, kv.first);
    if (i < m->size_) {
      SmallData(m)[i].second = kv.second;
      return nullptr;
    }
    if (m->size_ < Slots(m)) {
      new (SmallData(m) + m->size_) KV(std::move(kv));
      ++m->size_;
      return nullptr;
    }
    uint64_t next = Slots(m) * 2 < kSmallInitSlots ? kSmallInitSlots : Slots(m) * 2;
    if (next > kSmallMaxSlots) next = kSmallMaxSlots;
    FFI_ICHECK_GT(next, Slots(m));
    KV* data = SmallData(m);
    ObjectPtr<Object> grown = SmallFromRange<ObjT>(next, data, data + m->size_);
    ObjectPtr<Object> again = SmallInsert<ObjT>(std::move(kv), grown);
    return again ? again : grown;
  }
  static void SmallErase(MapBaseObj* m, uint64_t i) {
    if (i >= m->size_) return;
    KV* kv = SmallData(m);
    kv[i].~KV();
    // Entries are relocated bytewise: an Any owns nothing but its 16 bytes.
    if (i + 1 < m->size_) {
      std::memmove(static_cast<void*>(kv + i), kv + i + 1, (m->size_ - i - 1) * sizeof(KV));
    }
    --m->size_;
  }
  static void SmallClear(MapBaseObj* m) {
    KV* kv = SmallData(m);
    for (uint64_t i = 0; i < m->size_; ++i) kv[i].~KV();
    m->size_ = 0;
  }
  static void SmallReset(MapBaseObj* m) {
    SmallClear(m);
    if (m->data_deleter_ != nullptr) {
      m->data_deleter_(m->data_);
      m->slots_ = 0;
      m->data_ = nullptr;
      m->data_deleter_ = nullptr;
    }
  }
  /*!
   * \brief The data deleter of a Dict that adopted another small table's inline entries: drops
   * the reference to the object those entries live in (56 bytes before them).
   */
  static void ReleaseInlineOwner(void* data) {
    ObjectUnsafe::DecRef(ObjectUnsafe::Header(
        reinterpret_cast<Object*>(static_cast<char*>(data) - sizeof(MapBaseObj))));
  }

  // ---- dense form --------------------------------------------------------------------------
  static uint8_t& Meta(const MapBaseObj* m, uint64_t i) {
    return static_cast<uint8_t*>(m->data_)[(i / kBlockSlots) * kBlockBytes + i % kBlockSlots];
  }
  static DenseItem& Item(const MapBaseObj* m, uint64_t i) {
    char* block = static_cast<char*>(m->data_) + (i / kBlockSlots) * kBlockBytes;
    return *reinterpret_cast<DenseItem*>(block + kBlockSlots +
                                         (i % kBlockSlots) * sizeof(DenseItem));
  }
  static uint64_t Jump(uint8_t meta) {
    // Distances 0-15, then triangle numbers, then sparser triangle numbers for very large tables.
    // clang-format off
    static constexpr uint64_t kJumps[kNumJumps] = {
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 21, 28, 36, 45, 55, 66, 78, 91, 105,
        120, 136, 153, 171, 190, 210, 231, 253, 276, 300, 325, 351, 378, 406, 435, 465, 496, 528,
        561, 595, 630, 666, 703, 741, 780, 820, 861, 903, 946, 990, 1035, 1081, 1128, 1176, 1225,
        1275, 1326, 1378, 1431, 1485, 1540, 1596, 1653, 1711, 1770, 1830, 1891, 1953, 2016, 2080,
        2145, 2211, 2278, 2346, 2415, 2485, 2556, 2628, 8515, 19110, 42778, 96141, 216153, 486591,
        1092981, 2458653, 5532801, 12442566, 27993903, 62983476, 141717030, 318844378, 717352503,
        1614057336, 3631522476, 8170957530, 18384510628, 41364789378, 93070452520, 209408356380,
        471168559170, 1060128894105, 2385289465695, 5366898840628, 12075518705635, 27169915244790,
        61132312065111, 137547689707000, 309482283181501, 696335127828753, 1566753995631385,
        3525196511162271, 7931691992677701, 17846306936293605, 40154190677507445,
        90346928918121501, 203280589587557251, 457381325854679626, 1029107982097042876,
        2315492959180353330, 5209859154120846435};
    // clang-format on
    return kJumps[meta & 0x7F];
  }
  static bool IsHead(uint8_t meta) { return (meta & 0x80) == 0; }
  /*! \brief Moves `*i` along its chain by the jump in `meta`; false at the chain's end. */
  static bool Advance(const MapBaseObj* m, uint64_t* i, uint8_t meta) {
    uint64_t d = Jump(meta);
    if (d == 0) return false;
    *i = (*i + d) % m->slots_;
    return true;
  }
  static bool Advance(const MapBaseObj* m, uint64_t* i) { return Advance(m, i, Meta(m, *i)); }
  static uint64_t HomeSlot(const MapBaseObj* m, const Any& key) {
    return (uint64_t{11400714819323198485ULL} * AnyHash()(key)) >> Tail(m)->fib_shift;
  }
  static void SetJump(const MapBaseObj* m, uint64_t i, uint8_t jump) {
    Meta(m, i) = static_cast<uint8_t>((Meta(m, i) & 0x80) | jump);
  }
  /*! \brief Constructs an item at empty slot `i`, a chain head or member. */
  static void NewItem(const MapBaseObj* m, uint64_t i, bool head, KV&& kv) {
    Meta(m, i) = head ? 0x00 : 0x80;
    new (&Item(m, i)) DenseItem{std::move(kv), kNone, kNone};
  }
  static void DestroyItem(const MapBaseObj* m, uint64_t i) { Item(m, i).kv.~KV(); }

  static uint64_t Search(const MapBaseObj* m, const Any& key) {
    if (m->size_ == 0) return kNone;
    uint64_t i = HomeSlot(m, key);
    if (!IsHead(Meta(m, i))) return kNone;
    do {
      if (AnyEqual()(key, Item(m, i).kv.first)) return i;
    } while (Advance(m, &i));
    return kNone;
  }
  /*! \brief The chain member before non-head slot `i`. */
  static uint64_t FindPrev(const MapBaseObj* m, uint64_t i) {
    uint64_t prev = HomeSlot(m, Item(m, i).kv.first), next = prev;
    for (Advance(m, &next); next != i; Advance(m, &next)) prev = next;
    return prev;
  }
  static bool NextEmpty(const MapBaseObj* m, uint64_t from, uint8_t* jump, uint64_t* out) {
    for (uint8_t j = 1; j < kNumJumps; ++j) {
      uint64_t c = (from + Jump(j)) % m->slots_;
      if (Meta(m, c) == kEmpty) {
        *jump = j;
        *out = c;
        return true;
      }
    }
    return false;
  }
  static bool IsFull(const MapBaseObj* m) {
    return static_cast<double>(m->size_ + 1) > static_cast<double>(m->slots_) * 0.99;
  }

  // The iteration list (insertion order) through the items' prev/next.
  static void ListUnlink(MapBaseObj* m, uint64_t i) {
    DenseItem& it = Item(m, i);
    DenseTail* t = Tail(m);
    (it.prev == kNone ? t->iter_head : Item(m, it.prev).next) = it.next;
    (it.next == kNone ? t->iter_tail : Item(m, it.next).prev) = it.prev;
  }
  static void ListPushBack(MapBaseObj* m, uint64_t i) {
    DenseTail* t = Tail(m);
    Item(m, i).prev = t->iter_tail;
    Item(m, i).next = kNone;
    if (t->iter_tail != kNone) Item(m, t->iter_tail).next = i;
    if (t->iter_head == kNone) t->iter_head = i;
    t->iter_tail = i;
  }
  /*! \brief Puts slot `dst` where `src` is in the iteration list (items are not touched). */
  static void ListReplace(MapBaseObj* m, uint64_t src, uint64_t dst) {
    DenseTail* t = Tail(m);
    DenseItem& d = Item(m, dst);
    d.prev = Item(m, src).prev;
    d.next = Item(m, src).next;
    (d.prev == kNone ? t->iter_head : Item(m, d.prev).next) = dst;
    (d.next == kNone ? t->iter_tail : Item(m, d.next).prev) = dst;
  }

  /*!
   * \brief Finds or makes the slot of `key`. A new slot holds the key and None; a found one is
   * unlinked from the iteration list (the caller re-appends it). False: the table must grow.
   */
  static bool TryInsert(MapBaseObj* m, const Any& key, uint64_t* out) {
    if (m->slots_ == 0) return false;
    uint64_t i = HomeSlot(m, key);
    if (Meta(m, i) == kEmpty) {
      NewItem(m, i, true, KV(key, Any()));
      ++m->size_;
      *out = i;
      return true;
    }
    if (!IsHead(Meta(m, i))) return IsFull(m) ? false : SpareHead(m, i, key, out);
    uint64_t last = i;
    do {
      if (AnyEqual()(key, Item(m, i).kv.first)) {
        ListUnlink(m, i);
        *out = i;
        return true;
      }
      last = i;
    } while (Advance(m, &i));
    if (IsFull(m)) return false;
    uint8_t jump;
    if (!NextEmpty(m, last, &jump, out)) return false;
    NewItem(m, *out, false, KV(key, Any()));
    SetJump(m, last, jump);
    ++m->size_;
    return true;
  }
  /*!
   * \brief Slot `target` belongs to another key's chain: moves that chain's part from `target`
   * on to free slots after its predecessor, then makes `target` the head of `key`'s chain.
   */
  static bool SpareHead(MapBaseObj* m, uint64_t target, const Any& key, uint64_t* out) {
    uint64_t r = target, w = FindPrev(m, target), empty;
    bool first = true;
    uint8_t r_meta, jump;
    do {
      if (!NextEmpty(m, w, &jump, &empty)) return false;
      NewItem(m, empty, false, std::move(Item(m, r).kv));
      ListReplace(m, r, empty);
      DestroyItem(m, r);
      r_meta = Meta(m, r);
      // The vacated target stays unusable until the new head is written into it.
      Meta(m, r) = first ? kProtected : kEmpty;
      first = false;
      SetJump(m, w, jump);
      w = empty;
    } while (Advance(m, &r, r_meta));
    NewItem(m, target, true, KV(key, Any()));
    ++m->size_;
    *out = target;
    return true;
  }
  static void DenseErase(MapBaseObj* m, uint64_t i) {
    --m->size_;
    if (Jump(Meta(m, i)) == 0) {
      if (!IsHead(Meta(m, i))) SetJump(m, FindPrev(m, i), 0);
      ListUnlink(m, i);
      DestroyItem(m, i);
      Meta(m, i) = kEmpty;
      return;
    }
    // Move the chain's last item into `i` and cut it off the chain's end.
    uint64_t last = i, prev = i;
    for (Advance(m, &last); Jump(Meta(m, last)) != 0; Advance(m, &last)) prev = last;
    ListUnlink(m, i);
    Item(m, i).kv = std::move(Item(m, last).kv);
    ListReplace(m, last, i);
    DestroyItem(m, last);
    Meta(m, last) = kEmpty;
    SetJump(m, prev, 0);
  }
  static void DenseClear(MapBaseObj* m) {
    for (uint64_t i = 0; i < m->slots_; ++i) {
      uint8_t& meta = Meta(m, i);
      if (meta != kEmpty && meta != kProtected) {
        meta = kEmpty;
        DestroyItem(m, i);
      }
    }
    m->size_ = 0;
    Tail(m)->iter_head = Tail(m)->iter_tail = kNone;
  }
  static void DenseReleaseMemory(MapBaseObj* m) {
    if (m->data_ != nullptr) m->data_deleter_(m->data_);
    m->data_ = nullptr;
    m->data_deleter_ = nullptr;
    m->slots_ = 0;
    m->size_ = 0;
    Tail(m)->fib_shift = 63;
  }
  static void DenseReset(MapBaseObj* m) {
    DenseClear(m);
    DenseReleaseMemory(m);
  }
  static void FreeBlocks(void* data) { ::operator delete(data); }
  template <typename ObjT>
  static ObjectPtr<ObjT> DenseEmpty(uint32_t fib_shift, uint64_t slots) {
    static_assert(sizeof(ObjT) == sizeof(MapBaseObj), "map objects add no fields");
    FFI_ICHECK_EQ(slots & kSmallTag, 0u) << "dense table too large";
    ObjectPtr<ObjT> p = make_object_with_extra<ObjT>(sizeof(DenseTail));
    uint64_t blocks = (slots + kBlockSlots - 1) / kBlockSlots;
    p->data_ = ::operator new(blocks* kBlockBytes);
    p->data_deleter_ = FreeBlocks;
    p->slots_ = slots;
    p->size_ = 0;
    *Tail(p.get()) = DenseTail{fib_shift, kNone, kNone};
    for (uint64_t b = 0; b < blocks; ++b) {
      std::memset(static_cast<char*>(p->data_) + b * kBlockBytes, kEmpty, kBlockSlots);
    }
    return p;
  }
  template <typename ObjT>
  static ObjectPtr<Object> DenseCopy(const MapBaseObj* from) {
    ObjectPtr<ObjT> p = DenseEmpty<ObjT>(Tail(from)->fib_shift, from->slots_);
    for (uint64_t i = 0; i < from->slots_; ++i) {
      uint8_t meta = Meta(from, i);
      FFI_ICHECK(meta != kProtected);
      if (meta == kEmpty) continue;
      new (&Item(p.get(), i)) DenseItem(Item(from, i));
      Meta(p.get(), i) = meta;
    }
    p->size_ = from->size_;
    Tail(p.get())->iter_head = Tail(from)->iter_head;
    Tail(p.get())->iter_tail = Tail(from)->iter_tail;
    return ObjectPtr<Object>(std::move(p));
  }
  /*! \brief Inserts or overwrites; returns a replacement table when this one had to grow. */
  template <typename ObjT>
  static ObjectPtr<Object> DenseInsert(KV&& kv, const ObjectPtr<Object>& map) {
    MapBaseObj* m = static_cast<MapBaseObj*>(map.get());
    uint64_t i;
    if (TryInsert(m, kv.first, &i)) {
      Item(m, i).kv.second = std::move(kv.second);
      ListPushBack(m, i);
      return nullptr;
    }
    // Grow: twice the slots, entries re-inserted in iteration order.
    ObjectPtr<Object> grown = DenseEmpty<ObjT>(Tail(m)->fib_shift - 1, m->slots_ * 2);
    for (uint64_t at = Tail(m)->iter_head; at != kNone;) {
      ObjectPtr<Object> again = DenseInsert<ObjT>(std::move(Item(m, at).kv), grown);
      if (again) grown = std::move(again);
      uint64_t next = Item(m, at).next;
      DestroyItem(m, at);
      at = next;
    }
    ObjectPtr<Object> again = DenseInsert<ObjT>(std::move(kv), grown);
    if (again) grown = std::move(again);
    DenseReleaseMemory(m);
    return grown;
  }
  /*! \brief The convention's table size for `cap` entries: a power of two above it. */
  static void TableSize(uint64_t cap, uint32_t* fib_shift, uint64_t* slots) {
    uint32_t shift = 64;
    uint64_t n = 1;
    for (uint64_t c = cap; c != 0; c >>= 1) {
      --shift;
      n <<= 1;
    }
    if (n < cap * 2) {
      *fib_shift = shift - 1;
      *slots = n << 1;
    } else {
      *fib_shift = shift;
      *slots = n;
    }
  }

  // ---- either form -------------------------------------------------------------------------
  /*! \brief A table of [first, last), later duplicates overwriting earlier ones. */
  template <typename ObjT, typename It>
  static ObjectPtr<Object> FromRange(It first, It last) {
    uint64_t cap = 0;
    for (It it = first; it != last; ++it) ++cap;
    if (cap < 2) return SmallFromRange<ObjT>(cap, first, last);
    ObjectPtr<Object> map;
    uint32_t fib_shift = 0;
    uint64_t slots = 0;
    if (cap < kSmallMaxSlots) {
      map = SmallEmpty<ObjT>(cap);
    } else {
      TableSize(cap, &fib_shift, &slots);
      map = DenseEmpty<ObjT>(fib_shift, slots);
    }
    for (; first != last; ++first) {
      ObjectPtr<Object> again = cap < kSmallMaxSlots ? SmallInsert<ObjT>(KV(*first), map)
                                                     : DenseInsert<ObjT>(KV(*first), map);
      if (again) map = std::move(again);
    }
    return map;
  }
  /*! \brief Inserts or overwrites `kv`; returns a replacement table when `map` had no room. */
  template <typename ObjT>
  static ObjectPtr<Object> Insert(KV&& kv, const ObjectPtr<Object>& map) {
    MapBaseObj* m = static_cast<MapBaseObj*>(map.get());
    if (!IsSmall(m)) return DenseInsert<ObjT>(std::move(kv), map);
    if (Slots(m) < kSmallMaxSlots || m->size_ < Slots(m)) {
      return SmallInsert<ObjT>(std::move(kv), map);
    }
    KV* data = SmallData(m);
    ObjectPtr<Object> dense = FromRange<ObjT>(data, data + m->size_);
    ObjectPtr<Object> again = DenseInsert<ObjT>(std::move(kv), dense);
    return again ? again : dense;
  }
  /*! \brief A copy of `from`, same form, same iteration order. */
  template <typename ObjT>
  static ObjectPtr<Object> Copy(const MapBaseObj* from) {
    if (!IsSmall(from)) return DenseCopy<ObjT>(from);
    KV* data = SmallData(from);
    return SmallFromRange<ObjT>(from->size_, data, data + from->size_);
  }
  /*!
   * \brief Makes `self` (a shared Dict) take over the storage of `other`, the replacement table
   * an insertion returned; `other` is left empty.
   */
  static void SwitchTo(MapBaseObj* self, ObjectPtr<Object>&& other) {
    MapBaseObj* o = static_cast<MapBaseObj*>(other.get());
    if (IsSmall(self)) {
      SmallReset(self);
    } else {
      DenseReset(self);
      FFI_ICHECK(!IsSmall(o)) << "a dense table cannot turn small";
    }
    self->size_ = o->size_;
    self->slots_ = o->slots_;
    self->data_ = o->data_;
    if (IsSmall(o)) {
      if (o->data_deleter_ != nullptr) {
        self->data_deleter_ = o->data_deleter_;
      } else {
        // The entries live inside `other`: keep it alive until they are released.
        self->data_deleter_ = ReleaseInlineOwner;
        (void)other.release();
      }
    } else {
      // The small object's allocation always has room for the dense fields.
      self->data_deleter_ = o->data_deleter_;
      *Tail(self) = *Tail(o);
    }
    o->data_ = nullptr;
    o->data_deleter_ = nullptr;
    o->size_ = 0;
    o->slots_ = 0;
  }
};
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_MAP_IMPL_H_
