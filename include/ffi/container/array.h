/*
 * ffi/container/array.h - Array<T>: an immutable-looking, shared sequence with copy-on-write.
 *
 * The object is an ArrayObj (type index kTVMFFIArray, key "ffi.Array"): the sequence cell of
 * container/seq_base.h with its Any cells in the same allocation. Copies of an Array share the
 * object; a mutation (push_back, Set, erase, ...) through a reference that is not the only one
 * first copies it, so other holders never see the change. A Tuple is stored as an ArrayObj too.
 */
#ifndef FFI_CONTAINER_ARRAY_H_
#define FFI_CONTAINER_ARRAY_H_

#include <initializer_list>
#include <type_traits>
#include <utility>

#include "seq_base.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

template <typename T>
class Array;

/*!
 * \brief Whether dereferencing an `IterType` gives a `T` or a class derived from it, i.e. the
 * values fill an Array<T> without a conversion (TVM-FFI's check; an Array<Any> takes anything).
 */
template <typename T, typename IterType>
struct is_valid_iterator
    : std::bool_constant<std::is_base_of_v<T, std::decay_t<decltype(*std::declval<IterType>())>> ||
                         std::is_same_v<T, std::decay_t<decltype(*std::declval<IterType>())>>> {};
/*! \brief An Optional<T> takes what a T takes. */
template <typename T, typename IterType>
struct is_valid_iterator<Optional<T>, IterType> : is_valid_iterator<T, IterType> {};
template <typename IterType>
struct is_valid_iterator<Any, IterType> : std::true_type {};
/*! \brief is_valid_iterator<T, IterType>::value. */
template <typename T, typename IterType>
inline constexpr bool is_valid_iterator_v = is_valid_iterator<T, IterType>::value;

/*! \brief The object behind Array<T> and Tuple<...>: Any cells stored inline after the cell. */
class ArrayObj : public SeqBaseObj {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Array", ArrayObj, Object, kTVMFFIArray);
  /*! \brief ArrayObj has no subclasses. */
  static constexpr bool _type_final = true;
  /*! \brief Capacity of a new empty array. */
  static constexpr int64_t kInitSize = 4;
  /*! \brief Factor the capacity grows by when full. */
  static constexpr int64_t kIncFactor = 2;

  /*! \brief An empty array with room for `capacity` values; ValueError if negative. */
  static ObjectPtr<ArrayObj> Empty(int64_t capacity = kInitSize) {
    if (capacity < 0) FFI_THROW(ValueError) << "cannot construct an Array of negative size";
    if (static_cast<uint64_t>(capacity) > SIZE_MAX / sizeof(Any)) {
      FFI_THROW(OverflowError) << "Array capacity " << capacity << " is too large";
    }
    ObjectPtr<ArrayObj> p =
        make_object_with_extra<ArrayObj>(static_cast<size_t>(capacity) * sizeof(Any));
    p->data = detail::ExtraStorage(p.get());
    p->SetCapacity(capacity);
    return p;
  }
  /*! \brief A new array of `capacity` (at least `from`'s size) holding copies of its values. */
  static ObjectPtr<ArrayObj> CopyFrom(int64_t capacity, const ArrayObj* from) {
    ObjectPtr<ArrayObj> p = Empty(capacity < from->Len() ? from->Len() : capacity);
    for (const Any& v : *from) p->EmplaceBack(v);
    return p;
  }
  /*! \brief A new array of `capacity` (at least `from`'s size) taking `from`'s values. */
  static ObjectPtr<ArrayObj> MoveFrom(int64_t capacity, ArrayObj* from) {
    ObjectPtr<ArrayObj> p = Empty(capacity < from->Len() ? from->Len() : capacity);
    p->RelocateFrom(from);
    return p;
  }
  /*! \brief An array of `n` copies of `value`. */
  static ObjectPtr<ArrayObj> CreateRepeated(int64_t n, const Any& value) {
    ObjectPtr<ArrayObj> p = Empty(n);
    p->EnlargeBy(n, value);
    return p;
  }

 private:
  template <typename>
  friend class Array;
  template <typename...>
  friend class Tuple;
  template <typename, typename>
  friend struct TypeTraits;
};

/*!
 * \brief A shared sequence of `T` (Any for values of any type), copy-on-write. Never null: a
 * default Array is empty. Reading gives `T` by value; indices are checked (IndexError).
 *
 *     Array<int64_t> a = {1, 2, 3};
 *     Array<int64_t> b = a;  // shares
 *     b.push_back(4);        // b copies first; a is still [1, 2, 3]
 */
template <typename T>
class Array : public ObjectRef {
 public:
  /*! \brief The element type. */
  using value_type = T;
  /*! \brief Iterator yielding `T` by value. */
  using iterator = detail::SeqIterator<T, 1>;
  /*! \brief Same as iterator (an Array is only changed through its methods). */
  using const_iterator = iterator;
  /*! \brief Iterator from the last value to the first. */
  using reverse_iterator = detail::SeqIterator<T, -1>;
  /*! \brief Name in type strings and mismatch messages. */
  static constexpr const char kSeqName[] = "Array";

  /*! \brief An empty array. */
  Array() : ObjectRef(ArrayObj::Empty()) {}
  Array(const Array&) = default;
  Array(Array&&) = default;
  Array& operator=(const Array&) = default;
  Array& operator=(Array&&) = default;
  /*! \brief Shares an Array<U> whose values are all `T`s (Array<Any> from Array<int>, ...). */
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  Array(const Array<U>& other) : ObjectRef(other) {}
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  Array(Array<U>&& other) : ObjectRef(std::move(other)) {}
  /*! \brief Wraps an ArrayObj. */
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null Array, for a field filled in before use (see UnsafeInit). */
  explicit Array(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief The values of [first, last), converted to `T`. */
  template <typename Iter, typename = std::enable_if_t<detail::kIsIterator<Iter>>>
  Array(Iter first, Iter last) {
    Assign(first, last);
  }
  /*! \brief The listed values. */
  Array(std::initializer_list<T> init) { Assign(init.begin(), init.end()); }
  /*! \brief The values of a range such as std::vector<T> (no <vector> needed here). */
  template <typename C, typename = std::enable_if_t<detail::kIsRangeOf<C, T>>>
  Array(const C& range) {
    Assign(std::begin(range), std::end(range));
  }
  /*! \brief `n` copies of `value`. */
  explicit Array(size_t n, const T& value)
      : ObjectRef(ArrayObj::CreateRepeated(static_cast<int64_t>(n), Any(value))) {}

  iterator begin() const { return iterator(GetArrayObj() ? GetArrayObj()->begin() : nullptr); }
  iterator end() const { return iterator(GetArrayObj() ? GetArrayObj()->end() : nullptr); }
  reverse_iterator rbegin() const { return reverse_iterator(end().cell() - 1); }
  reverse_iterator rend() const { return reverse_iterator(begin().cell() - 1); }

  /*! \brief Value `i`; IndexError unless 0 <= i < size(). */
  T operator[](int64_t i) const { return detail::CopyFromAnyViewAfterCheck<T>(Obj()->at(i).raw()); }
  /*! \brief Number of values. */
  size_t size() const { return GetArrayObj() ? GetArrayObj()->size() : 0; }
  /*! \brief Number of values the object has room for. */
  size_t capacity() const { return GetArrayObj() ? GetArrayObj()->capacity() : 0; }
  /*! \brief Whether there are no values. */
  bool empty() const { return size() == 0; }
  /*! \brief The first value; IndexError when empty. */
  T front() const { return detail::CopyFromAnyViewAfterCheck<T>(Obj()->front().raw()); }
  /*! \brief The last value; IndexError when empty. */
  T back() const { return detail::CopyFromAnyViewAfterCheck<T>(Obj()->back().raw()); }

  /*! \brief Appends `item`. */
  void push_back(const T& item) {
    Any value(item);  // made before the storage may move: `item` may refer into it
    CopyOnWrite(1)->EmplaceBack(std::move(value));
  }
  /*! \brief Appends a `T` made from `args`. */
  template <typename... Args>
  void emplace_back(Args&&... args) {
    Any value(T(std::forward<Args>(args)...));
    CopyOnWrite(1)->EmplaceBack(std::move(value));
  }
  /*! \brief Inserts `value` before `position`. */
  void insert(iterator position, const T& value) {
    int64_t idx = position - begin();
    CheckInsertIndex(idx);
    Any item(value);
    CopyOnWrite(1)->insert(idx, std::move(item));
  }
  /*! \brief Inserts the values of [first, last) before `position`. */
  template <typename Iter, typename = std::enable_if_t<detail::kIsIterator<Iter>>>
  void insert(iterator position, Iter first, Iter last) {
    int64_t idx = position - begin();
    int64_t count = static_cast<int64_t>(std::distance(first, last));
    if (count == 0) return;
    CheckInsertIndex(idx);
    // [first, last) may be this array's own values: keep their object alive while it is copied.
    ObjectPtr<Object> keep_alive = detail::kIsSeqIterator<Iter> ? data_ : ObjectPtr<Object>();
    CopyOnWrite(count)->insert(idx, first, last);
  }
  /*! \brief Drops the last value; IndexError when empty. */
  void pop_back() {
    if (empty()) FFI_THROW(IndexError) << "pop_back on empty sequence";
    CopyOnWrite()->pop_back();
  }
  /*! \brief Removes the value at `position`; IndexError when it is not one. */
  void erase(iterator position) {
    int64_t idx = position - begin();
    if (idx < 0 || idx >= static_cast<int64_t>(size())) {
      detail::ThrowSeqIndex(idx, static_cast<int64_t>(size()));
    }
    CopyOnWrite()->erase(idx);
  }
  /*! \brief Removes the values of [first, last). */
  void erase(iterator first, iterator last) {
    if (first == last) return;
    int64_t lo = first - begin(), hi = last - begin();
    if (lo < 0 || hi > static_cast<int64_t>(size()) || lo > hi) {
      FFI_THROW(IndexError) << "Erase range [" << lo << ", " << hi << ") out of bounds " << size();
    }
    CopyOnWrite()->erase(lo, hi);
  }
  /*! \brief Grows with None values or shrinks to `n` values; ValueError if n < 0. */
  void resize(int64_t n) {
    if (n < 0) FFI_THROW(ValueError) << "cannot resize an Array to negative size";
    int64_t cur = static_cast<int64_t>(size());
    if (n == cur) return;
    CopyOnWrite(n > cur ? n - cur : 0)->resize(n);
  }
  /*! \brief Makes room for `n` values. */
  void reserve(int64_t n) {
    if (GetArrayObj() == nullptr || n > static_cast<int64_t>(capacity())) SwitchContainer(n);
  }
  /*! \brief Drops every value. */
  void clear() {
    if (!empty()) CopyOnWrite()->clear();
  }
  /*! \brief Replaces value `i`; IndexError unless 0 <= i < size() (then nothing is copied). */
  void Set(int64_t i, T value) {
    int64_t n = static_cast<int64_t>(size());
    if (i < 0 || i >= n) detail::ThrowSeqIndex(i, n);
    CopyOnWrite()->SetItem(i, Any(std::move(value)));
  }
  /*! \brief Replaces the values with those of [first, last). */
  template <typename Iter>
  void Assign(Iter first, Iter last) {
    int64_t n = static_cast<int64_t>(std::distance(first, last));
    ArrayObj* p = GetArrayObj();
    if (p != nullptr && data_.use_count() == 1 && p->Cap() >= n) {
      p->clear();
    } else {
      data_ = ArrayObj::Empty(n);
      p = GetArrayObj();
    }
    for (; first != last; ++first) p->EmplaceBack(Any(T(*first)));
  }
  /*!
   * \brief `fmap` applied to every value, as an Array<U>. When every result is the value itself
   * (same object or same bits) the result shares this array.
   */
  template <typename F, typename U = std::invoke_result_t<F, T>>
  Array<U> Map(F fmap) const {
    const ArrayObj* p = Obj();
    int64_t n = p->Len();
    int64_t k = 0;
    ObjectPtr<ArrayObj> out;
    for (; k < n && out == nullptr; ++k) {
      Any mapped(fmap(detail::CopyFromAnyViewAfterCheck<T>(p->begin()[k].raw())));
      if (!type_subsumes_v<U, T> || !SameValue(mapped, p->begin()[k])) {
        out = ArrayObj::Empty(n);
        for (int64_t j = 0; j < k; ++j) out->EmplaceBack(p->begin()[j]);
        out->EmplaceBack(std::move(mapped));
      }
    }
    if (out == nullptr) return Array<U>(data_);
    for (; k < n; ++k) {
      out->EmplaceBack(Any(fmap(detail::CopyFromAnyViewAfterCheck<T>(p->begin()[k].raw()))));
    }
    return Array<U>(ObjectPtr<Object>(std::move(out)));
  }
  /*!
   * \brief Replaces every value `v` by `fmutate(v)` (copying the array first when shared). Each
   * value is moved out of the array for the call, so an element the array alone held arrives as
   * its only reference (`fmutate` may change it in place); when `fmutate` throws, that element is
   * left None.
   */
  template <typename F>
  void MutateByApply(F fmutate) {
    if (empty()) return;
    ArrayObj* p = CopyOnWrite();
    for (int64_t k = 0; k < p->Len(); ++k) {
      Any* cell = p->MutableBegin() + k;
      T value = detail::CopyFromAnyViewAfterCheck<T>(cell->raw());
      *cell = Any();
      *cell = Any(T(fmutate(std::move(value))));
    }
  }

  /*! \brief The object (null only for an Array wrapping a null pointer). */
  ArrayObj* GetArrayObj() const { return static_cast<ArrayObj*>(const_cast<Object*>(get())); }
  const ArrayObj* operator->() const { return GetArrayObj(); }
  /*! \brief The object, copied first unless this reference is its only one. */
  ArrayObj* CopyOnWrite() {
    if (GetArrayObj() == nullptr) return SwitchContainer(ArrayObj::kInitSize);
    if (data_.use_count() != 1) return SwitchContainer(static_cast<int64_t>(capacity()));
    return GetArrayObj();
  }

  /*! \brief The object type behind Array. */
  using ContainerType = ArrayObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief An Array is never null. */
  static constexpr bool _type_is_nullable = false;

 private:
  const ArrayObj* Obj() const {
    if (FFI_UNLIKELY(GetArrayObj() == nullptr))
      FFI_THROW(IndexError) << "cannot index a null array";
    return GetArrayObj();
  }
  void CheckInsertIndex(int64_t idx) const {
    int64_t n = static_cast<int64_t>(size());
    if (idx < 0 || idx > n)
      FFI_THROW(IndexError) << "Index " << idx << " out of bounds [0, " << n << "]";
  }
  static bool SameValue(const Any& a, const Any& b) {
    return std::memcmp(a.raw(), b.raw(), sizeof(TVMFFIAny)) == 0;
  }
  /*! \brief The object with room for `extra` more values, copied or grown as needed. */
  ArrayObj* CopyOnWrite(int64_t extra) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr)
      return SwitchContainer(extra > ArrayObj::kInitSize ? extra : ArrayObj::kInitSize);
    if (p->Cap() >= p->Len() + extra) return CopyOnWrite();
    int64_t cap = p->Cap() * ArrayObj::kIncFactor;
    if (cap < p->Len() + extra) cap = p->Len() + extra;
    return SwitchContainer(cap);
  }
  /*! \brief Moves (when unique) or copies the values into a new object of `capacity`. */
  ArrayObj* SwitchContainer(int64_t capacity) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) {
      data_ = ArrayObj::Empty(capacity);
    } else if (data_.use_count() == 1) {
      data_ = ArrayObj::MoveFrom(capacity, p);
    } else {
      data_ = ArrayObj::CopyFrom(capacity, p);
    }
    return GetArrayObj();
  }

  template <typename>
  friend class Array;
};

/*! \brief `lhs` followed by the values of `rhs`. */
template <typename T>
Array<T> Concat(Array<T> lhs, const Array<T>& rhs) {
  lhs.insert(lhs.end(), rhs.begin(), rhs.end());
  return lhs;
}

/*! \brief Array<T> converts through its own traits, which look at the values. */
template <typename T>
inline constexpr bool use_default_type_traits_v<Array<T>> = false;
/*! \brief An Array<U> is an Array<T> when every U is a T (Array<Array<Any>> from
 * Array<Array<int>>). */
template <typename T, typename U>
inline constexpr bool type_subsumes_v<Array<T>, Array<U>> = type_subsumes_v<T, U>;

/*!
 * \brief Array<T>: kTVMFFIArray. An Array whose values are all stored as `T` is shared; a List, or
 * an Array whose values only convert to `T` (ints for Array<double>), is copied value by value.
 */
template <typename T>
struct TypeTraits<Array<T>> : detail::SeqTraits<Array<T>, T, kTVMFFIArray, kTVMFFIList> {};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_ARRAY_H_
