/*
 * ffi/container/seq_base.h - what Array and List share: the object layout of a sequence, the
 * iterators of a typed sequence reference, and its Any conversions. Not for users to include.
 *
 * A sequence object is {TVMFFIObject, data, size, capacity, data_deleter}: `data` points at
 * `capacity` cells of TVMFFIAny (Any), of which the first `size` hold values. An Array keeps its
 * cells in the object's own allocation (data_deleter null); a List in a separate buffer freed by
 * data_deleter. Kernels built with either implementation's headers read these fields inline.
 */
#ifndef FFI_CONTAINER_SEQ_BASE_H_
#define FFI_CONTAINER_SEQ_BASE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "../any.h"
#include "../detail/type_schema.h"
#include "../error.h"
#include "../object.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
static_assert(sizeof(TVMFFISeqCell) == 32, "the sequence cell is four 8-byte fields");
static_assert(sizeof(Any) == sizeof(TVMFFIAny), "sequence cells are Any values");

/*! \brief Throws the IndexError TVM-FFI's sequences raise for index `i` of `size` values. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowSeqIndex(int64_t i, int64_t size) {
  FFI_THROW(IndexError) << "Index " << i << " out of bounds " << size;
}
}  // namespace detail

/*!
 * \brief Base of ArrayObj and ListObj: a run of Any values. It has no type index of its own (the
 * concrete object's is kTVMFFIArray or kTVMFFIList). Indices are checked: IndexError when out of
 * range. Growing operations assume the caller has reserved the capacity.
 */
class SeqBaseObj : public Object, protected TVMFFISeqCell {
 public:
  SeqBaseObj() {
    data = nullptr;
    TVMFFISeqCell::size = 0;
    TVMFFISeqCell::capacity = 0;
    data_deleter = nullptr;
  }
  ~SeqBaseObj() {
    ShrinkBy(TVMFFISeqCell::size);
    if (data_deleter != nullptr) data_deleter(data);
  }

  /*! \brief Number of values. */
  size_t size() const { return static_cast<size_t>(TVMFFISeqCell::size); }
  /*! \brief Number of cells allocated. */
  size_t capacity() const { return static_cast<size_t>(TVMFFISeqCell::capacity); }
  /*! \brief Whether there are no values. */
  bool empty() const { return TVMFFISeqCell::size == 0; }
  /*! \brief Value `i`; IndexError unless 0 <= i < size. */
  const Any& at(int64_t i) const { return (*this)[i]; }
  /*! \brief Value `i`; IndexError unless 0 <= i < size. */
  const Any& operator[](int64_t i) const {
    if (FFI_UNLIKELY(i < 0 || i >= TVMFFISeqCell::size))
      detail::ThrowSeqIndex(i, TVMFFISeqCell::size);
    return begin()[i];
  }
  /*! \brief The first value; IndexError when empty. */
  const Any& front() const {
    if (FFI_UNLIKELY(TVMFFISeqCell::size == 0))
      FFI_THROW(IndexError) << "front() on empty sequence";
    return begin()[0];
  }
  /*! \brief The last value; IndexError when empty. */
  const Any& back() const {
    if (FFI_UNLIKELY(TVMFFISeqCell::size == 0)) FFI_THROW(IndexError) << "back() on empty sequence";
    return begin()[TVMFFISeqCell::size - 1];
  }
  const Any* begin() const { return static_cast<const Any*>(data); }
  const Any* end() const { return begin() + TVMFFISeqCell::size; }

  /*! \brief Drops every value (the capacity stays). */
  void clear() { ShrinkBy(TVMFFISeqCell::size); }
  /*! \brief Replaces value `i`; IndexError unless 0 <= i < size. */
  void SetItem(int64_t i, Any item) {
    if (FFI_UNLIKELY(i < 0 || i >= TVMFFISeqCell::size))
      detail::ThrowSeqIndex(i, TVMFFISeqCell::size);
    MutableBegin()[i] = std::move(item);
  }
  /*! \brief Drops the last value; IndexError when empty. */
  void pop_back() {
    if (FFI_UNLIKELY(TVMFFISeqCell::size == 0))
      FFI_THROW(IndexError) << "pop_back on empty sequence";
    ShrinkBy(1);
  }
  /*! \brief Removes value `i`; IndexError unless 0 <= i < size. */
  void erase(int64_t i) {
    if (FFI_UNLIKELY(i < 0 || i >= TVMFFISeqCell::size))
      detail::ThrowSeqIndex(i, TVMFFISeqCell::size);
    EraseUnchecked(i, i + 1);
  }
  /*! \brief Removes values [first, last); IndexError unless 0 <= first <= last <= size. */
  void erase(int64_t first, int64_t last) {
    if (first == last) return;
    if (FFI_UNLIKELY(first < 0 || last > TVMFFISeqCell::size || first > last)) {
      FFI_THROW(IndexError) << "Erase range [" << first << ", " << last << ") out of bounds "
                            << TVMFFISeqCell::size;
    }
    EraseUnchecked(first, last);
  }
  /*! \brief Inserts `item` before index `i` (capacity reserved); IndexError unless i <= size. */
  void insert(int64_t i, Any item) {
    CheckInsertIndex(i);
    new (MutableEnd()) Any(std::move(item));
    ++TVMFFISeqCell::size;
    RotateTailTo(i, 1);
  }
  /*!
   * \brief Inserts the values of [first, last) before index `i` (capacity reserved). They are
   * appended first and then rotated into place, so a conversion that throws leaves the sequence
   * as it was.
   */
  template <typename Iter>
  void insert(int64_t i, Iter first, Iter last) {
    CheckInsertIndex(i);
    int64_t old_size = TVMFFISeqCell::size;
    try {
      for (; first != last; ++first) {
        new (MutableEnd()) Any(*first);
        ++TVMFFISeqCell::size;
      }
    } catch (...) {
      ShrinkBy(TVMFFISeqCell::size - old_size);
      throw;
    }
    RotateTailTo(i, TVMFFISeqCell::size - old_size);
  }
  /*! \brief Reverses the values in place. */
  void Reverse() { ReverseCells(0, TVMFFISeqCell::size); }
  /*! \brief Grows with None values (capacity reserved) or shrinks to `n`; ValueError if n < 0. */
  void resize(int64_t n) {
    if (n < 0) FFI_THROW(ValueError) << "Cannot resize to negative size";
    if (n > TVMFFISeqCell::size) EnlargeBy(n - TVMFFISeqCell::size);
    if (n < TVMFFISeqCell::size) ShrinkBy(TVMFFISeqCell::size - n);
  }

 protected:
  /*! \brief Number of values, signed (the cell's own field). */
  int64_t Len() const { return TVMFFISeqCell::size; }
  /*! \brief Number of cells allocated, signed. */
  int64_t Cap() const { return TVMFFISeqCell::capacity; }
  /*! \brief Records the number of cells allocated (by the concrete object's allocator). */
  void SetCapacity(int64_t n) { TVMFFISeqCell::capacity = n; }
  Any* MutableBegin() const { return static_cast<Any*>(data); }
  Any* MutableEnd() const { return MutableBegin() + TVMFFISeqCell::size; }
  /*! \brief Appends copies of `value` (capacity reserved). */
  void EnlargeBy(int64_t count, const Any& value = Any()) {
    for (; count > 0; --count) {
      new (MutableEnd()) Any(value);
      ++TVMFFISeqCell::size;
    }
  }
  /*! \brief Destroys the last `count` values. */
  void ShrinkBy(int64_t count) {
    for (; count > 0; --count) {
      --TVMFFISeqCell::size;
      MutableEnd()->~Any();
    }
  }
  /*! \brief Appends `value` (capacity reserved). */
  void EmplaceBack(Any value) {
    new (MutableEnd()) Any(std::move(value));
    ++TVMFFISeqCell::size;
  }
  /*!
   * \brief Moves the cells of `from` (size <= our capacity) into our empty storage, leaving `from`
   * empty. An Any is only its 16 bytes, so a move is a copy of them.
   */
  void RelocateFrom(SeqBaseObj* from) {
    if (from->TVMFFISeqCell::size != 0) {
      std::memcpy(data, from->data, static_cast<size_t>(from->TVMFFISeqCell::size) * sizeof(Any));
    }
    TVMFFISeqCell::size = from->TVMFFISeqCell::size;
    from->TVMFFISeqCell::size = 0;
  }

 private:
  void CheckInsertIndex(int64_t i) const {
    if (FFI_UNLIKELY(i < 0 || i > TVMFFISeqCell::size)) {
      FFI_THROW(IndexError) << "Index " << i << " out of bounds [0, " << TVMFFISeqCell::size << "]";
    }
  }
  /*! \brief Swaps the raw cells of [lo, hi) end for end. */
  void ReverseCells(int64_t lo, int64_t hi) {
    TVMFFIAny* cells = static_cast<TVMFFIAny*>(data);
    for (--hi; lo < hi; ++lo, --hi) {
      TVMFFIAny tmp = cells[lo];
      cells[lo] = cells[hi];
      cells[hi] = tmp;
    }
  }
  /*! \brief Moves the last `count` values to index `i`, shifting [i, size - count) right. */
  void RotateTailTo(int64_t i, int64_t count) {
    int64_t split = TVMFFISeqCell::size - count;
    if (i == split) return;
    ReverseCells(i, split);
    ReverseCells(split, TVMFFISeqCell::size);
    ReverseCells(i, TVMFFISeqCell::size);
  }
  /*! \brief Destroys [first, last) and closes the gap. */
  void EraseUnchecked(int64_t first, int64_t last) {
    Any* cells = MutableBegin();
    for (int64_t k = first; k < last; ++k) cells[k].~Any();
    std::memmove(static_cast<void*>(cells + first), static_cast<void*>(cells + last),
                 static_cast<size_t>(TVMFFISeqCell::size - last) * sizeof(Any));
    TVMFFISeqCell::size -= last - first;
  }
};

namespace detail {
/*!
 * \brief Iterator over the values of a typed sequence, reading each as a `T` (by value), or for
 * `Any` the stored value itself (a const reference, as the reference's iterator gives, so that
 * views of the elements can be taken while the sequence lives). `Step` is +1 (forward) or -1
 * (reverse).
 */
template <typename T, int Step>
class SeqIterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = T;
  using pointer = const T*;
  using reference = std::conditional_t<std::is_same_v<T, Any>, const Any&, T>;
  using iterator_category = std::random_access_iterator_tag;

  SeqIterator() = default;
  explicit SeqIterator(const Any* cell) : cell_(cell) {}
  reference operator*() const {
    if constexpr (std::is_same_v<T, Any>) {
      return *cell_;
    } else {
      return CopyFromAnyViewAfterCheck<T>(cell_->raw());
    }
  }
  reference operator[](difference_type n) const { return *(*this + n); }
  SeqIterator& operator++() { return *this += 1; }
  SeqIterator& operator--() { return *this -= 1; }
  SeqIterator operator++(int) {
    SeqIterator old = *this;
    ++*this;
    return old;
  }
  SeqIterator operator--(int) {
    SeqIterator old = *this;
    --*this;
    return old;
  }
  SeqIterator& operator+=(difference_type n) {
    cell_ += n * Step;
    return *this;
  }
  SeqIterator& operator-=(difference_type n) { return *this += -n; }
  SeqIterator operator+(difference_type n) const { return SeqIterator(*this) += n; }
  SeqIterator operator-(difference_type n) const { return SeqIterator(*this) -= n; }
  difference_type operator-(const SeqIterator& o) const { return (cell_ - o.cell_) * Step; }
  bool operator==(const SeqIterator& o) const { return cell_ == o.cell_; }
  bool operator!=(const SeqIterator& o) const { return cell_ != o.cell_; }
  bool operator<(const SeqIterator& o) const { return (*this - o) < 0; }
  bool operator>(const SeqIterator& o) const { return (*this - o) > 0; }
  bool operator<=(const SeqIterator& o) const { return (*this - o) <= 0; }
  bool operator>=(const SeqIterator& o) const { return (*this - o) >= 0; }
  /*! \brief The cell this iterator is at. */
  const Any* cell() const { return cell_; }

 private:
  const Any* cell_ = nullptr;
};

/*! \brief Whether `Iter` reads the cells of a sequence (and so may point into the one written). */
template <typename Iter>
constexpr bool kIsSeqIterator = false;
template <typename T, int Step>
constexpr bool kIsSeqIterator<SeqIterator<T, Step>> = true;

/*! \brief Whether `Iter` can be dereferenced (tells an iterator pair from `(n, value)`). */
template <typename Iter, typename = void>
constexpr bool kIsIterator = false;
template <typename Iter>
constexpr bool kIsIterator<
    Iter, std::void_t<decltype(*std::declval<Iter&>()), decltype(++std::declval<Iter&>())>> = true;

/*!
 * \brief Whether `C` is a range other than an object reference (std::vector<T>, std::array, a C
 * array...) whose values make `T`s: the sequences take those in their constructors.
 */
template <typename C, typename T, typename = void>
constexpr bool kIsRangeOf = false;
template <typename C, typename T>
constexpr bool kIsRangeOf<
    C, T,
    std::enable_if_t<!std::is_base_of_v<ObjectRef, C> &&
                     std::is_constructible_v<T, decltype(*std::begin(std::declval<const C&>()))> &&
                     std::is_same_v<decltype(std::begin(std::declval<const C&>())),
                                    decltype(std::end(std::declval<const C&>()))>>> = true;

/*!
 * \brief The Any conversions of Array<T> and List<T> (`Ref`), with object kind `Primary` and the
 * other sequence kind `Other`, as TVM-FFI converts them: a `Primary` object whose values are all
 * stored as `T` is shared; otherwise (an `Other` object, or values needing conversion) a new
 * `Ref` is built with every value converted, or nothing when one does not convert.
 */
template <typename Ref, typename T, int32_t Primary, int32_t Other>
struct SeqTraits : TypeTraitsBase {
  static constexpr int32_t field_static_type_index = Primary;
  static void CopyToAnyView(const Ref& v, TVMFFIAny* out) {
    SetObject(ObjectUnsafe::HeaderOf(v), out);
  }
  static void MoveToAny(Ref v, TVMFFIAny* out) {
    SetObject(ObjectUnsafe::MoveToHeader(std::move(v)), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index != Primary) return false;
    if constexpr (!std::is_same_v<T, Any>) {
      for (const Any& v : *Seq(src)) {
        if (!TypeTraits<T>::CheckAnyStrict(v.raw())) return false;
      }
    }
    return true;
  }
  static detail::CastResult<Ref> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != Primary && src->type_index != Other) return std::nullopt;
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    const SeqBaseObj* seq = Seq(src);
    Ref out;
    out.reserve(static_cast<int64_t>(seq->size()));
    for (const Any& v : *seq) {
      auto item = TypeTraits<T>::TryCastFromAnyView(v.raw());
      if (!item.has_value()) return std::nullopt;
      out.push_back(*std::move(item));
    }
    return out;
  }
  static Ref CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return ObjectUnsafe::RefFromBorrowedHeader<Ref>(src->v_obj);
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index == Primary || src->type_index == Other) {
      const SeqBaseObj* seq = Seq(src);
      for (size_t i = 0; i < seq->size(); ++i) {
        const TVMFFIAny* v = (*seq)[static_cast<int64_t>(i)].raw();
        if (TypeTraits<T>::TryCastFromAnyView(v).has_value()) continue;
        return std::string(Ref::kSeqName) + "[index " + std::to_string(i) + ": " +
               MismatchTypeInfo<T>(v) + "]";
      }
    }
    return MismatchName(src->type_index);
  }
  static constexpr auto TypeStr() {
    // The size spelled out: nvcc cannot deduce it from a static member array.
    return ConstString<sizeof(Ref::kSeqName) - 1>(Ref::kSeqName) + "<" + TypeTraits<T>::TypeStr() +
           ">";
  }
  /*! \brief {"type":"ffi.Array","args":[<T's schema>]} (ffi.List for a List). */
  static std::string TypeSchema() { return SchemaWithArgs<T>::Of(Ref::ContainerType::_type_key); }

 private:
  /*! \brief Stores `obj` (None for the null reference a moved-from Ref may hold). */
  static void SetObject(TVMFFIObject* obj, TVMFFIAny* out) {
    if (obj == nullptr) return SetNone(out);
    out->type_index = Primary;
    out->zero_padding = 0;
    out->v_obj = obj;
  }
  static const SeqBaseObj* Seq(const TVMFFIAny* src) {
    return static_cast<const SeqBaseObj*>(ObjectUnsafe::FromHeader(src->v_obj));
  }
};
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_SEQ_BASE_H_
