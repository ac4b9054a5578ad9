/*
 * ffi/object_class.h - ffi::Object, the base class of every object: the 24-byte TVMFFIObject
 * header, its strong and weak reference counts, the type identity (type_index, IsInstance) and the
 * macros with which a subclass declares its type (FFI_DECLARE_OBJECT_INFO and the like).
 * Pointers and references to objects, and make_object, are in object.h, which includes this.
 */
#ifndef FFI_OBJECT_CLASS_H_
#define FFI_OBJECT_CLASS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "base.h"
#include "detail/release_queue.h"

#if defined(__SANITIZE_THREAD__)
#define FFI_DETAIL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FFI_DETAIL_TSAN 1
#endif
#endif
#ifndef FFI_DETAIL_TSAN
#define FFI_DETAIL_TSAN 0
#endif

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The ABI's type indices under their C++ name: `TypeIndex::kTVMFFITensor`. */
using TypeIndex = TVMFFITypeIndex;

namespace detail {
struct ObjectUnsafe;
/*! \brief The bytes of an ABI byte array as a string view. */
inline std::string_view ByteView(const TVMFFIByteArray& a) { return {a.data, a.size}; }
}  // namespace detail

/*!
 * \brief Base of every reference-counted object.
 *
 * Subclasses declare their type with FFI_DECLARE_OBJECT_INFO (a dynamically numbered type, the
 * usual case for user types) or FFI_DECLARE_STATIC_OBJECT_INFO (a built-in kind with a fixed
 * index).
 */
class Object {
 public:
  Object() {
    header_.combined_ref_count = 0;
    header_.type_index = 0;
    header_.__padding = 0;
    header_.deleter = nullptr;
  }
  /*!
   * \brief Copying copies a subclass's fields, never the header: the copy starts unowned, and
   * `make_object<T>(*obj)` gives it its own count, index and deleter (how objects are cloned).
   */
  Object(const Object&) : Object() {}
  Object& operator=(const Object&) { return *this; }

  /*! \brief The runtime type index of this object. */
  int32_t type_index() const { return header_.type_index; }
  /*! \brief The registered type key, e.g. "ffi.Tensor" (looked up in the runtime). */
  std::string GetTypeKey() const {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(header_.type_index);
    return info ? std::string(detail::ByteView(info->type_key)) : "<unregistered>";
  }
  /*! \brief Whether this object is a `T` or derives from it. */
  template <typename T>
  bool IsInstance() const;
  /*! \brief Number of strong references (for tests and debugging; racy under concurrency). */
  uint32_t use_count() const {
    return static_cast<uint32_t>(__atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED) &
                                 detail::kStrongMask);
  }

  /*! \brief Type key of the root kind. */
  static constexpr const char* _type_key = "ffi.Object";
  /*! \brief Whether the type can have no subclasses (lets IsInstance compare one index). */
  static constexpr bool _type_final = false;
  /*! \brief Index slots reserved for direct subclasses. */
  static constexpr int32_t _type_child_slots = 0;
  /*! \brief Whether subclasses may take indices beyond the reserved slots. */
  static constexpr bool _type_child_slots_can_overflow = true;
  /*! \brief Number of ancestors. */
  static constexpr int32_t _type_depth = 0;
  /*! \brief The index of the root kind (subclasses' own `_type_index` hides it). */
  static constexpr int32_t _type_index = kTVMFFIObject;
  /*! \brief Whether reflection may write fields (def_rw) and references hand out mutable pointers.
   */
  static constexpr bool _type_mutable = false;
  /*! \brief How structural equality and hashing treat the type (recorded by reflection). */
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  /*! \brief The index of the root kind. */
  static int32_t RuntimeTypeIndex() { return kTVMFFIObject; }
  /*! \brief Registers the type (a no-op for the root) and returns its index. */
  static int32_t _GetOrAllocRuntimeTypeIndex() { return kTVMFFIObject; }

 protected:
  /*! \brief The ABI header; must stay the first bytes of every object. */
  TVMFFIObject header_;

  void IncRef() {
    __atomic_fetch_add(&header_.combined_ref_count, detail::kStrongOne, __ATOMIC_RELAXED);
  }
  /*! \brief Takes a strong reference only while one still exists (for weak pointers). */
  bool TryPromoteWeak() {
    uint64_t old = __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED);
    while ((old & detail::kStrongMask) != 0) {
      if (__atomic_compare_exchange_n(&header_.combined_ref_count, &old, old + detail::kStrongOne,
                                      true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        return true;
      }
    }
    return false;
  }
  void DecRef() { DecRefHeader(&header_); }
  void IncWeakRef() {
    __atomic_fetch_add(&header_.combined_ref_count, detail::kWeakOne, __ATOMIC_RELAXED);
  }
  void DecWeakRef() {
    if (__atomic_fetch_sub(&header_.combined_ref_count, detail::kWeakOne, __ATOMIC_ACQ_REL) ==
        detail::kWeakOne) {
      header_.deleter(&header_, kTVMFFIObjectDeleterFlagBitMaskWeak);
    }
  }
  /*!
   * \brief Drops a strong reference of any object. The strong references jointly hold one weak
   * reference, dropped with the last strong one (detail::ReleaseDeadObject).
   */
  static void DecRefHeader(TVMFFIObject* h) {
    uint64_t before =
        __atomic_fetch_sub(&h->combined_ref_count, detail::kStrongOne, __ATOMIC_RELEASE);
    if ((before & detail::kStrongMask) != detail::kStrongOne) return;
#if FFI_DETAIL_TSAN
    // ThreadSanitizer does not model fences; an acquire load orders the same way for it.
    (void)__atomic_load_n(&h->combined_ref_count, __ATOMIC_ACQUIRE);
#else
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
    detail::ReleaseDeadObject(h, before);
  }

  template <typename>
  friend class ObjectPtr;
  template <typename>
  friend class WeakObjectPtr;
  friend struct detail::ObjectUnsafe;
};

/*!
 * \brief Declares the type information of a dynamically numbered object type.
 * Use inside `class MyObj : public Parent` with a unique key, e.g. "my_lib.MyObj". The index is
 * allocated by the runtime on first use and is the same in every library of the process.
 */
#define FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)       \
  [[maybe_unused]] static constexpr const char* _type_key = TypeKey; \
  FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)

/*! \brief FFI_DECLARE_OBJECT_INFO for a class that defines its own `_type_key`. */
#define FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)                     \
  [[maybe_unused]] static constexpr int32_t _type_depth = ParentType::_type_depth + 1;        \
  static int32_t _GetOrAllocRuntimeTypeIndex() {                                              \
    static_assert(!ParentType::_type_final, "the parent type is final");                      \
    static int32_t index = ::tvm::ffi::detail::RegisterType(                                  \
        TypeName::_type_key, -1, _type_depth, TypeName::_type_child_slots,                    \
        TypeName::_type_child_slots_can_overflow, ParentType::_GetOrAllocRuntimeTypeIndex()); \
    return index;                                                                             \
  }                                                                                           \
  static int32_t RuntimeTypeIndex() { return _GetOrAllocRuntimeTypeIndex(); }                 \
  /* Registered while the library loads; RuntimeTypeIndex() is safe even before. */           \
  static inline const int32_t _type_index = _GetOrAllocRuntimeTypeIndex();                    \
  using _type_parent = ParentType;                                                            \
  static_assert(true, "")

/*!
 * \brief Declares a C++ view of an object type another library registers as `TypeKey`, at depth
 * `TypeDepth` in the hierarchy: this class registers nothing, and its index is looked up (once)
 * by key when first needed; a KeyError when no such type is registered then. For reading objects
 * of types whose defining headers are not available, with IsInstance/as working on them.
 */
#define FFI_DECLARE_OBJECT_INFO_LOOKUP(TypeKey, TypeDepth)                      \
  [[maybe_unused]] static constexpr const char* _type_key = TypeKey;            \
  [[maybe_unused]] static constexpr int32_t _type_depth = TypeDepth;            \
  [[maybe_unused]] static constexpr bool _type_mutable = true;                  \
  [[maybe_unused]] static constexpr bool _type_final = false;                   \
  [[maybe_unused]] static constexpr int32_t _type_child_slots = 0;              \
  [[maybe_unused]] static constexpr bool _type_child_slots_can_overflow = true; \
  static int32_t RuntimeTypeIndex() {                                           \
    static const int32_t index = [] {                                           \
      constexpr std::string_view key_view(TypeKey);                             \
      TVMFFIByteArray key{key_view.data(), key_view.size()};                    \
      int32_t found = -1;                                                       \
      FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(&key, &found));                  \
      return found;                                                             \
    }();                                                                        \
    return index;                                                               \
  }                                                                             \
  static int32_t _GetOrAllocRuntimeTypeIndex() { return RuntimeTypeIndex(); }   \
  static_assert(true, "")

/*! \brief FFI_DECLARE_OBJECT_INFO for a type that has no subclasses. */
#define FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType) \
  [[maybe_unused]] static constexpr bool _type_final = true;         \
  [[maybe_unused]] static constexpr int32_t _type_child_slots = 0;   \
  FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)

/*! \brief Declares a built-in object kind with the fixed index `Index` (a TVMFFITypeIndex). */
#define FFI_DECLARE_STATIC_OBJECT_INFO(TypeKey, TypeName, ParentType, Index)           \
  [[maybe_unused]] static constexpr const char* _type_key = TypeKey;                   \
  [[maybe_unused]] static constexpr int32_t _type_depth = ParentType::_type_depth + 1; \
  [[maybe_unused]] static constexpr int32_t _type_index = Index;                       \
  static int32_t RuntimeTypeIndex() { return Index; }                                  \
  static int32_t _GetOrAllocRuntimeTypeIndex() { return Index; }                       \
  using _type_parent = ParentType;                                                     \
  static_assert(true, "")

namespace detail {
/*! \brief Registers a type key with the runtime, returning its index. */
inline int32_t RegisterType(const char* key, int32_t static_index, int32_t depth,
                            int32_t child_slots, bool can_overflow, int32_t parent_index) {
  std::string_view sv(key);
  TVMFFIByteArray arr{sv.data(), sv.size()};
  return TVMFFITypeGetOrAllocIndex(&arr, static_index, depth, child_slots, can_overflow ? 1 : 0,
                                   parent_index);
}

}  // namespace detail

template <typename T>
inline bool Object::IsInstance() const {
  static_assert(std::is_base_of_v<Object, T>, "T must derive from ffi::Object");
  if constexpr (std::is_same_v<T, Object>) {
    return true;
  } else {
    int32_t target = T::RuntimeTypeIndex();
    int32_t self = header_.type_index;
    if (self == target) return true;
    if constexpr (T::_type_final) {
      return false;
    } else {
      // A subclass sits deeper in the hierarchy; its ancestor at T's depth must be T.
      if (self < target && self < kTVMFFIDynObjectBegin && target < kTVMFFIDynObjectBegin) {
        return false;
      }
      const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(self);
      if (info == nullptr || info->type_depth <= T::_type_depth) return false;
      return info->type_ancestors[T::_type_depth]->type_index == target;
    }
  }
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_OBJECT_CLASS_H_
