/*
 * ffi/reflection/creator.h - making objects by reflection: an empty object of a registered type
 * (its creator, else its `__ffi_new__` attribute), then every field set from given values or its
 * default.
 *
 *   refl::ObjectCreator make("my.Point");
 *   Any p = make(Map<String, Any>{{"x", 1}, {"y", 2.0}});
 */
#ifndef FFI_REFLECTION_CREATOR_H_
#define FFI_REFLECTION_CREATOR_H_

#include <optional>
#include <string>
#include <string_view>

#include "../container/map.h"
#include "../detail/attr_column.h"
#include "accessor.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief The `__ffi_new__` Function registered for the type, if any. */
inline std::optional<Function> NewFunctionOf(const TVMFFITypeInfo* info) {
  TVMFFIByteArray name = reflection::AsByteArray(type_attr::kNew.name);
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
  if (column == nullptr) return std::nullopt;
  const TVMFFIAny* slot = AttrColumnSlot(column, info->type_index);
  if (slot == nullptr || slot->type_index != kTVMFFIFunction) return std::nullopt;
  return AnyView::FromRaw(*slot).cast<Function>();
}
}  // namespace detail

/*! \brief Whether objects of the type can be made by reflection. */
inline bool HasCreator(const TVMFFITypeInfo* info) {
  return (info->metadata != nullptr && info->metadata->creator != nullptr) ||
         detail::NewFunctionOf(info).has_value();
}

/*! \brief An empty object of the type; RuntimeError when it has neither creator nor `__ffi_new__`.
 */
inline ObjectPtr<Object> CreateEmptyObject(const TVMFFITypeInfo* info) {
  if (info->metadata != nullptr && info->metadata->creator != nullptr) {
    TVMFFIObjectHandle handle = nullptr;
    FFI_CHECK_SAFE_CALL(info->metadata->creator(&handle));
    return detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(handle));
  }
  if (std::optional<Function> make = detail::NewFunctionOf(info)) {
    return detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>((*make)().cast<ObjectRef>());
  }
  FFI_THROW(RuntimeError) << "Type `" << detail::ByteView(info->type_key)
                          << "` does not support reflection creation"
                          << " (no native creator or __ffi_new__ type attr)";
}

namespace reflection {
namespace detail {
/*!
 * \brief Sets every field of `obj` (of type `info`): to `value_of(name)` when it gives one (an
 * optional Any), else to the field's default; TypeError for a field with neither. Returns how many
 * fields took a given value, so that the caller can find names that are no field.
 */
template <typename ValueOf>
size_t InitFields(const TVMFFITypeInfo* info, Object* obj, ValueOf&& value_of) {
  size_t matched = 0;
  char* base = reinterpret_cast<char*>(obj);
  ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
    void* addr = base + field->offset;
    std::string_view name = ffi::detail::ByteView(field->name);
    if (std::optional<Any> value = value_of(name)) {
      FFI_CHECK_SAFE_CALL(CallFieldSetter(field, addr, value->raw()));
      ++matched;
    } else if (field->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
      SetFieldToDefault(field, addr);
    } else {
      FFI_THROW(TypeError) << "Required field `" << name << "` not set in type `"
                           << ffi::detail::ByteView(info->type_key) << "`";
    }
  });
  return matched;
}

/*! \brief TypeError unless `name` is a field of the type (given or inherited). */
inline void CheckIsField(const TVMFFITypeInfo* info, std::string_view name) {
  bool found = ForEachFieldInfoWithEarlyStop(
      info, [&](const TVMFFIFieldInfo* f) { return ffi::detail::ByteView(f->name) == name; });
  if (!found) {
    FFI_THROW(TypeError) << "Type `" << ffi::detail::ByteView(info->type_key)
                         << "` does not have field `" << name << "`";
  }
}
}  // namespace detail

/*! \brief Makes objects of one registered type from field values (see the file comment). */
class ObjectCreator {
 public:
  /*! \brief The type `type_key`; RuntimeError when it cannot be made by reflection. */
  explicit ObjectCreator(std::string_view type_key)
      : ObjectCreator(detail::TypeInfoOfKey(type_key)) {}
  explicit ObjectCreator(const TVMFFITypeInfo* info) : info_(info) {
    if (!HasCreator(info)) {
      FFI_THROW(RuntimeError) << "Type `" << ffi::detail::ByteView(info->type_key)
                              << "` does not support default constructor, "
                              << "as a result cannot be created via reflection";
    }
  }
  /*!
   * \brief A new object with the given fields set and the others at their defaults; TypeError
   * for a missing required field or a name that is no field.
   */
  Any operator()(const Map<String, Any>& fields) const {
    ObjectPtr<Object> obj = CreateEmptyObject(info_);
    size_t matched = detail::InitFields(
        info_, obj.get(), [&](std::string_view name) { return fields.Get(String(name)); });
    if (matched != fields.size()) {
      for (const auto& kv : fields) detail::CheckIsField(info_, kv.first.view());
    }
    return ObjectRef(std::move(obj));
  }

 private:
  const TVMFFITypeInfo* info_;
};

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_CREATOR_H_
