/*
 * ffi/container/list.h - List<T>: a shared, mutable sequence.
 *
 * The object is a ListObj (type index kTVMFFIList, key "ffi.List"): the sequence cell of
 * container/seq_base.h with its Any cells in a separate buffer that grows in place, freed through
 * the cell's data_deleter. Unlike Array there is no copy-on-write: every copy of a List refers to
 * the same list and sees every change, like a Python list.
 */
#ifndef FFI_CONTAINER_LIST_H_
#define FFI_CONTAINER_LIST_H_

#include <initializer_list>

#include "array.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

template <typename T>
class List;

/*! \brief The object behind List<T>: Any cells in a separately allocated, growable buffer. */
class ListObj : public detail::SeqObjCommon<ListObj> {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.List", ListObj, Object, kTVMFFIList);
  /*! \brief ListObj has no subclasses. */
  static constexpr bool _type_final = true;

  /*! \brief An empty list with room for `capacity` values; ValueError if negative. */
  static ObjectPtr<ListObj> Empty(int64_t capacity = kInitSize) {
    if (capacity < 0) FFI_THROW(ValueError) << "cannot construct a List of negative size";
    ObjectPtr<ListObj> p = make_object<ListObj>();
    p->data_deleter = FreeBuffer;
    p->Reserve(capacity);
    return p;
  }
  /*!
   * \brief Grows the buffer to room for `n` values (nothing when it has that already). The new
   * buffer is ours, so data_deleter becomes ours too, whichever library made the list.
   */
  void Reserve(int64_t n) {
    if (n <= TVMFFISeqCell::capacity) return;
    void* fresh = ::operator new(CellBytes(n, "List"));
    if (TVMFFISeqCell::size != 0) {
      std::memcpy(fresh, data, static_cast<size_t>(TVMFFISeqCell::size) * sizeof(Any));
    }
    if (data != nullptr && data_deleter != nullptr) data_deleter(data);
    data = fresh;
    data_deleter = FreeBuffer;
    TVMFFISeqCell::capacity = n;
  }

 private:
  static void FreeBuffer(void* buffer) { ::operator delete(buffer); }

  template <typename>
  friend class List;
};

/*!
 * \brief A shared, mutable sequence of `T` (Any for values of any type). Never null: a default
 * List is empty. Copies share the list; changes through one are seen through all.
 */
template <typename T>
class List : public detail::SeqRefBase<List, T, ListObj> {
  using Base = detail::SeqRefBase<List, T, ListObj>;

 public:
  /*! \brief An empty list (no buffer until the first value). */
  List() : Base(ListObj::Empty(0)) {}
  // The other constructors, the iterators, the readers and insert are SeqRefBase's.
  using Base::Base;
  using typename Base::iterator;

  /*! \brief Name in type strings and mismatch messages. */
  static constexpr const char kSeqName[] = "List";

  /*! \brief Drops the last value; IndexError when empty. */
  void pop_back() { Mutable()->pop_back(); }
  /*! \brief Removes the value at `position`; IndexError when it is not one. */
  void erase(iterator position) { Mutable()->erase(position - this->begin()); }
  /*! \brief Removes the values of [first, last). */
  void erase(iterator first, iterator last) {
    if (first == last) return;
    Mutable()->erase(first - this->begin(), last - this->begin());
  }
  /*! \brief Grows with None values or shrinks to `n` values; ValueError if n < 0. */
  void resize(int64_t n) {
    if (n < 0) FFI_THROW(ValueError) << "cannot resize a List to negative size";
    int64_t cur = static_cast<int64_t>(this->size());
    WithRoom(n > cur ? n - cur : 0)->resize(n);
  }
  /*! \brief Makes room for `n` values (nothing when n is not more than the capacity). */
  void reserve(int64_t n) { Mutable()->Reserve(n); }
  /*! \brief Drops every value. */
  void clear() {
    if (GetListObj() != nullptr) GetListObj()->clear();
  }
  /*! \brief Replaces value `i`; IndexError unless 0 <= i < size(). */
  void Set(int64_t i, T value) { Mutable()->SetItem(i, Any(std::move(value))); }
  /*! \brief Replaces the values with those of [first, last). */
  template <typename Iter>
  void Assign(Iter first, Iter last) {
    Array<Any> items;
    items.reserve(static_cast<int64_t>(std::distance(first, last)));
    for (; first != last; ++first) items.push_back(Any(T(*first)));
    ListObj* p = Mutable();
    p->clear();
    p->Reserve(static_cast<int64_t>(items.size()));
    for (const Any& v : *items.GetArrayObj()) p->EmplaceBack(v);
  }

  /*! \brief The object (null only for a List wrapping a null pointer). */
  ListObj* GetListObj() const { return this->SeqPtr(); }

 private:
  /*! \brief The object, made when this List wraps none. */
  ListObj* Mutable() {
    if (GetListObj() == nullptr) this->data_ = ListObj::Empty(0);
    return GetListObj();
  }
  /*! \brief Inserts the `count` values of [first, last) at `idx` (checked by the caller). */
  template <typename Iter>
  void InsertRange(int64_t idx, int64_t count, Iter first, Iter last) {
    // [first, last) may be this list's own values: copy them before the buffer moves.
    Array<Any> items(first, last);
    WithRoom(count)->insert(idx, items.GetArrayObj()->begin(), items.GetArrayObj()->end());
  }
  /*! \brief The object with room for `extra` more values. */
  ListObj* WithRoom(int64_t extra) {
    ListObj* p = Mutable();
    int64_t need = p->Len() + extra;
    if (p->Cap() >= need) return p;
    int64_t cap = p->Cap() * ListObj::kIncFactor;
    p->Reserve(cap < need ? need : cap);
    return p;
  }

  template <typename>
  friend class List;
  friend Base;  // its insert and push_back call InsertRange and WithRoom
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_LIST_H_
