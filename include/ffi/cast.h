/*
 * ffi/cast.h - from a raw object pointer back to a reference: GetRef<Ref>(obj), the reference to
 * an object a method was handed as `const MyObj*`, and GetObjectPtr<T>(obj), an owning pointer.
 * Both take a new strong reference; the object must be alive (the caller holds one).
 */
#ifndef FFI_CAST_H_
#define FFI_CAST_H_

#include <optional>
#include <type_traits>

#include "error.h"
#include "object.h"
#include "optional.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
template <typename T>
struct IsStdOptional : std::false_type {};
template <typename T>
struct IsStdOptional<std::optional<T>> : std::true_type {};
}  // namespace detail

/*!
 * \brief A `RefType` sharing the object `ptr` points to (a new strong reference). `ObjectType`
 * must be a `RefType` for certain (see object_ref_contains_v). A null `ptr` gives a null reference
 * for a nullable `RefType` and nothing for an `Optional<Ref>` or `std::optional<Ref>`; for a
 * non-nullable one it is an InternalError.
 */
template <typename RefType, typename ObjectType>
RefType GetRef(const ObjectType* ptr) {
  static_assert(std::is_base_of_v<Object, ObjectType>, "GetRef: ObjectType must be an Object");
  if constexpr (detail::IsStdOptional<RefType>::value || is_optional_type_v<RefType>) {
    using Value = typename RefType::value_type;
    if (ptr == nullptr) return std::nullopt;
    return RefType(GetRef<Value>(ptr));
  } else {
    static_assert(object_ref_contains_v<RefType, ObjectType>,
                  "GetRef: RefType must hold every ObjectType (ObjectType derives from "
                  "RefType::ContainerType, and that is all RefType asks); use "
                  "ObjectRef::as<RefType>() to check at run time");
    if (ptr == nullptr) {
      if constexpr (!RefType::_type_is_nullable) {
        FFI_THROW(InternalError) << "GetRef: a null pointer for a non-nullable reference";
      }
      return detail::ObjectUnsafe::RefFromBorrowedHeader<RefType>(nullptr);
    }
    return detail::ObjectUnsafe::RefFromBorrowedHeader<RefType>(
        detail::ObjectUnsafe::Header(static_cast<const Object*>(ptr)));
  }
}

/*! \brief An `ObjectPtr<BaseType>` sharing the object `ptr` points to (a new strong reference). */
template <typename BaseType, typename ObjectType>
ObjectPtr<BaseType> GetObjectPtr(ObjectType* ptr) {
  static_assert(std::is_base_of_v<BaseType, ObjectType>,
                "GetObjectPtr: ObjectType must be BaseType or derive from it");
  return ObjectPtr<BaseType>::Borrow(const_cast<std::remove_cv_t<ObjectType>*>(ptr));
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CAST_H_
