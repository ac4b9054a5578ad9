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
class ArrayObj : public detail::SeqObjCommon<ArrayObj> {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Array", ArrayObj, Object, kTVMFFIArray);
  /*! \brief ArrayObj has no subclasses. */
  static constexpr bool _type_final = true;

  /*! \brief An empty array with room for `capacity` values; ValueError if negative. */
  static ObjectPtr<ArrayObj> Empty(int64_t capacity = kInitSize) {
    if (capacity < 0) FFI_THROW(ValueError) << "cannot construct an Array of negative size";
    ObjectPtr<ArrayObj> p = make_object_with_extra<ArrayObj>(CellBytes(capacity, "Array"));
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
class Array : public detail::SeqRefBase<Array, T, ArrayObj> {
  using Base = detail::SeqRefBase<Array, T, ArrayObj>;

 public:
  /*! \brief An empty array. */
  Array() : Base(ArrayObj::Empty()) {}
  // The other constructors, the iterators, the readers and insert are SeqRefBase's; those used
  // below are named here, as the base depends on T.
  using Base::Base;
  using Base::begin;
  using Base::capacity;
  using Base::empty;
  using Base::size;
  using typename Base::iterator;

  /*! \brief Name in type strings and mismatch messages. */
  static constexpr const char kSeqName[] = "Array";

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
    WithRoom(n > cur ? n - cur : 0)->resize(n);
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
  ArrayObj* GetArrayObj() const { return this->SeqPtr(); }
  /*! \brief The object, copied first unless this reference is its only one. */
  ArrayObj* CopyOnWrite() {
    if (GetArrayObj() == nullptr) return SwitchContainer(ArrayObj::kInitSize);
    if (data_.use_count() != 1) return SwitchContainer(static_cast<int64_t>(capacity()));
    return GetArrayObj();
  }

 protected:
  using Base::data_;
  using Base::Obj;

 private:
  static bool SameValue(const Any& a, const Any& b) {
    return std::memcmp(a.raw(), b.raw(), sizeof(TVMFFIAny)) == 0;
  }
  /*! \brief Inserts the `count` values of [first, last) at `idx` (checked by the caller). */
  template <typename Iter>
  void InsertRange(int64_t idx, int64_t count, Iter first, Iter last) {
    // [first, last) may be this array's own values: keep their object alive while it is copied.
    ObjectPtr<Object> keep_alive = detail::kIsSeqIterator<Iter> ? data_ : ObjectPtr<Object>();
    WithRoom(count)->insert(idx, first, last);
  }
  /*! \brief The object with room for `extra` more values, copied or grown as needed. */
  ArrayObj* WithRoom(int64_t extra) {
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
  friend Base;  // its insert and push_back call InsertRange and WithRoom
};

/*! \brief `lhs` followed by the values of `rhs`. */
template <typename T>
Array<T> Concat(Array<T> lhs, const Array<T>& rhs) {
  lhs.insert(lhs.end(), rhs.begin(), rhs.end());
  return lhs;
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_ARRAY_H_
