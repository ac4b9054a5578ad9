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
class ListObj : public SeqBaseObj {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.List", ListObj, Object, kTVMFFIList);
  /*! \brief ListObj has no subclasses. */
  static constexpr bool _type_final = true;
  /*! \brief Capacity of ListObj::Empty() by default. */
  static constexpr int64_t kInitSize = 4;
  /*! \brief Factor the capacity grows by when full. */
  static constexpr int64_t kIncFactor = 2;

  /*! \brief An empty list with room for `capacity` values; ValueError if negative. */
  static ObjectPtr<ListObj> Empty(int64_t capacity = kInitSize) {
    if (capacity < 0) FFI_THROW(ValueError) << "cannot construct a List of negative size";
    ObjectPtr<ListObj> p = make_object<ListObj>();
    p->data_deleter = FreeBuffer;
    p->Reserve(capacity);
    return p;
  }
  /*! \brief A list of `n` copies of `value`. */
  static ObjectPtr<ListObj> CreateRepeated(int64_t n, const Any& value) {
    ObjectPtr<ListObj> p = Empty(n);
    p->EnlargeBy(n, value);
    return p;
  }
  /*!
   * \brief Grows the buffer to room for `n` values (nothing when it has that already). The new
   * buffer is ours, so data_deleter becomes ours too, whichever library made the list.
   */
  void Reserve(int64_t n) {
    if (n <= TVMFFISeqCell::capacity) return;
    if (static_cast<uint64_t>(n) > SIZE_MAX / sizeof(Any)) {
      FFI_THROW(OverflowError) << "List capacity " << n << " is too large";
    }
    void* fresh = ::operator new(static_cast<size_t>(n) * sizeof(Any));
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
class List : public ObjectRef {
 public:
  /*! \brief The element type. */
  using value_type = T;
  /*! \brief Iterator yielding `T` by value. */
  using iterator = detail::SeqIterator<T, 1>;
  /*! \brief Same as iterator. */
  using const_iterator = iterator;
  /*! \brief Iterator from the last value to the first. */
  using reverse_iterator = detail::SeqIterator<T, -1>;
  /*! \brief Name in type strings and mismatch messages. */
  static constexpr const char kSeqName[] = "List";

  /*! \brief An empty list (no buffer until the first value). */
  List() : ObjectRef(ListObj::Empty(0)) {}
  List(const List&) = default;
  List(List&&) = default;
  List& operator=(const List&) = default;
  List& operator=(List&&) = default;
  /*! \brief Shares a List<U> whose values are all `T`s. */
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  List(const List<U>& other) : ObjectRef(other) {}
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  List(List<U>&& other) : ObjectRef(std::move(other)) {}
  /*! \brief Wraps a ListObj. */
  explicit List(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null List, for a field filled in before use (see UnsafeInit). */
  explicit List(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief The values of [first, last), converted to `T`. */
  template <typename Iter, typename = std::enable_if_t<detail::kIsIterator<Iter>>>
  List(Iter first, Iter last) : List() {
    Assign(first, last);
  }
  /*! \brief The listed values. */
  List(std::initializer_list<T> init) : List() { Assign(init.begin(), init.end()); }
  /*! \brief The values of a range such as std::vector<T>. */
  template <typename C, typename = std::enable_if_t<detail::kIsRangeOf<C, T>>>
  List(const C& range) : List() {
    Assign(std::begin(range), std::end(range));
  }
  /*! \brief `n` copies of `value`. */
  explicit List(size_t n, const T& value)
      : ObjectRef(ListObj::CreateRepeated(static_cast<int64_t>(n), Any(value))) {}

  iterator begin() const { return iterator(GetListObj() ? GetListObj()->begin() : nullptr); }
  iterator end() const { return iterator(GetListObj() ? GetListObj()->end() : nullptr); }
  reverse_iterator rbegin() const { return reverse_iterator(end().cell() - 1); }
  reverse_iterator rend() const { return reverse_iterator(begin().cell() - 1); }

  /*! \brief Value `i`; IndexError unless 0 <= i < size(). */
  T operator[](int64_t i) const { return detail::CopyFromAnyViewAfterCheck<T>(Obj()->at(i).raw()); }
  /*! \brief Number of values. */
  size_t size() const { return GetListObj() ? GetListObj()->size() : 0; }
  /*! \brief Number of values the buffer has room for. */
  size_t capacity() const { return GetListObj() ? GetListObj()->capacity() : 0; }
  /*! \brief Whether there are no values. */
  bool empty() const { return size() == 0; }
  /*! \brief The first value; IndexError when empty. */
  T front() const { return detail::CopyFromAnyViewAfterCheck<T>(Obj()->front().raw()); }
  /*! \brief The last value; IndexError when empty. */
  T back() const { return detail::CopyFromAnyViewAfterCheck<T>(Obj()->back().raw()); }

  /*! \brief Appends `item`. */
  void push_back(const T& item) {
    Any value(item);  // made before growing: `item` may be a value of this list
    EnsureCapacity(1)->EmplaceBack(std::move(value));
  }
  /*! \brief Appends a `T` made from `args`. */
  template <typename... Args>
  void emplace_back(Args&&... args) {
    Any value(T(std::forward<Args>(args)...));
    EnsureCapacity(1)->EmplaceBack(std::move(value));
  }
  /*! \brief Inserts `value` before `position`. */
  void insert(iterator position, const T& value) {
    int64_t idx = position - begin();
    CheckInsertIndex(idx);
    Any item(value);
    EnsureCapacity(1)->insert(idx, std::move(item));
  }
  /*! \brief Inserts the values of [first, last) before `position`. */
  template <typename Iter, typename = std::enable_if_t<detail::kIsIterator<Iter>>>
  void insert(iterator position, Iter first, Iter last) {
    int64_t idx = position - begin();
    int64_t count = static_cast<int64_t>(std::distance(first, last));
    if (count == 0) return;
    CheckInsertIndex(idx);
    // [first, last) may be this list's own values: copy them before the buffer moves.
    Array<Any> items(first, last);
    EnsureCapacity(count)->insert(idx, items.GetArrayObj()->begin(), items.GetArrayObj()->end());
  }
  /*! \brief Drops the last value; IndexError when empty. */
  void pop_back() { Mutable()->pop_back(); }
  /*! \brief Removes the value at `position`; IndexError when it is not one. */
  void erase(iterator position) { Mutable()->erase(position - begin()); }
  /*! \brief Removes the values of [first, last). */
  void erase(iterator first, iterator last) {
    if (first == last) return;
    Mutable()->erase(first - begin(), last - begin());
  }
  /*! \brief Grows with None values or shrinks to `n` values; ValueError if n < 0. */
  void resize(int64_t n) {
    if (n < 0) FFI_THROW(ValueError) << "cannot resize a List to negative size";
    int64_t cur = static_cast<int64_t>(size());
    EnsureCapacity(n > cur ? n - cur : 0)->resize(n);
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
  ListObj* GetListObj() const { return static_cast<ListObj*>(const_cast<Object*>(get())); }
  const ListObj* operator->() const { return GetListObj(); }

  /*! \brief The object type behind List. */
  using ContainerType = ListObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief A List is never null. */
  static constexpr bool _type_is_nullable = false;

 private:
  const ListObj* Obj() const {
    if (FFI_UNLIKELY(GetListObj() == nullptr)) FFI_THROW(IndexError) << "cannot index a null list";
    return GetListObj();
  }
  /*! \brief The object, made when this List wraps none. */
  ListObj* Mutable() {
    if (GetListObj() == nullptr) data_ = ListObj::Empty(0);
    return GetListObj();
  }
  void CheckInsertIndex(int64_t idx) const {
    int64_t n = static_cast<int64_t>(size());
    if (idx < 0 || idx > n)
      FFI_THROW(IndexError) << "Index " << idx << " out of bounds [0, " << n << "]";
  }
  /*! \brief The object with room for `extra` more values. */
  ListObj* EnsureCapacity(int64_t extra) {
    ListObj* p = Mutable();
    int64_t need = p->Len() + extra;
    if (p->Cap() >= need) return p;
    int64_t cap = p->Cap() * ListObj::kIncFactor;
    p->Reserve(cap < need ? need : cap);
    return p;
  }

  template <typename>
  friend class List;
};

/*! \brief List<T> converts through its own traits, which look at the values. */
template <typename T>
inline constexpr bool use_default_type_traits_v<List<T>> = false;
/*! \brief A List<U> is a List<T> when every U is a T. */
template <typename T, typename U>
inline constexpr bool type_subsumes_v<List<T>, List<U>> = type_subsumes_v<T, U>;

/*!
 * \brief List<T>: kTVMFFIList. A List whose values are all stored as `T` is shared (so changes
 * through either side are seen by both); an Array, or values that only convert, are copied.
 */
template <typename T>
struct TypeTraits<List<T>> : detail::SeqTraits<List<T>, T, kTVMFFIList, kTVMFFIArray> {};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_LIST_H_
