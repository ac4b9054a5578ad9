/*
 * ffi/reflection/accessor.h - reading what reflection registered: a type's fields (getters and
 * setters at reflected offsets), its methods, and type attribute columns. Everything goes through
 * the C ABI's TVMFFITypeInfo and TVMFFIGetTypeAttrColumn, so it reads types registered by any
 * library, built with either implementation's headers.
 *
 *   refl::FieldGetter get_x("my.Point", "x");
 *   int64_t x = get_x(point).cast<int64_t>();
 *   refl::TypeAttrColumn column("__my_attr__");
 *   AnyView v = column[point->type_index()];   // None where the type has no value
 */
#ifndef FFI_REFLECTION_ACCESSOR_H_
#define FFI_REFLECTION_ACCESSOR_H_

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "../any.h"
#include "../detail/attr_column.h"
#include "../function.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {

/*! \brief A NUL-terminated string as an ABI byte array (usable in constant expressions). */
constexpr TVMFFIByteArray AsByteArray(const char* s) {
  return TVMFFIByteArray{s, std::char_traits<char>::length(s)};
}

/*!
 * \brief The name of a type attribute together with the type of its values, so that a value read
 * from a column is checked once, where it is read.
 */
template <typename T>
struct AttrKey {
  /*! \brief The type of the attribute's values. */
  using ValueType = T;
  /*! \brief The attribute name (static storage). */
  const char* name;
  /*!
   * \brief The value, or nullopt for None (absent); TypeError when it is not stored as a `T`
   * (no conversion: an attribute has one declared type).
   */
  std::optional<ValueType> ValueFrom(AnyView value) const {
    if (value.is_none()) return std::nullopt;
    if (std::optional<ValueType> v = value.as<ValueType>()) return v;
    FFI_THROW(TypeError) << "Type attribute `" << name << "` holds `" << value.GetTypeName()
                         << "`, not `" << TypeTraits<ValueType>::TypeStr() << "`";
  }
};

namespace detail {
/*! \brief The registered type `type_key`; KeyError when there is none. */
inline const TVMFFITypeInfo* TypeInfoOfKey(std::string_view type_key) {
  return TVMFFIGetTypeInfo(TypeKeyToIndex(type_key));
}
}  // namespace detail

/*! \brief The reflected field `field_name` of type `type_key`; RuntimeError when it has none. */
inline const TVMFFIFieldInfo* GetFieldInfo(std::string_view type_key, std::string_view field_name) {
  const TVMFFITypeInfo* info = detail::TypeInfoOfKey(type_key);
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (ffi::detail::ByteView(info->fields[i].name) == field_name) return &info->fields[i];
  }
  FFI_THROW(RuntimeError) << "Cannot find field `" << field_name << "` in " << type_key;
}

/*! \brief The reflected method `method_name` of type `type_key`; RuntimeError when it has none. */
inline const TVMFFIMethodInfo* GetMethodInfo(std::string_view type_key,
                                             std::string_view method_name) {
  const TVMFFITypeInfo* info = detail::TypeInfoOfKey(type_key);
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (ffi::detail::ByteView(info->methods[i].name) == method_name) return &info->methods[i];
  }
  FFI_THROW(RuntimeError) << "Cannot find method " << method_name << " in " << type_key;
}

/*! \brief The function of reflected method `method_name` of type `type_key`. */
inline Function GetMethod(std::string_view type_key, std::string_view method_name) {
  return AnyView::FromRaw(GetMethodInfo(type_key, method_name)->method).cast<Function>();
}

/*!
 * \brief Calls a field's setter on the field at `field_addr`. The setter is a C function unless
 * the field's flags say it is a Function object, which then takes (address, value).
 */
inline int CallFieldSetter(const TVMFFIFieldInfo* field, void* field_addr, const TVMFFIAny* value) {
  if (!(field->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj)) {
    return reinterpret_cast<TVMFFIFieldSetter>(field->setter)(field_addr, value);
  }
  TVMFFIAny args[2] = {};
  args[0].type_index = kTVMFFIOpaquePtr;
  args[0].v_ptr = field_addr;
  args[1] = *value;
  TVMFFIAny result{};
  int rc = TVMFFIFunctionCall(field->setter, args, 2, &result);
  if (rc == 0) Any::FromRaw(result);  // Drops whatever the setter returned.
  return rc;
}

/*! \brief Sets a field to its registered default (calling the factory when it has one). */
inline void SetFieldToDefault(const TVMFFIFieldInfo* field, void* field_addr) {
  if (field->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) {
    Any value = AnyView::FromRaw(field->default_value_or_factory).cast<Function>()();
    FFI_CHECK_SAFE_CALL(CallFieldSetter(field, field_addr, value.raw()));
  } else {
    FFI_CHECK_SAFE_CALL(CallFieldSetter(field, field_addr, &field->default_value_or_factory));
  }
}

/*! \brief Reads one reflected field of objects of its type. */
class FieldGetter {
 public:
  explicit FieldGetter(const TVMFFIFieldInfo* field) : field_(field) {}
  FieldGetter(std::string_view type_key, std::string_view field_name)
      : field_(GetFieldInfo(type_key, field_name)) {}
  /*! \brief The field's value in `obj` (which must be of the field's type). */
  Any operator()(const Object* obj) const {
    Any result;
    void* addr = const_cast<char*>(reinterpret_cast<const char*>(obj)) + field_->offset;
    FFI_CHECK_SAFE_CALL(field_->getter(addr, const_cast<TVMFFIAny*>(result.raw())));
    return result;
  }
  Any operator()(const ObjectPtr<Object>& obj) const { return (*this)(obj.get()); }
  Any operator()(const ObjectRef& obj) const { return (*this)(obj.get()); }

 private:
  const TVMFFIFieldInfo* field_;
};

/*! \brief Writes one reflected field (converting the value; TypeError when it does not). */
class FieldSetter {
 public:
  explicit FieldSetter(const TVMFFIFieldInfo* field) : field_(field) {}
  FieldSetter(std::string_view type_key, std::string_view field_name)
      : field_(GetFieldInfo(type_key, field_name)) {}
  void operator()(const Object* obj, AnyView value) const {
    void* addr = const_cast<char*>(reinterpret_cast<const char*>(obj)) + field_->offset;
    FFI_CHECK_SAFE_CALL(CallFieldSetter(field_, addr, value.raw()));
  }
  void operator()(const ObjectPtr<Object>& obj, AnyView value) const { (*this)(obj.get(), value); }
  void operator()(const ObjectRef& obj, AnyView value) const { (*this)(obj.get(), value); }

 private:
  const TVMFFIFieldInfo* field_;
};

/*!
 * \brief A type attribute column: the attribute's value per type index, None where a type has
 * none. The column must exist (RuntimeError otherwise; EnsureTypeAttrColumn creates it).
 */
class TypeAttrColumn {
 public:
  explicit TypeAttrColumn(std::string_view attr_name) {
    TVMFFIByteArray name{attr_name.data(), attr_name.size()};
    column_ = TVMFFIGetTypeAttrColumn(&name);
    if (column_ == nullptr) FFI_THROW(RuntimeError) << "Cannot find type attribute " << attr_name;
  }
  template <typename T>
  explicit TypeAttrColumn(AttrKey<T> key) : TypeAttrColumn(key.name) {}
  /*! \brief The value for `type_index` (borrowed from the column, which lives as long as the
   * process), or None. */
  AnyView operator[](int32_t type_index) const {
    const TVMFFIAny* slot = ::tvm::ffi::detail::AttrColumnSlot(column_, type_index);
    return slot != nullptr ? AnyView::FromRaw(*slot) : AnyView();
  }

 private:
  const TVMFFITypeAttrColumn* column_;
};

/*!
 * \brief Calls `visit(const TVMFFIFieldInfo*)` for every field of a type, inherited ones first
 * (from the root down), then its own.
 */
template <typename F>
void ForEachFieldInfo(const TVMFFITypeInfo* info, F&& visit) {
  for (int32_t depth = 1; depth < info->type_depth; ++depth) {
    const TVMFFITypeInfo* parent = info->type_ancestors[depth];
    for (int32_t i = 0; i < parent->num_fields; ++i) visit(parent->fields + i);
  }
  for (int32_t i = 0; i < info->num_fields; ++i) visit(info->fields + i);
}

/*! \brief As ForEachFieldInfo, stopping (and returning true) when `visit` returns true. */
template <typename F>
bool ForEachFieldInfoWithEarlyStop(const TVMFFITypeInfo* info, F&& visit) {
  for (int32_t depth = 1; depth < info->type_depth; ++depth) {
    const TVMFFITypeInfo* parent = info->type_ancestors[depth];
    for (int32_t i = 0; i < parent->num_fields; ++i) {
      if (visit(parent->fields + i)) return true;
    }
  }
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (visit(info->fields + i)) return true;
  }
  return false;
}

}  // namespace reflection

/*! \brief The type attributes reflection itself registers, under the reference's names. */
namespace type_attr {
/*! \brief Makes an empty object of the type (from the type's creator). */
inline constexpr reflection::AttrKey<Function> kNew{"__ffi_new__"};
/*! \brief The constructor registered with `ObjectDef::def(init<...>())`. */
inline constexpr reflection::AttrKey<Function> kInit{"__ffi_init__"};
/*! \brief Converts a value to the type (registered with `def_convert<TSelf>()`). */
inline constexpr reflection::AttrKey<Function> kConvert{"__ffi_convert__"};
/*!
 * \brief What `__ffi_convert__` accepts, as a type schema (JSON text or schema object), for stub
 * generators that widen parameter annotations.
 */
inline constexpr reflection::AttrKey<Any> kConvertTypeSchema{"__ffi_convert_type_schema__"};
/*! \brief Copies an object of the type field by field (its C++ copy constructor). */
inline constexpr reflection::AttrKey<Function> kShallowCopy{"__ffi_shallow_copy__"};
/*! \brief Whether the type is final. */
inline constexpr reflection::AttrKey<bool> kTypeFinal{"__ffi_type_final__"};
}  // namespace type_attr

namespace reflection {
/*! \brief The keys also as `reflection::type_attr::k...` (the reference's newer spelling). */
namespace type_attr {
using namespace ::tvm::ffi::type_attr;
}  // namespace type_attr
}  // namespace reflection

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_ACCESSOR_H_
