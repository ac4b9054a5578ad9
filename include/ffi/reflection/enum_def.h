/*
 * ffi/reflection/enum_def.h - defining the members of an enum class from C++ (see <ffi/enum.h>).
 *
 *   FFI_STATIC_INIT_BLOCK() {
 *     namespace refl = ffi::reflection;
 *     refl::ObjectDef<ActivationObj>(refl::init(false));
 *     refl::EnumDef<ActivationObj>("relu").set_attr("arity", 1);   // member 0
 *     refl::EnumDef<ActivationObj>("add").set_attr("arity", 2);    // member 1
 *     refl::EnumDef<PriorityObj>("HIGH", 10);                      // an IntEnum: index given
 *   }
 *
 * Each EnumDef makes one member and adds it to the class's EnumState (made and registered as the
 * `__ffi_enum__` type attribute on first use), where Python and other libraries find it.
 */
#ifndef FFI_REFLECTION_ENUM_DEF_H_
#define FFI_REFLECTION_ENUM_DEF_H_

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../any.h"
#include "../container/dict.h"
#include "../container/list.h"
#include "../enum.h"
#include "../error.h"
#include "../object.h"
#include "../string.h"
#include "accessor.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {

/*!
 * \brief Defines one member of the enum class `EnumClsObj` (an EnumObj subclass) and, through
 * set_attr, its extensible attributes. A duplicate index is a ValueError.
 */
template <typename EnumClsObj, typename = std::enable_if_t<std::is_base_of_v<EnumObj, EnumClsObj>>>
class EnumDef {
 public:
  /*! \brief Whether the enum class has a member with string index `name`. */
  static bool IsDefined(const String& name) {
    std::optional<EnumState> state = ffi::detail::FindEnumState(EnumClsObj::RuntimeTypeIndex());
    return state.has_value() && (*state)->indexes.count(Any(name)) != 0;
  }

  /*! \brief The next member, named `str_index`; its integer index is its position. */
  explicit EnumDef(const char* str_index) : type_index_(EnumClsObj::RuntimeTypeIndex()) {
    static_assert(!std::is_base_of_v<IntEnumObj, EnumClsObj>,
                  "an IntEnum member needs its integer index: EnumDef(name, index)");
    EnumState state = EnsureState();
    Register(state, static_cast<int64_t>(state->entries.size()), String(str_index));
  }

  /*! \brief An IntEnum member named `str_index` with integer index `int_index`. */
  EnumDef(const char* str_index, int64_t int_index) : type_index_(EnumClsObj::RuntimeTypeIndex()) {
    static_assert(std::is_base_of_v<IntEnumObj, EnumClsObj>,
                  "only IntEnum members are given an integer index");
    Register(EnsureState(), int_index, String(str_index));
  }

  /*! \brief Sets the member's extensible attribute `attr_name` to `value`. */
  template <typename T>
  EnumDef& set_attr(const char* attr_name, T value) {
    Dict<String, Dict<ObjectRef, Any>> attrs = EnsureState()->attrs;
    String key(attr_name);
    Dict<ObjectRef, Any> column = attrs.Get(key).value_or(Dict<ObjectRef, Any>());
    attrs.Set(key, column);
    column.Set(member_, Any(std::move(value)));
    return *this;
  }

  /*! \brief Sets the member's attribute `key` (its value converted to the key's type first). */
  template <typename T, typename Value>
  EnumDef& set_attr(AttrKey<T> key, Value&& value) {
    return set_attr(key.name, T(std::forward<Value>(value)));
  }
  /*!
   * \brief Sets the member's attribute `key` to native hook `Fn`, for a key whose values are hooks
   * (reflection::NativeFunctionView).
   */
  template <auto Fn, typename T>
  EnumDef& set_native_fn_attr(AttrKey<T> key) {
    return set_attr(key, T::template FromNative<Fn>());
  }

 private:
  EnumState EnsureState() {
    if (std::optional<EnumState> state = ffi::detail::FindEnumState(type_index_)) return *state;
    EnumState state(make_object<EnumStateObj>());
    TVMFFIByteArray name = AsByteArray(type_attr::kEnumState.name);
    AnyView value(state);
    FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index_, &name, value.raw()));
    return state;
  }

  void Register(const EnumState& state, int64_t int_index, String str_index) {
    Any int_key(int_index);
    Any str_key(str_index);
    if (state->indexes.count(int_key) || state->indexes.count(str_key)) {
      FFI_THROW(ValueError) << "Enum `" << EnumClsObj::_type_key << "` already has a member with "
                            << "index " << int_index << " or \"" << str_index.view() << "\"";
    }
    ObjectPtr<EnumClsObj> obj = make_object<EnumClsObj>();
    obj->_int_index = int_index;
    obj->_str_index = std::move(str_index);
    member_ = Enum(std::move(obj));
    List<ObjectRef> entries = state->entries;
    Dict<Any, ObjectRef> indexes = state->indexes;
    entries.push_back(member_);
    indexes.Set(int_key, member_);
    indexes.Set(str_key, member_);
  }

  int32_t type_index_;
  Enum member_{UnsafeInit{}};
};

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_ENUM_DEF_H_
