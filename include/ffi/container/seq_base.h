/*
 * ffi/container/seq_base.h - what Array and List share: the object layout of a sequence, the
 * constructors, iterators, readers and inserting writers of a typed sequence reference, and its
 * Any conversions (the TypeTraits of both). Not for users to include.
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
#include <initializer_list>
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

template <template <typename> class Ref, typename T, typename SeqObj>
class SeqRefBase;
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

  // The references build their objects value by value (EmplaceBack).
  template <template <typename> class, typename, typename>
  friend class detail::SeqRefBase;
};

namespace detail {
/*!
 * \brief Base of ArrayObj and ListObj (`Self`), which differ in where their cells live (each has
 * its own `Self::Empty(capacity)`): their growth policy and the objects built on Empty.
 */
template <typename Self>
class SeqObjCommon : public SeqBaseObj {
 public:
  /*! \brief Capacity of Self::Empty() by default. */
  static constexpr int64_t kInitSize = 4;
  /*! \brief Factor the capacity grows by when full. */
  static constexpr int64_t kIncFactor = 2;

  /*! \brief An object of `n` copies of `value`. */
  static ObjectPtr<Self> CreateRepeated(int64_t n, const Any& value) {
    ObjectPtr<Self> p = Self::Empty(n);
    p->EnlargeBy(n, value);
    return p;
  }

 protected:
  /*! \brief The bytes of `n` >= 0 cells; OverflowError ("`kind` capacity n is too large") when
   * they do not fit in a size_t. */
  static size_t CellBytes(int64_t n, const char* kind) {
    if (static_cast<uint64_t>(n) > SIZE_MAX / sizeof(Any)) {
      FFI_THROW(OverflowError) << kind << " capacity " << n << " is too large";
    }
    return static_cast<size_t>(n) * sizeof(Any);
  }
};

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
 * \brief What Array<T> and List<T> (`Ref<T>`) share over their object `SeqObj` (ArrayObj or
 * ListObj): element and iterator types, constructors and the reading API. They differ in how they
 * change the values (Array copies a shared object first, List changes it for every holder), so
 * that stays in each class. It adds no data: a sequence reference is one ObjectRef.
 */
template <template <typename> class Ref, typename T, typename SeqObj>
class SeqRefBase : public ObjectRef {
 public:
  /*! \brief The element type. */
  using value_type = T;
  /*! \brief Iterator yielding `T` by value. */
  using iterator = SeqIterator<T, 1>;
  /*! \brief Same as iterator (values change only through the reference's methods). */
  using const_iterator = iterator;
  /*! \brief Iterator from the last value to the first. */
  using reverse_iterator = SeqIterator<T, -1>;

  /*! \brief Shares a Ref<U> whose values are all `T`s (Array<Any> from Array<int>, ...). */
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  SeqRefBase(const Ref<U>& other) : ObjectRef(other) {}
  /*! \brief Takes over the object of such a Ref<U>. */
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  SeqRefBase(Ref<U>&& other) : ObjectRef(std::move(other)) {}
  /*! \brief Wraps an object of type SeqObj. */
  explicit SeqRefBase(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null reference, for a field filled in before use (see UnsafeInit). */
  explicit SeqRefBase(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief The values of [first, last), converted to `T`. */
  template <typename Iter, typename = std::enable_if_t<kIsIterator<Iter>>>
  SeqRefBase(Iter first, Iter last) : ObjectRef(FromRange(first, last)) {}
  /*! \brief The listed values. */
  SeqRefBase(std::initializer_list<T> init) : ObjectRef(FromRange(init.begin(), init.end())) {}
  /*! \brief The values of a range such as std::vector<T> (no <vector> needed here). */
  template <typename C, typename = std::enable_if_t<kIsRangeOf<C, T>>>
  SeqRefBase(const C& range) : ObjectRef(FromRange(std::begin(range), std::end(range))) {}
  /*! \brief `n` copies of `value`. */
  explicit SeqRefBase(size_t n, const T& value)
      : ObjectRef(SeqObj::CreateRepeated(static_cast<int64_t>(n), Any(value))) {}

  /*! \brief The first value. */
  iterator begin() const { return iterator(SeqPtr() ? SeqPtr()->begin() : nullptr); }
  /*! \brief Past the last value. */
  iterator end() const { return iterator(SeqPtr() ? SeqPtr()->end() : nullptr); }
  /*! \brief The last value, for walking backwards. */
  reverse_iterator rbegin() const { return reverse_iterator(end().cell() - 1); }
  /*! \brief Before the first value, for walking backwards. */
  reverse_iterator rend() const { return reverse_iterator(begin().cell() - 1); }

  /*! \brief Value `i`; IndexError unless 0 <= i < size(). */
  T operator[](int64_t i) const { return CopyFromAnyViewAfterCheck<T>(Obj()->at(i).raw()); }
  /*! \brief Number of values. */
  size_t size() const { return SeqPtr() ? SeqPtr()->size() : 0; }
  /*! \brief Number of values the object has room for. */
  size_t capacity() const { return SeqPtr() ? SeqPtr()->capacity() : 0; }
  /*! \brief Whether there are no values. */
  bool empty() const { return size() == 0; }
  /*! \brief The first value; IndexError when empty. */
  T front() const { return CopyFromAnyViewAfterCheck<T>(Obj()->front().raw()); }
  /*! \brief The last value; IndexError when empty. */
  T back() const { return CopyFromAnyViewAfterCheck<T>(Obj()->back().raw()); }
  /*! \brief The object. */
  const SeqObj* operator->() const { return SeqPtr(); }

  // The inserting writers: Ref<T>::WithRoom(extra) gives the object to change with room for
  // `extra` more values (Array copies a shared object first; List grows the one all holders
  // share), and Ref<T>::InsertRange inserts values that may be the sequence's own.
  /*! \brief Appends `item`. */
  void push_back(const T& item) {
    Any value(item);  // made before the storage may move: `item` may be one of its values
    Self()->WithRoom(1)->EmplaceBack(std::move(value));
  }
  /*! \brief Appends a `T` made from `args`. */
  template <typename... Args>
  void emplace_back(Args&&... args) {
    Any value(T(std::forward<Args>(args)...));
    Self()->WithRoom(1)->EmplaceBack(std::move(value));
  }
  /*! \brief Inserts `value` before `position`. */
  void insert(iterator position, const T& value) {
    int64_t idx = position - begin();
    CheckInsertIndex(idx);
    Any item(value);
    Self()->WithRoom(1)->insert(idx, std::move(item));
  }
  /*! \brief Inserts the values of [first, last) before `position`. */
  template <typename Iter, typename = std::enable_if_t<kIsIterator<Iter>>>
  void insert(iterator position, Iter first, Iter last) {
    int64_t idx = position - begin();
    int64_t count = static_cast<int64_t>(std::distance(first, last));
    if (count == 0) return;
    CheckInsertIndex(idx);
    // How the values get in safely when they are the sequence's own is the derived class's.
    Self()->InsertRange(idx, count, first, last);
  }

  /*! \brief The object type behind the reference. */
  using ContainerType = SeqObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief A sequence reference is never null. */
  static constexpr bool _type_is_nullable = false;

 protected:
  /*! \brief The object (null only for a reference wrapping a null pointer). */
  SeqObj* SeqPtr() const { return static_cast<SeqObj*>(const_cast<Object*>(get())); }
  /*! \brief The object, for reading values; IndexError when there is none. */
  const SeqObj* Obj() const {
    if (FFI_UNLIKELY(SeqPtr() == nullptr)) {
      // Each kind names itself in lower case, as the reference's messages do.
      FFI_THROW(IndexError) << "cannot index a null "
                            << (SeqObj::_type_index == kTVMFFIList ? "list" : "array");
    }
    return SeqPtr();
  }

 private:
  Ref<T>* Self() { return static_cast<Ref<T>*>(this); }
  /*! \brief IndexError unless `idx` is a place to insert at (0 <= idx <= size()). */
  void CheckInsertIndex(int64_t idx) const {
    int64_t n = static_cast<int64_t>(size());
    if (idx < 0 || idx > n)
      FFI_THROW(IndexError) << "Index " << idx << " out of bounds [0, " << n << "]";
  }
  /*! \brief A new object holding the values of [first, last), each converted to `T`. */
  template <typename Iter>
  static ObjectPtr<SeqObj> FromRange(Iter first, Iter last) {
    ObjectPtr<SeqObj> p = SeqObj::Empty(static_cast<int64_t>(std::distance(first, last)));
    for (; first != last; ++first) p->EmplaceBack(Any(T(*first)));
    return p;
  }
};

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

template <typename T>
class Array;
template <typename T>
class List;

// Array and List convert through SeqTraits, which looks at the values, not through the traits of
// plain object references.
template <typename T>
inline constexpr bool use_default_type_traits_v<Array<T>> = false;
template <typename T>
inline constexpr bool use_default_type_traits_v<List<T>> = false;
/*! \brief An Array<U> is an Array<T> when every U is a T (Array<Array<Any>> from
 * Array<Array<int>>). */
template <typename T, typename U>
inline constexpr bool type_subsumes_v<Array<T>, Array<U>> = type_subsumes_v<T, U>;
/*! \brief A List<U> is a List<T> when every U is a T. */
template <typename T, typename U>
inline constexpr bool type_subsumes_v<List<T>, List<U>> = type_subsumes_v<T, U>;

/*!
 * \brief Array<T>: kTVMFFIArray. An Array whose values are all stored as `T` is shared; a List, or
 * an Array whose values only convert to `T` (ints for Array<double>), is copied value by value.
 */
template <typename T>
struct TypeTraits<Array<T>> : detail::SeqTraits<Array<T>, T, kTVMFFIArray, kTVMFFIList> {};
/*!
 * \brief List<T>: kTVMFFIList. A List whose values are all stored as `T` is shared (so changes
 * through either side are seen by both); an Array, or values that only convert, are copied.
 */
template <typename T>
struct TypeTraits<List<T>> : detail::SeqTraits<List<T>, T, kTVMFFIList, kTVMFFIArray> {};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_SEQ_BASE_H_
