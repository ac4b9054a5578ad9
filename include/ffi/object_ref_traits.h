/*
 * ffi/object_ref_traits.h - the TypeTraits of object references: ObjectRefTypeTraitsBase, the
 * traits of every ObjectRef subclass that does not bring its own, ObjectRefWithFallbackTraitsBase
 * for reference classes also made from other values, and the traits of raw object pointers; and
 * ObjectRef::as<T>() / as_or_throw<T>() for reference classes, which use those traits. Included by
 * type_traits.h.
 */
#ifndef FFI_OBJECT_REF_TRAITS_H_
#define FFI_OBJECT_REF_TRAITS_H_

#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "const_string.h"
#include "error.h"
#include "object.h"
#include "optional.h"
#include "traits_protocol.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

class FunctionObj;  // function.h
class TensorObj;    // tensor.h

namespace detail {
/*! \brief The type key of object type `T` with the "ffi." prefix dropped ("Tensor", "my.Box"). */
template <typename T>
constexpr auto ObjectTypeName() {
  constexpr std::string_view key = T::_type_key;
  constexpr std::string_view name = key.substr(0, 4) == "ffi." ? key.substr(4) : key;
  return ConstString<name.size()>::FromChars(name.data());
}
}  // namespace detail

/*!
 * \brief Whether reference class `T` converts through the generic object-reference traits below.
 * Containers whose conversions look at their elements (Array<T>, Map<K, V>, ...) set it to false
 * for their class template and specialize TypeTraits themselves; otherwise both would match.
 */
template <typename T>
inline constexpr bool use_default_type_traits_v = true;

/*!
 * \brief The conversions of object reference `T` (see below). A class that also converts other
 * values (Shape from a list of integers) specializes TypeTraits on top of these; a specialization
 * that narrows CheckAnyStrict gets it used by TryCastFromAnyView too.
 */
template <typename T>
struct ObjectRefTypeTraitsBase : TypeTraitsBase {
  using Container = typename T::ContainerType;
  /*! \brief Function for functions, DLTensorPtr for tensors (as TVM-FFI records), else Object. */
  static constexpr int32_t field_static_type_index =
      std::is_same_v<Container, FunctionObj> ? kTVMFFIFunction
      : std::is_same_v<Container, TensorObj> ? kTVMFFIDLTensorPtr
                                             : kTVMFFIObject;
  static void CopyToAnyView(const T& v, TVMFFIAny* out) {
    TVMFFIObject* h = detail::ObjectUnsafe::HeaderOf(v);
    if (h == nullptr) return detail::SetNone(out);
    out->type_index = h->type_index;
    out->zero_padding = 0;
    out->v_obj = h;
  }
  static void MoveToAny(T v, TVMFFIAny* out) {
    TVMFFIObject* h = detail::ObjectUnsafe::MoveToHeader(std::move(v));
    if (h == nullptr) return detail::SetNone(out);
    out->type_index = h->type_index;
    out->zero_padding = 0;
    out->v_obj = h;
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFINone) return T::_type_is_nullable;
    return src->type_index >= kTVMFFIStaticObjectBegin &&
           detail::ObjectUnsafe::FromHeader(src->v_obj)->template IsInstance<Container>();
  }
  static detail::CastResult<T> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!TypeTraits<T>::CheckAnyStrict(src)) return std::nullopt;
    return CopyFromAnyViewAfterCheck(src);
  }
  /*! \brief The value, known to pass CheckAnyStrict (containers use it to read their elements). */
  static T CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return detail::ObjectUnsafe::RefFromBorrowedHeader<T>(
        src->type_index == kTVMFFINone ? nullptr : src->v_obj);
  }
  static constexpr auto TypeStr() { return detail::ObjectTypeName<Container>(); }
  /*! \brief {"type":"<the object type's key>"}. */
  static std::string TypeSchema() { return detail::SchemaOfKey(Container::_type_key); }
};

/*!
 * \brief Object references: the object's own type index; None for a null reference of a nullable
 * class. A value converts when its object is a `T::ContainerType` or derives from it.
 */
template <typename T>
struct TypeTraits<T,
                  std::enable_if_t<std::is_base_of_v<ObjectRef, T> && use_default_type_traits_v<T>>>
    : ObjectRefTypeTraitsBase<T> {};

/*!
 * \brief Traits of a reference class that is also made from other values: a value of the class
 * itself converts as usual, otherwise the first of `FallbackTypes` the value converts to is passed
 * to `TypeTraits<RefT>::ConvertFallbackValue` (one overload per fallback type), in order. Use
 * StrictBool rather than bool as a fallback, or every int would take the bool path.
 *
 * \code
 *   template <>
 *   struct TypeTraits<PrimExpr> : ObjectRefWithFallbackTraitsBase<PrimExpr, int64_t, double> {
 *     static PrimExpr ConvertFallbackValue(int64_t v) { return IntImm(v); }
 *     static PrimExpr ConvertFallbackValue(double v) { return FloatImm(v); }
 *   };
 * \endcode
 */
template <typename RefT, typename... FallbackTypes>
struct ObjectRefWithFallbackTraitsBase : ObjectRefTypeTraitsBase<RefT> {
  static detail::CastResult<RefT> TryCastFromAnyView(const TVMFFIAny* src) {
    if (TypeTraits<RefT>::CheckAnyStrict(src)) {
      return ObjectRefTypeTraitsBase<RefT>::CopyFromAnyViewAfterCheck(src);
    }
    return TryFallbacks<FallbackTypes...>(src);
  }

 private:
  template <typename First, typename... Rest>
  static Optional<RefT> TryFallbacks(const TVMFFIAny* src) {
    static_assert(!std::is_same_v<First, bool>,
                  "bool as a fallback type takes every int; use StrictBool");
    if (auto value = TypeTraits<First>::TryCastFromAnyView(src)) {
      return RefT(TypeTraits<RefT>::ConvertFallbackValue(First(*std::move(value))));
    }
    if constexpr (sizeof...(Rest) > 0) {
      return TryFallbacks<Rest...>(src);
    } else {
      return std::nullopt;
    }
  }
};

template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int>>
std::optional<T> ObjectRef::as() const {
  if (data_ == nullptr) {
    if constexpr (T::_type_is_nullable)
      return detail::ObjectUnsafe::RefFromBorrowedHeader<T>(nullptr);
    return std::nullopt;
  }
  TVMFFIAny view;
  view.type_index = data_->type_index();
  view.zero_padding = 0;
  view.v_obj = detail::ObjectUnsafe::Header(data_.get());
  // The reference class's own check: an Array<int> also checks its elements.
  if (!TypeTraits<T>::CheckAnyStrict(&view)) return std::nullopt;
  return detail::ObjectUnsafe::RefFromBorrowedHeader<T>(view.v_obj);
}

template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int>>
T ObjectRef::as_or_throw() const {
  std::optional<T> out = as<T>();
  if (FFI_UNLIKELY(!out.has_value())) {
    TVMFFIAny view;
    view.type_index = type_index();
    view.zero_padding = 0;
    view.v_obj = data_ ? detail::ObjectUnsafe::Header(data_.get()) : nullptr;
    FFI_THROW(TypeError) << "Cannot treat type `" << detail::MismatchTypeInfo<T>(&view)
                         << "` as type `" << TypeTraits<T>::TypeStr() << "`";
  }
  return *std::move(out);
}

/*!
 * \brief Pointers to objects (`const MyObj*`, as reflected methods take `self`): a view of the
 * object, which the caller keeps alive; storing one in an Any takes a reference. A null pointer is
 * stored as None, but None never converts back (TypeError), as in TVM-FFI.
 */
template <typename T>
struct TypeTraits<T*, std::enable_if_t<std::is_base_of_v<Object, std::remove_cv_t<T>>>>
    : TypeTraitsBase {
  using Obj = std::remove_cv_t<T>;
  static void CopyToAnyView(T* const& v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    out->type_index = v->type_index();
    out->zero_padding = 0;
    out->v_obj = detail::ObjectUnsafe::Header(v);
  }
  static void MoveToAny(T* v, TVMFFIAny* out) {
    CopyToAnyView(v, out);
    if (v != nullptr) detail::ObjectUnsafe::IncRef(out->v_obj);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index >= kTVMFFIStaticObjectBegin &&
           detail::ObjectUnsafe::FromHeader(src->v_obj)->template IsInstance<Obj>();
  }
  /*! \brief Never null: None does not convert (a function taking `const MyObj*` dereferences it).
   */
  static detail::CastResult<T*> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!CheckAnyStrict(src)) return std::nullopt;
    return static_cast<T*>(static_cast<Obj*>(detail::ObjectUnsafe::FromHeader(src->v_obj)));
  }
  static constexpr auto TypeStr() { return detail::ObjectTypeName<Obj>(); }
  static std::string TypeSchema() { return detail::SchemaOfKey(Obj::_type_key); }
};

/*! \brief The runtime type index of reference class `T`: its object type's registered index. */
template <typename T>
struct TypeToRuntimeTypeIndex<T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>>> {
  static int32_t v() { return T::ContainerType::RuntimeTypeIndex(); }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_OBJECT_REF_TRAITS_H_
