/*
 * ffi/rvalue_ref.h - RValueRef<T>: passing an object reference to a function by move.
 *
 * A caller that gives up its reference lets the callee take the object without a copy, so an
 * Array with one owner can be appended to in place:
 *
 *     auto append = Function::FromTyped([](RValueRef<Array<int>> ref, int v) {
 *       Array<int> arr = *std::move(ref);  // the only reference: push_back does not copy
 *       arr.push_back(v);
 *       return arr;
 *     });
 *     a = append(RValueRef(std::move(a)), 4).cast<Array<int>>();
 *
 * On the wire it is kTVMFFIObjectRValueRef, whose payload points at the caller's slot holding the
 * object; the callee empties the slot when it takes the object.
 */
#ifndef FFI_RVALUE_REF_H_
#define FFI_RVALUE_REF_H_

#include <string>
#include <type_traits>
#include <utility>

#include "detail/type_schema.h"
#include "object.h"
#include "type_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief An object reference passed by move (see the file comment). As a parameter type it also
 * accepts an ordinary value, which it converts (and so copies) as `TObjRef` would.
 */
template <typename TObjRef, typename = std::enable_if_t<std::is_base_of_v<ObjectRef, TObjRef>>>
class RValueRef {
 public:
  /*! \brief The object type of `TObjRef`. */
  using ContainerType = typename TObjRef::ContainerType;

  /*! \brief Takes `ref` over; the caller's variable is left null. */
  explicit RValueRef(TObjRef&& ref) : handle_(detail::ObjectUnsafe::MoveToHeader(std::move(ref))) {}
  RValueRef(RValueRef&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  RValueRef& operator=(RValueRef&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  RValueRef(const RValueRef&) = delete;
  RValueRef& operator=(const RValueRef&) = delete;
  ~RValueRef() {
    if (handle_ != nullptr) detail::ObjectUnsafe::DecRef(handle_);
  }

  /*! \brief The reference, moved out (this is left empty). */
  TObjRef operator*() && {
    TVMFFIObject* h = handle_;
    handle_ = nullptr;
    return detail::ObjectUnsafe::RefFromOwnedHeader<TObjRef>(h);
  }

 private:
  // The slot a kTVMFFIObjectRValueRef value points at: a callee taking the object empties it.
  mutable TVMFFIObject* handle_;

  template <typename, typename>
  friend struct TypeTraits;
};

/*! \brief RValueRef is not an ObjectRef's ordinary conversion: it has its own traits below. */
template <typename TObjRef>
inline constexpr bool use_default_type_traits_v<RValueRef<TObjRef>> = false;

/*!
 * \brief RValueRef<T>: kTVMFFIObjectRValueRef, never stored in an Any. From a moved reference the
 * object is taken when it is a `T` as is, else converted as `T` converts (a copy: the caller's
 * reference stays); from an ordinary value, converted as `T`.
 */
template <typename TObjRef>
struct TypeTraits<RValueRef<TObjRef>> : TypeTraitsBase {
  /*! \brief A view of the caller's slot, not a value an Any could own. */
  static constexpr bool storage_enabled = false;

  static void CopyToAnyView(const RValueRef<TObjRef>& v, TVMFFIAny* out) {
    out->type_index = kTVMFFIObjectRValueRef;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_ptr = &v.handle_;
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  static detail::CastResult<RValueRef<TObjRef>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIObjectRValueRef) {
      auto** slot = static_cast<TVMFFIObject**>(src->v_ptr);
      if (slot == nullptr || *slot == nullptr) return std::nullopt;  // already taken
      TVMFFIAny target = ObjectView(*slot);
      if (TypeTraits<TObjRef>::CheckAnyStrict(&target)) {
        TVMFFIObject* h = *slot;
        *slot = nullptr;
        return RValueRef<TObjRef>(detail::ObjectUnsafe::RefFromOwnedHeader<TObjRef>(h));
      }
      if (auto converted = TypeTraits<TObjRef>::TryCastFromAnyView(&target)) {
        return RValueRef<TObjRef>(TObjRef(*std::move(converted)));
      }
      return std::nullopt;
    }
    if (auto converted = TypeTraits<TObjRef>::TryCastFromAnyView(src)) {
      return RValueRef<TObjRef>(TObjRef(*std::move(converted)));
    }
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index == kTVMFFIObjectRValueRef) {
      auto** slot = static_cast<TVMFFIObject**>(src->v_ptr);
      if (slot == nullptr || *slot == nullptr) return "RValueRef<(moved)>";
      TVMFFIAny target = ObjectView(*slot);
      return "RValueRef<" + detail::MismatchTypeInfo<TObjRef>(&target) + ">";
    }
    return detail::MismatchTypeInfo<TObjRef>(src);
  }
  static constexpr auto TypeStr() {
    return ConstString("RValueRef<") + TypeTraits<TObjRef>::TypeStr() + ">";
  }
  static std::string TypeSchema() {
    return R"({"type":"ObjectRValueRef","args":[)" + detail::TypeSchema<TObjRef>::v() + "]}";
  }

 private:
  static TVMFFIAny ObjectView(TVMFFIObject* h) {
    TVMFFIAny view;
    view.type_index = h->type_index;
    view.zero_padding = 0;
    view.v_obj = h;
    return view;
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_RVALUE_REF_H_
