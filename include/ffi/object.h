/*
 * ffi/object.h - reference-counted objects: Object, ObjectPtr<T>, WeakObjectPtr<T>, ObjectRef.
 *
 * An object is a C++ class deriving from ffi::Object, whose first (and only) base member is the
 * 24-byte TVMFFIObject header. There are no virtual functions: the header's deleter, installed by
 * make_object<T> in the library that made the object, knows the concrete type. That is what lets a
 * library built with other headers, or another runtime, release our objects and we theirs.
 *
 * ffi::Object itself and the macros declaring an object type are in object_class.h, included here;
 * this header holds what points to objects (ObjectPtr, WeakObjectPtr, ObjectRef and its macros),
 * detail::ObjectUnsafe and make_object.
 */
#ifndef FFI_OBJECT_H_
#define FFI_OBJECT_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "base.h"
#include "object_class.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief An intrusive strong pointer to an object, like std::shared_ptr<T> with the count inside
 * the object.
 */
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}
  ObjectPtr(const ObjectPtr& other) : ObjectPtr(other.data_, /*inc_ref=*/true) {}
  ObjectPtr(ObjectPtr&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  /*! \brief Converts from a pointer to a subclass. */
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& other) : ObjectPtr(other.get(), true) {}
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& other) noexcept : data_(other.release()) {}
  ~ObjectPtr() { reset(); }

  ObjectPtr& operator=(ObjectPtr other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }

  T* get() const { return data_; }
  T* operator->() const { return data_; }
  T& operator*() const { return *data_; }
  explicit operator bool() const { return data_ != nullptr; }
  bool operator==(std::nullptr_t) const { return data_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return data_ != nullptr; }
  template <typename U>
  bool operator==(const ObjectPtr<U>& other) const {
    return static_cast<const Object*>(data_) == static_cast<const Object*>(other.get());
  }
  /*! \brief Number of strong references to the object (0 when null). */
  uint32_t use_count() const { return data_ ? data_->use_count() : 0; }
  /*! \brief Whether this is the only strong reference to the object. */
  bool unique() const { return use_count() == 1; }

  /*! \brief Drops the reference. */
  void reset() {
    if (data_ != nullptr) {
      static_cast<Object*>(data_)->DecRef();
      data_ = nullptr;
    }
  }
  /*! \brief Gives up ownership without dropping the reference. */
  T* release() {
    T* p = data_;
    data_ = nullptr;
    return p;
  }
  /*! \brief Takes ownership of a reference the caller already holds. */
  static ObjectPtr Steal(T* ptr) { return ObjectPtr(ptr, false); }
  /*! \brief Takes a new reference to `ptr`. */
  static ObjectPtr Borrow(T* ptr) { return ObjectPtr(ptr, true); }

 private:
  ObjectPtr(T* ptr, bool inc_ref) : data_(ptr) {
    if (inc_ref && data_ != nullptr) static_cast<Object*>(data_)->IncRef();
  }
  T* data_{nullptr};
  template <typename>
  friend class WeakObjectPtr;
};

/*! \brief A weak pointer: keeps the memory, not the object, alive; `lock()` promotes it. */
template <typename T>
class WeakObjectPtr {
 public:
  WeakObjectPtr() = default;
  explicit WeakObjectPtr(const ObjectPtr<T>& strong) : data_(strong.get()) {
    if (data_) static_cast<Object*>(data_)->IncWeakRef();
  }
  WeakObjectPtr(const WeakObjectPtr& other) : data_(other.data_) {
    if (data_) static_cast<Object*>(data_)->IncWeakRef();
  }
  WeakObjectPtr& operator=(WeakObjectPtr other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~WeakObjectPtr() {
    if (data_) static_cast<Object*>(data_)->DecWeakRef();
  }
  /*! \brief A strong pointer while the object lives, else null. */
  ObjectPtr<T> lock() const {
    if (data_ && static_cast<Object*>(data_)->TryPromoteWeak()) return ObjectPtr<T>::Steal(data_);
    return ObjectPtr<T>();
  }
  /*! \brief Whether the object has been destroyed. */
  bool expired() const { return data_ == nullptr || data_->use_count() == 0; }
  /*! \brief Strong references to the object (0 once it is destroyed, or when empty). */
  uint32_t use_count() const { return data_ == nullptr ? 0 : data_->use_count(); }
  /*! \brief Drops the weak reference; the pointer becomes empty. */
  void reset() { WeakObjectPtr().swap(*this); }
  /*! \brief Exchanges two weak pointers. */
  void swap(WeakObjectPtr& other) noexcept { std::swap(data_, other.data_); }

 private:
  T* data_{nullptr};
};

/*!
 * \brief Tag of the constructor that leaves a reference null whatever its class (for objects whose
 * reference fields are set right after construction).
 */
struct UnsafeInit {};

/*!
 * \brief Base of typed references to objects (String, Function, Tensor, ... and user types).
 * A reference holds an ObjectPtr; copying shares the object.
 */
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}
  /*! \brief A null reference (see UnsafeInit). */
  explicit ObjectRef(UnsafeInit) {}

  /*! \brief The object, or nullptr. */
  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  /*! \brief Whether the reference is non-null. */
  bool defined() const { return data_ != nullptr; }
  /*! \brief Identity comparison. */
  bool same_as(const ObjectRef& other) const { return data_ == other.data_; }
  /*! \brief Number of strong references to the object. */
  uint32_t use_count() const { return data_.use_count(); }
  /*! \brief Whether this is the only strong reference to the object. */
  bool unique() const { return data_.use_count() == 1; }
  /*! \brief The object's type index (kTVMFFINone when null). */
  int32_t type_index() const { return data_ ? data_->type_index() : kTVMFFINone; }
  /*! \brief Typed access to the object, or nullptr when it is not a `T` (an Object type). */
  template <typename T, std::enable_if_t<std::is_base_of_v<Object, T>, int> = 0>
  const T* as() const {
    return (data_ && data_->IsInstance<T>()) ? static_cast<const T*>(data_.get()) : nullptr;
  }
  /*!
   * \brief This reference as a `T` (a reference class: `Array<int>`, a user's `Point`) when its
   * object is one, else nullopt; a null reference is a null `T` when `T` is nullable. Defined in
   * object_ref_traits.h, where the checks of each reference class are.
   */
  template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int> = 0>
  std::optional<T> as() const;
  /*! \brief As `as<T>()` for a reference class `T`; TypeError when it is not one. */
  template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int> = 0>
  T as_or_throw() const;

  /*! \brief The object type references of this class point to. */
  using ContainerType = Object;
  /*! \brief Whether a reference of this class may be null. */
  static constexpr bool _type_is_nullable = true;
  /*!
   * \brief Whether every object of ContainerType (or derived from it) is a valid value of this
   * class; false for classes that also constrain the object's contents (Array<int>, Variant).
   */
  static constexpr bool _type_container_is_exact = true;

 protected:
  ObjectPtr<Object> data_;
  friend struct detail::ObjectUnsafe;
};

/*! \brief Whether `T` is an object class (derives from Object). */
template <typename T>
inline constexpr bool is_object_subclass_v = std::is_base_of_v<Object, T>;

/*!
 * \brief Whether every `ObjectType` object is a valid `RefType`, so that GetRef can make one
 * without a check at run time: true when `RefType`'s container type is exact and `ObjectType`
 * derives from it. A library may specialize it for its own reference classes.
 */
template <typename RefType, typename ObjectType,
          typename = std::enable_if_t<std::is_base_of_v<ObjectRef, RefType> &&
                                      std::is_base_of_v<Object, ObjectType>>>
inline constexpr bool object_ref_contains_v = RefType::_type_container_is_exact&&
    std::is_base_of_v<typename RefType::ContainerType, ObjectType>;

/*!
 * \brief Hashes references and object pointers by the object's address, for unordered maps keyed
 * by object identity (with ObjectPtrEqual).
 */
struct ObjectPtrHash {
  /*! \brief The hash of the referenced object's address. */
  size_t operator()(const ObjectRef& ref) const { return Address(ref.get()); }
  /*! \brief The hash of the object's address. */
  template <typename T>
  size_t operator()(const ObjectPtr<T>& ptr) const {
    return Address(ptr.get());
  }
  /*!
   * \brief For values viewed as an Any (a Variant): the object's address, or for a value that is
   * not an object its bits.
   */
  template <typename V, typename = decltype(std::declval<const V&>().ToAnyView())>
  size_t operator()(const V& value) const {
    auto view = value.ToAnyView();  // raw() points into the view: keep it alive
    const TVMFFIAny* raw = view.raw();
    if (raw->type_index >= kTVMFFIStaticObjectBegin) {
      return Address(static_cast<const Object*>(static_cast<const void*>(raw->v_obj)));
    }
    return static_cast<size_t>(raw->v_uint64 * 0x9E3779B97F4A7C15ull) ^
           static_cast<size_t>(raw->type_index);
  }

 private:
  static size_t Address(const Object* obj) {
    // Objects are at least 8-byte aligned: drop the bits that are always zero.
    return static_cast<size_t>(reinterpret_cast<uintptr_t>(obj) >> 3);
  }
};

/*! \brief Compares references and object pointers by identity (with ObjectPtrHash). */
struct ObjectPtrEqual {
  /*! \brief Whether both refer to the same object (or are both null). */
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
  /*! \brief Whether both point to the same object (or are both null). */
  template <typename T, typename U>
  bool operator()(const ObjectPtr<T>& a, const ObjectPtr<U>& b) const {
    return static_cast<const Object*>(a.get()) == static_cast<const Object*>(b.get());
  }
  /*! \brief For values viewed as an Any (a Variant): the same object, or the same bits. */
  template <typename V, typename = decltype(std::declval<const V&>().ToAnyView())>
  bool operator()(const V& a, const V& b) const {
    auto view_a = a.ToAnyView(), view_b = b.ToAnyView();  // raw() points into the views
    const TVMFFIAny* x = view_a.raw();
    const TVMFFIAny* y = view_b.raw();
    return x->type_index == y->type_index && x->zero_padding == y->zero_padding &&
           x->v_uint64 == y->v_uint64;
  }
};

namespace detail {
/*! \brief What a reference's `->` and `get()` return: mutable only for `_type_mutable` objects. */
template <typename ObjName>
using RefPtrType = std::conditional_t<ObjName::_type_mutable, ObjName*, const ObjName*>;
}  // namespace detail

/*!
 * \brief Defines the constructors and accessors of a reference class `TypeName` over `ObjName`:
 * from an ObjectPtr (of `ObjName` or a subclass), from UnsafeInit (null), copy and move, `->`
 * and `get()`. Nullable: a default-constructed reference is null.
 */
#define FFI_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjName) \
  TypeName() = default;                                              \
  FFI_DETAIL_OBJECT_REF_COMMON(TypeName, ParentType, ObjName);       \
  [[maybe_unused]] static constexpr bool _type_is_nullable = true;   \
  static_assert(true, "")

/*! \brief As FFI_DEFINE_OBJECT_REF_METHODS for a class whose references are never null. */
#define FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjName) \
  FFI_DETAIL_OBJECT_REF_COMMON(TypeName, ParentType, ObjName);                   \
  [[maybe_unused]] static constexpr bool _type_is_nullable = false;              \
  static_assert(true, "")

#define FFI_DETAIL_OBJECT_REF_COMMON(TypeName, ParentType, ObjName)                            \
  explicit TypeName(::tvm::ffi::ObjectPtr<::tvm::ffi::Object> n) : ParentType(std::move(n)) {} \
  explicit TypeName(::tvm::ffi::UnsafeInit tag) : ParentType(tag) {}                           \
  TypeName(const TypeName&) = default;                                                         \
  TypeName(TypeName&&) = default;                                                              \
  TypeName& operator=(const TypeName&) = default;                                              \
  TypeName& operator=(TypeName&&) = default;                                                   \
  ::tvm::ffi::detail::RefPtrType<ObjName> operator->() const {                                 \
    return static_cast<::tvm::ffi::detail::RefPtrType<ObjName>>(                               \
        const_cast<::tvm::ffi::Object*>(data_.get()));                                         \
  }                                                                                            \
  ::tvm::ffi::detail::RefPtrType<ObjName> get() const { return operator->(); }                 \
  using ContainerType = ObjName

namespace detail {
/*! \brief Access to object internals for the headers (not for users). */
struct ObjectUnsafe {
  /*! \brief The ABI header of an object. */
  static TVMFFIObject* Header(const Object* obj) {
    return const_cast<TVMFFIObject*>(&obj->header_);
  }
  /*! \brief The object whose header is at `header`. */
  static Object* FromHeader(void* header) {
    return reinterpret_cast<Object*>(static_cast<char*>(header) - offsetof(Object, header_));
  }
  /*! \brief Adds a strong reference to any object. */
  static void IncRef(void* header) {
    __atomic_fetch_add(&static_cast<TVMFFIObject*>(header)->combined_ref_count, kStrongOne,
                       __ATOMIC_RELAXED);
  }
  /*! \brief Drops a strong reference to any object. */
  static void DecRef(void* header) { Object::DecRefHeader(static_cast<TVMFFIObject*>(header)); }
  /*! \brief The header of the object a reference holds (null allowed), without a new reference. */
  static TVMFFIObject* HeaderOf(const ObjectRef& ref) {
    return ref.data_ ? Header(ref.data_.get()) : nullptr;
  }
  /*! \brief Moves the object out of a reference as an owned header pointer (null allowed). */
  static TVMFFIObject* MoveToHeader(ObjectRef&& ref) {
    Object* obj = ref.data_.release();
    return obj ? Header(obj) : nullptr;
  }
  /*! \brief Makes a `RefT` owning `header` (a reference the caller held). */
  template <typename RefT>
  static RefT RefFromOwnedHeader(void* header) {
    return ObjectRefFromObjectPtr<RefT>(
        ObjectPtr<Object>::Steal(header ? FromHeader(header) : nullptr));
  }
  /*! \brief Makes a `RefT` taking a new reference to `header`. */
  template <typename RefT>
  static RefT RefFromBorrowedHeader(void* header) {
    return ObjectRefFromObjectPtr<RefT>(
        ObjectPtr<Object>::Borrow(header ? FromHeader(header) : nullptr));
  }

  // The reference's spellings of the same operations, used by code written for it.
  /*! \brief The ABI header of an object. */
  static TVMFFIObject* GetHeader(const Object* obj) { return Header(obj); }
  /*! \brief Bytes from the start of a `Class` to its object header (reflected field offsets). */
  template <typename Class>
  static int64_t GetObjectOffsetToSubclass() {
    // Where the Object base sits in a Class (offsetof is not for non-standard-layout classes):
    // converted at a made-up, suitably aligned address, never dereferenced.
    constexpr uintptr_t kProbe = 4096;
    const Class* probe = reinterpret_cast<const Class*>(kProbe);
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(static_cast<const Object*>(probe)) -
                                kProbe);
  }
  /*!
   * \brief A reference of class `T` owning `ptr`'s object. An ObjectRef class is made null with
   * its UnsafeInit constructor and then given the object, so a class that declares only that
   * constructor (as the reference's own hand-written references do) works too.
   */
  template <typename T>
  static T ObjectRefFromObjectPtr(ObjectPtr<Object> ptr) {
    if constexpr (std::is_base_of_v<ObjectRef, T> && std::is_constructible_v<T, UnsafeInit>) {
      T ref(UnsafeInit{});
      static_cast<ObjectRef&>(ref).data_ = std::move(ptr);
      return ref;
    } else {
      return T(std::move(ptr));
    }
  }
  /*! \brief The object of `ref` as a `T` pointer, sharing it. */
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromObjectRef(const ObjectRef& ref) {
    return ObjectPtr<T>::Borrow(static_cast<T*>(const_cast<Object*>(ref.data_.get())));
  }
  /*! \brief The object of `ref` as a `T` pointer, taking `ref`'s reference. */
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromObjectRef(ObjectRef&& ref) {
    return ObjectPtr<T>::Steal(static_cast<T*>(ref.data_.release()));
  }
  /*! \brief Takes ownership of a reference the caller holds. */
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromOwned(Object* obj) {
    return ObjectPtr<T>::Steal(static_cast<T*>(obj));
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromOwned(TVMFFIObject* header) {
    return ObjectPtrFromOwned<T>(header ? FromHeader(header) : nullptr);
  }
  /*! \brief Takes a new reference to an object the caller does not own. */
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromUnowned(Object* obj) {
    return ObjectPtr<T>::Borrow(static_cast<T*>(obj));
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromUnowned(TVMFFIObject* header) {
    return ObjectPtrFromUnowned<T>(header ? FromHeader(header) : nullptr);
  }
  /*! \brief The object at `header` as a `T`, no reference taken. */
  template <typename T>
  static T* RawObjectPtrFromUnowned(TVMFFIObject* header) {
    return static_cast<T*>(FromHeader(header));
  }
  /*! \brief The object a reference holds, no reference taken. */
  static Object* RawObjectPtrFromObjectRef(const ObjectRef& ref) {
    return const_cast<Object*>(ref.data_.get());
  }
  static void IncRefObjectHandle(TVMFFIObjectHandle handle) {
    if (handle != nullptr) IncRef(handle);
  }
  static void DecRefObjectHandle(TVMFFIObjectHandle handle) {
    if (handle != nullptr) DecRef(handle);
  }
  /*! \brief The header of a reference's object (null allowed), no reference taken. */
  static TVMFFIObject* TVMFFIObjectPtrFromObjectRef(const ObjectRef& ref) { return HeaderOf(ref); }
  template <typename T>
  static TVMFFIObject* TVMFFIObjectPtrFromObjectPtr(const ObjectPtr<T>& ptr) {
    return ptr ? Header(ptr.get()) : nullptr;
  }
  /*! \brief Gives up a pointer's reference as an owned header. */
  template <typename T>
  static TVMFFIObject* MoveObjectPtrToTVMFFIObjectPtr(ObjectPtr<T>&& ptr) {
    T* obj = ptr.release();
    return obj ? Header(obj) : nullptr;
  }
  static TVMFFIObject* MoveObjectRefToTVMFFIObjectPtr(ObjectRef&& ref) {
    return MoveToHeader(std::move(ref));
  }
};

/*! \brief The deleter make_object installs: destroys `T`, frees memory from operator new. */
template <typename T>
void ObjectDeleter(void* self, int flags) {
  T* obj = static_cast<T*>(ObjectUnsafe::FromHeader(self));
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) obj->~T();
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) ::operator delete(static_cast<void*>(obj));
}
}  // namespace detail

/*! \brief An object's deleter (TVMFFIObject::deleter), under TVM-FFI's name. */
using FObjectDeleter = void (*)(void* self, int flags);

/*! \brief The spelling of `detail` some code written for the reference uses. */
namespace details = detail;

namespace detail {
/*! \brief Bytes of a `T` rounded up to 8, where make_object_with_extra's extra storage starts. */
template <typename T>
inline constexpr size_t kObjectBytes = (sizeof(T) + 7) / 8 * 8;
/*!
 * \brief The storage make_object_with_extra reserved after object `obj` of type `T` (aligned to
 * 8 bytes). Constructors may use it for their inline arrays.
 */
template <typename T>
void* ExtraStorage(const T* obj) {
  return const_cast<char*>(reinterpret_cast<const char*>(obj)) + kObjectBytes<T>;
}
}  // namespace detail

/*!
 * \brief Allocates a `T` followed, in the same allocation, by `extra_bytes` of storage (for an
 * inline array such as a string's bytes or a shape's extents), reached with
 * detail::ExtraStorage(obj). The object has one strong reference, its type index and a deleter.
 */
template <typename T, typename... Args>
ObjectPtr<T> make_object_with_extra(size_t extra_bytes, Args&&... args) {
  static_assert(std::is_base_of_v<Object, T>, "make_object<T>: T must derive from ffi::Object");
  // A size that would wrap around is refused like any allocation too large to satisfy.
  if (FFI_UNLIKELY(extra_bytes > SIZE_MAX - detail::kObjectBytes<T>)) throw std::bad_alloc();
  void* mem = ::operator new(detail::kObjectBytes<T> + extra_bytes);
  T* obj;
  try {
    obj = new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    ::operator delete(mem);
    throw;
  }
  TVMFFIObject* h = detail::ObjectUnsafe::Header(obj);
  h->combined_ref_count = detail::kSoleReference;
  h->type_index = T::RuntimeTypeIndex();
  h->deleter = detail::ObjectDeleter<T>;
  return ObjectPtr<T>::Steal(obj);
}

/*!
 * \brief Allocates an `ArrayType` followed by room for `num_elems` values of `ElemType` (not
 * constructed: the object's constructor and destructor manage them), reached with
 * detail::ExtraStorage(obj). TVM-FFI's spelling of make_object_with_extra.
 */
template <typename ArrayType, typename ElemType, typename... Args>
ObjectPtr<ArrayType> make_inplace_array_object(size_t num_elems, Args&&... args) {
  static_assert(alignof(ElemType) <= 8 && detail::kObjectBytes<ArrayType> % alignof(ElemType) == 0,
                "the elements must fit the 8-byte alignment after the object");
  if (FFI_UNLIKELY(num_elems > SIZE_MAX / sizeof(ElemType))) throw std::bad_alloc();
  return make_object_with_extra<ArrayType>(num_elems * sizeof(ElemType),
                                           std::forward<Args>(args)...);
}

/*! \brief Allocates a `T` with one strong reference, its type index and a deleter. */
template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  return make_object_with_extra<T>(0, std::forward<Args>(args)...);
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_OBJECT_H_
