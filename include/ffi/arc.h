/*
 * ffi/arc.h - Arc<T>, an owning object pointer that is never null, and how object pointers travel
 * in Any: ObjectPtr<T> (None for null) and Arc<T> (None refused).
 *
 * Arc<T> has ObjectPtr<T>'s layout and conversions, but nothing in its public API makes a null
 * one: it comes from make_arc<T>(...) or from another Arc. A field of an object may hold one; the
 * object's reflection-made constructor builds it with Arc<T>(UnsafeInit{}) and fills it before the
 * object is used (a moved-from Arc is null too, and must not be used).
 */
#ifndef FFI_ARC_H_
#define FFI_ARC_H_

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "any.h"
#include "detail/type_schema.h"
#include "object.h"
#include "optional.h"
#include "type_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
template <typename Ptr, typename T, bool kNullable>
struct ObjectPtrTraitsBase;
}  // namespace detail

/*! \brief An owning pointer to a `T` that is never null (see the file comment). */
template <typename T>
class Arc : public ObjectPtr<T> {
 public:
  Arc() = delete;
  Arc(std::nullptr_t) = delete;
  Arc(const Arc&) = default;
  Arc(Arc&&) noexcept = default;
  Arc& operator=(const Arc&) = default;
  Arc& operator=(Arc&&) noexcept = default;
  /*! \brief Converts from an Arc of a subclass. */
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Arc(const Arc<U>& other) : ObjectPtr<T>(static_cast<const ObjectPtr<U>&>(other)) {}
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Arc(Arc<U>&& other) noexcept : ObjectPtr<T>(std::move(static_cast<ObjectPtr<U>&>(other))) {}
  /*! \brief A null Arc, to be filled before use (construct-then-populate code only). */
  explicit Arc(UnsafeInit) : ObjectPtr<T>(nullptr) {}

  /*!
   * \brief An Arc taking over `ptr`; ValueError when it is null (the checked way from an
   * ObjectPtr).
   */
  static Arc FromObjectPtr(ObjectPtr<T> ptr) {
    if (ptr == nullptr) FFI_THROW(ValueError) << "Arc<T> cannot hold a null pointer";
    return Arc(std::move(ptr));
  }

 private:
  explicit Arc(ObjectPtr<T> ptr) : ObjectPtr<T>(std::move(ptr)) {}
  using ObjectPtr<T>::reset;
  using ObjectPtr<T>::release;

  template <typename U, typename... Args>
  friend Arc<U> make_arc(Args&&... args);
  template <typename>
  friend class Arc;
  template <typename, typename, bool>
  friend struct detail::ObjectPtrTraitsBase;
};

/*! \brief Allocates a `T` (as make_object) owned by an Arc. */
template <typename T, typename... Args>
Arc<T> make_arc(Args&&... args) {
  return Arc<T>(make_object<T>(std::forward<Args>(args)...));
}

namespace detail {
/*! \brief The conversions shared by ObjectPtr<T> and Arc<T>; `kNullable`: null is None. */
template <typename Ptr, typename T, bool kNullable>
struct ObjectPtrTraitsBase : TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIObject;  // one owning pointer
  static void CopyToAnyView(const Ptr& v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    out->type_index = v->type_index();
    out->zero_padding = 0;
    out->v_obj = detail::ObjectUnsafe::Header(v.get());
  }
  static void MoveToAny(Ptr v, TVMFFIAny* out) {
    CopyToAnyView(v, out);
    static_cast<ObjectPtr<T>&>(v).release();  // the reference moves into `out`
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return kNullable;
    return src->type_index >= kTVMFFIStaticObjectBegin &&
           detail::ObjectUnsafe::FromHeader(src->v_obj)->template IsInstance<T>();
  }
  static Ptr CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    ObjectPtr<T> p;
    if (src->type_index != kTVMFFINone) {
      p = ObjectPtr<T>::Borrow(static_cast<T*>(detail::ObjectUnsafe::FromHeader(src->v_obj)));
    }
    if constexpr (kNullable) {
      return p;
    } else {
      return Ptr(std::move(p));
    }
  }
  static detail::CastResult<Ptr> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!CheckAnyStrict(src)) return std::nullopt;
    return CopyFromAnyViewAfterCheck(src);
  }
  static constexpr auto TypeStr() { return detail::ObjectTypeName<T>(); }
  /*! \brief The object type's schema; Optional of it for a nullable pointer (as the reference). */
  static std::string TypeSchema() {
    std::string schema = detail::SchemaOfKey(T::_type_key);
    return kNullable ? R"({"type":"Optional","args":[)" + schema + "]}" : schema;
  }
};
}  // namespace detail

namespace detail {
/*!
 * \brief Whether ObjectPtr<T> / Arc<T> convert: for object classes, not const or volatile ones
 * (converting back could not give a pointer of that qualification; as TVM-FFI).
 */
template <typename T>
inline constexpr bool kConvertibleObjectPtr =
    is_object_subclass_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T>;
}  // namespace detail

/*! \brief ObjectPtr<T>: the object, or None for null (T may be incomplete where
 * is_object_subclass_v<T> is specialized). */
template <typename T>
struct TypeTraits<ObjectPtr<T>, std::enable_if_t<detail::kConvertibleObjectPtr<T>>>
    : detail::ObjectPtrTraitsBase<ObjectPtr<T>, T, true> {};

/*! \brief The runtime type index of ObjectPtr<T> / Arc<T>: the registered index of `T`. */
template <typename T>
struct TypeToRuntimeTypeIndex<ObjectPtr<T>, std::enable_if_t<detail::kConvertibleObjectPtr<T>>> {
  static int32_t v() { return T::RuntimeTypeIndex(); }
};
template <typename T>
struct TypeToRuntimeTypeIndex<Arc<T>, std::enable_if_t<detail::kConvertibleObjectPtr<T>>> {
  static int32_t v() { return T::RuntimeTypeIndex(); }
};

/*! \brief Arc<T>: the object; None does not convert. */
template <typename T>
struct TypeTraits<Arc<T>, std::enable_if_t<detail::kConvertibleObjectPtr<T>>>
    : detail::ObjectPtrTraitsBase<Arc<T>, T, false> {};

/*! \brief Pointers to a derived object are pointers to its base (containers of them too). */
template <typename Base, typename Derived>
inline constexpr bool type_subsumes_v<ObjectPtr<Base>, ObjectPtr<Derived>> =
    std::is_base_of_v<Base, Derived>;
/*! \brief As above; an Arc is never null, so it is also an ObjectPtr. */
template <typename Base, typename Derived>
inline constexpr bool type_subsumes_v<Arc<Base>, Arc<Derived>> = std::is_base_of_v<Base, Derived>;
/*! \brief As above, from Arc to ObjectPtr. */
template <typename Base, typename Derived>
inline constexpr bool type_subsumes_v<ObjectPtr<Base>, Arc<Derived>> =
    std::is_base_of_v<Base, Derived>;

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_ARC_H_
