/*
 * ffi/reflection/registry.h - registering global functions, object types (fields, methods,
 * constructors) and type attributes, usually from a static-init block:
 *
 *   namespace refl = tvm::ffi::reflection;
 *   TVM_FFI_STATIC_INIT_BLOCK() {
 *     refl::GlobalDef().def("my.add", Add, "Adds two integers.");
 *     refl::ObjectDef<PointObj>()
 *         .def(refl::init<int64_t, int64_t>())
 *         .def_ro("x", &PointObj::x, "The x coordinate.")
 *         .def_rw("y", &PointObj::y, refl::default_value(0))
 *         .def("norm1", &PointObj::Norm1)
 *         .def_static("origin", &Origin);
 *     refl::TypeAttrDef<PointObj>().def("__my_attr__", 42);
 *   }
 *
 * Everything registers through the C ABI (TVMFFIFunctionSetGlobalFromMethodInfo,
 * TVMFFITypeRegisterField/Method/Metadata/Attr), with the records and metadata JSON the
 * reference's headers produce, so a library built with these headers registers into either
 * runtime and hosts of either implementation read it. `overload_cast` (overload_cast.h) names one
 * function of a C++ overload set; OverloadObjectDef (overload.h) registers several under one name.
 */
#ifndef FFI_REFLECTION_REGISTRY_H_
#define FFI_REFLECTION_REGISTRY_H_

#include <exception>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#include "../detail/attr_column.h"
#include "../detail/type_schema.h"
#include "../named_args.h"
#include "accessor.h"
#include "info_traits.h"
#include "overload_cast.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
// Named in field records' type hints; their headers define them.
class Shape;
class Tensor;
class TensorView;
template <typename T>
class Arc;

namespace reflection {

/*! \brief The byte offset of a member from the object header (what field records hold). */
template <typename Class, typename T>
int64_t GetFieldByteOffsetToObject(T Class::*field) {
  // At a made-up address, never dereferenced (offsetof is not for non-standard-layout classes).
  constexpr uintptr_t kProbe = 4096;
  const Class* probe = reinterpret_cast<const Class*>(kProbe);
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(&(probe->*field)) - kProbe) -
         ffi::detail::ObjectUnsafe::GetObjectOffsetToSubclass<Class>();
}

namespace detail {
/*! \brief Reads a field of type `T` (a TVMFFIFieldGetter). */
template <typename T>
int FieldGetter(void* field, TVMFFIAny* result) {
  FFI_SAFE_CALL_BEGIN();
  *result = Any(*static_cast<const T*>(field)).release();
  FFI_SAFE_CALL_END();
}

/*! \brief Writes a field of type `T`, converting the value (a TVMFFIFieldSetter). */
template <typename T>
int FieldSetter(void* field, const TVMFFIAny* value) {
  FFI_SAFE_CALL_BEGIN();
  if constexpr (std::is_same_v<T, Any>) {
    *static_cast<T*>(field) = Any(AnyView::FromRaw(*value));
  } else {
    *static_cast<T*>(field) = AnyView::FromRaw(*value).cast<T>();
  }
  FFI_SAFE_CALL_END();
}

/*! \brief Makes a default-constructed `T` for reflection (TVMFFITypeMetadata::creator). */
template <typename T>
int ObjectCreator(TVMFFIObjectHandle* result) {
  FFI_SAFE_CALL_BEGIN();
  if constexpr (std::is_default_constructible_v<T>) {
    *result = ffi::detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(make_object<T>());
  } else {
    *result =
        ffi::detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(make_object<T>(UnsafeInit{}));
  }
  FFI_SAFE_CALL_END();
}

/*!
 * \brief A method pointer as a callable taking the object first: `const Class*` for an Object
 * subclass, the reference itself for an ObjectRef subclass. Other callables pass through.
 */
template <typename F>
F&& WrapMethod(F&& f) {
  return std::forward<F>(f);
}
template <typename Class, typename R, typename... Args>
auto WrapMethod(R (Class::*method)(Args...)) {
  if constexpr (std::is_base_of_v<ObjectRef, Class>) {
    return [method](Class self, Args... args) -> R {
      return (self.*method)(std::forward<Args>(args)...);
    };
  } else {
    static_assert(std::is_base_of_v<Object, Class>, "a method of an Object or ObjectRef class");
    return [method](const Class* self, Args... args) -> R {
      return (const_cast<Class*>(self)->*method)(std::forward<Args>(args)...);
    };
  }
}
template <typename Class, typename R, typename... Args>
auto WrapMethod(R (Class::*method)(Args...) const) {
  if constexpr (std::is_base_of_v<ObjectRef, Class>) {
    return [method](const Class& self, Args... args) -> R {
      return (self.*method)(std::forward<Args>(args)...);
    };
  } else {
    static_assert(std::is_base_of_v<Object, Class>, "a method of an Object or ObjectRef class");
    return [method](const Class* self, Args... args) -> R {
      return (self->*method)(std::forward<Args>(args)...);
    };
  }
}

/*! \brief A typed Function of `f` (method pointers wrapped) and its type schema. */
template <typename F>
std::pair<Function, std::string> MakeTyped(std::string name, F&& f) {
  auto wrapped = WrapMethod(std::forward<F>(f));
  using W = std::decay_t<decltype(wrapped)>;
  std::string schema = ffi::detail::CallableSchema<W>::Get();
  return {Function::FromTyped(std::move(wrapped), std::move(name)), std::move(schema)};
}

/*! \brief Registers a type attribute value through the C ABI. */
inline void RegisterTypeAttr(int32_t type_index, std::string_view name, AnyView value) {
  TVMFFIByteArray name_bytes{name.data(), name.size()};
  FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index, &name_bytes, value.raw()));
}

/*! \brief Whether `type_index` already has a value for attribute `name`. */
inline bool HasTypeAttr(int32_t type_index, std::string_view name) {
  TVMFFIByteArray name_bytes{name.data(), name.size()};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name_bytes);
  if (column == nullptr) return false;
  const TVMFFIAny* slot = ::tvm::ffi::detail::AttrColumnSlot(column, type_index);
  return slot != nullptr && slot->type_index != kTVMFFINone;
}

/*!
 * \brief The `__ffi_convert__` of `TSelf`: `input` as a `TSelf`, converted as a function argument
 * would be (a list of ints becomes a Shape), or a TypeError naming both types.
 */
template <typename TSelf>
TSelf ConvertToRef(AnyView input) {
  TVMFFIAny raw = input.CopyToTVMFFIAny();
  if (auto converted = TypeTraits<TSelf>::TryCastFromAnyView(&raw)) return *std::move(converted);
  // Full type keys ("ffi.Array"), as the reference's converters say.
  const TVMFFITypeInfo* from =
      raw.type_index >= kTVMFFIStaticObjectBegin ? TVMFFIGetTypeInfo(raw.type_index) : nullptr;
  FFI_THROW(TypeError) << "Cannot cast from `"
                       << (from != nullptr ? std::string(ffi::detail::ByteView(from->type_key))
                                           : ffi::detail::TypeIndexToName(raw.type_index))
                       << "` to `" << TSelf::ContainerType::_type_key << "`";
}

/*! \brief Whether `T` names its object type (`T::ContainerType`), as reference types do. */
template <typename T, typename = void>
constexpr bool kHasContainerType = false;
template <typename T>
constexpr bool kHasContainerType<T, std::void_t<typename T::ContainerType>> = true;

/*! \brief Refuses `def_convert<TSelf>()` on a type that is not `TSelf`'s object type. */
template <typename TSelf, typename Class>
constexpr void CheckConvertTarget() {
  if constexpr (kHasContainerType<TSelf>) {
    static_assert(std::is_same_v<typename TSelf::ContainerType, Class>,
                  "def_convert<TSelf>(): TSelf::ContainerType must be the registered object type");
  }
}
}  // namespace detail

/*!
 * \brief Registers global functions: `.def(name, f, extra...)` for a typed callable,
 * `.def_packed(name, f, extra...)` for `void(PackedArgs, Any*)`, `.def_method(name, &C::m, ...)`
 * for a method (the object becomes the first argument). Extras are a doc string, Metadata, and
 * for `def`, parameter names and defaults as FFI_DLL_EXPORT_TYPED_FUNC_ARGS takes them
 * (`ffi::arg("x"), ffi::arg("alpha") = 2.0`, one per parameter): they go into the function's
 * metadata ("arg_names", "arg_defaults"), so hosts pass keywords, and omitted trailing arguments
 * take their defaults. A name already registered is a ValueError.
 */
class GlobalDef {
 public:
  template <typename F, typename... Extra>
  GlobalDef& def(const char* name, F&& f, Extra&&... extra) {
    if constexpr ((ffi::detail::kIsArgSpec<std::decay_t<Extra>> || ...)) {
      DefWithArgs(name, std::forward<F>(f), std::tuple_cat(ffi::detail::ArgSpecTuple(extra)...),
                  extra...);
    } else {
      auto [fn, schema] = detail::MakeTyped(name, std::forward<F>(f));
      Register(name, fn, schema, std::forward<Extra>(extra)...);
    }
    return *this;
  }
  template <typename F, typename... Extra>
  GlobalDef& def_packed(const char* name, F f, Extra&&... extra) {
    Register(name, Function::FromPacked(std::move(f)), ffi::detail::SchemaOfKey("ffi.Function"),
             std::forward<Extra>(extra)...);
    return *this;
  }
  template <typename F, typename... Extra>
  GlobalDef& def_method(const char* name, F&& f, Extra&&... extra) {
    return def(name, std::forward<F>(f), std::forward<Extra>(extra)...);
  }

 private:
  template <typename F, typename Specs, typename... Extra>
  static void DefWithArgs(const char* name, F&& f, const Specs& specs, const Extra&... extra) {
    auto wrapped = detail::WrapMethod(std::forward<F>(f));
    using W = std::decay_t<decltype(wrapped)>;
    static_assert(ffi::detail::CheckArgTuple<ffi::detail::FunctionInfo<W>>(
                      static_cast<const Specs*>(nullptr)),
                  "see the errors above");
    Function fn = Function::FromPacked(
        [w = std::move(wrapped), specs, n = std::string(name)](PackedArgs args, Any* result) {
          ffi::detail::CallTypedWithDefaults(w, n.c_str(), specs, args.raw(), args.size(),
                                             reinterpret_cast<TVMFFIAny*>(result));
        });
    RegisterWithMembers(name, fn, ffi::detail::CallableSchema<W>::Get(),
                        ffi::detail::ArgsMetadataJSON<ffi::detail::FunctionInfo<W>>(specs),
                        extra...);
  }
  template <typename... Extra>
  static void Register(const char* name, const Function& fn, const std::string& schema,
                       Extra&&... extra) {
    RegisterWithMembers(name, fn, schema, std::string(), std::forward<Extra>(extra)...);
  }
  /*! \brief Registers with `members` ("key": value JSON, or empty) added to the metadata. */
  template <typename... Extra>
  static void RegisterWithMembers(const char* name, const Function& fn, const std::string& schema,
                                  const std::string& members, Extra&&... extra) {
    MethodInfoBuilder info(name, schema);
    (info.Apply(std::forward<Extra>(extra)), ...);
    if (!members.empty()) info.AddMembers(members);
    info.Finish(AnyView(fn));
    FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobalFromMethodInfo(&info.info, 0));
  }
};

/*!
 * \brief Registers the reflection of object type `Class` (which declares its type with
 * TVM_FFI_DECLARE_OBJECT_INFO): fields, methods, static methods and constructors. Constructing
 * it registers the type's metadata (size, creator, doc from a string extra); when it goes out of
 * scope it also registers the standard attributes: `__ffi_new__` (an empty object), `__ffi_init__`
 * (when no `init<...>` was given and the runtime provides `ffi._RegisterFFIInit`),
 * `__ffi_shallow_copy__` (for copyable classes) and `__ffi_type_final__`.
 */
template <typename Class>
class ObjectDef {
 public:
  template <typename... Extra>
  explicit ObjectDef(Extra&&... extra)
      : type_index_(Class::_GetOrAllocRuntimeTypeIndex()), type_key_(Class::_type_key) {
    static_assert(std::is_base_of_v<Object, Class>, "ObjectDef<T>: T must derive from Object");
    TVMFFITypeMetadata metadata{};
    metadata.total_size = static_cast<int32_t>(sizeof(Class));
    metadata.structural_eq_hash_kind = Class::_type_s_eq_hash_kind;
    if constexpr (std::is_default_constructible_v<Class> ||
                  std::is_constructible_v<Class, UnsafeInit>) {
      metadata.creator = detail::ObjectCreator<Class>;
    }
    (ApplyTypeExtra(&metadata, extra), ...);
    FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMetadata(type_index_, &metadata));
  }
  ObjectDef(const ObjectDef&) = delete;
  ObjectDef(ObjectDef&&) = delete;
  ObjectDef& operator=(const ObjectDef&) = delete;

  ~ObjectDef() noexcept(false) {
    // A registration that threw is already failing; adding more would terminate the process.
    if (std::uncaught_exceptions() > uncaught_) return;
    if constexpr (std::is_copy_constructible_v<Class>) {
      RegisterAttrOnce(type_attr::kShallowCopy.name,
                       Function::FromTyped(
                           [](const Class* self) { return ObjectRef(make_object<Class>(*self)); },
                           std::string(type_key_) + "." + type_attr::kShallowCopy.name));
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index_);
    if (info->metadata != nullptr && info->metadata->creator != nullptr) {
      TVMFFIObjectCreator creator = info->metadata->creator;
      RegisterAttrOnce(
          type_attr::kNew.name,
          Function::FromTyped(
              [creator]() {
                TVMFFIObjectHandle handle = nullptr;
                FFI_CHECK_SAFE_CALL(creator(&handle));
                return ffi::detail::ObjectUnsafe::RefFromOwnedHeader<ObjectRef>(handle);
              },
              std::string(type_key_) + "." + type_attr::kNew.name));
      if (!has_init_) {
        // The runtime may derive a keyword constructor from the fields (the reference's does).
        if (Optional<Function> make_init = Function::GetGlobal("ffi._RegisterFFIInit")) {
          (*make_init)(type_index_);
        }
      }
    }
    RegisterAttrOnce(type_attr::kTypeFinal.name, Class::_type_final);
  }

  /*! \brief A read-only field; extras: a doc string, default_value, Metadata, other traits. */
  template <typename T, typename Base, typename... Extra>
  ObjectDef& def_ro(const char* name, T Base::*field, Extra&&... extra) {
    RegisterField(name, field, false, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A writable field (the class must set `_type_mutable = true`). */
  template <typename T, typename Base, typename... Extra>
  ObjectDef& def_rw(const char* name, T Base::*field, Extra&&... extra) {
    static_assert(Class::_type_mutable, "def_rw needs a class with _type_mutable = true");
    RegisterField(name, field, true, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A method: a member function pointer, or a callable taking the object first. */
  template <typename F, typename... Extra>
  ObjectDef& def(const char* name, F&& f, Extra&&... extra) {
    RegisterMethod(name, false, std::forward<F>(f), std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A static method (no object argument). */
  template <typename F, typename... Extra>
  ObjectDef& def_static(const char* name, F&& f, Extra&&... extra) {
    RegisterMethod(name, true, std::forward<F>(f), std::forward<Extra>(extra)...);
    return *this;
  }
  /*!
   * \brief A constructor `Class(Args...)`, registered as the static method `__ffi_init__` and as
   * the type attribute of that name.
   */
  template <typename... Args, typename... Extra>
  ObjectDef& def(init<Args...>, Extra&&... extra) {
    has_init_ = true;
    RegisterMethod(type_attr::kInit.name, true, &init<Args...>::template Make<Class>,
                   std::forward<Extra>(extra)...);
    detail::RegisterTypeAttr(type_index_, type_attr::kInit.name,
                             AnyView::FromRaw(GetInitMethod()->method));
    return *this;
  }
  /*!
   * \brief Registers `__ffi_convert__`: converts a value to `TSelf` (this type's reference type)
   * as a function argument would be, a TypeError naming both types otherwise. Python's type
   * converters (dataclass fields, annotated parameters) use it for values that are not already
   * of the type.
   */
  template <typename TSelf>
  ObjectDef& def_convert() {
    detail::CheckConvertTarget<TSelf, Class>();
    return def_type_attr(type_attr::kConvert.name, &detail::ConvertToRef<TSelf>);
  }
  /*! \brief A type attribute of this type (a value, or a callable made a Function). */
  template <typename V>
  ObjectDef& def_type_attr(const char* name, V&& value) {
    TypeAttrValue(name, std::forward<V>(value));
    return *this;
  }

 protected:
  // For definers built on this one (reflection/overload.h).
  /*! \brief The registered type's index. */
  int32_t type_index() const { return type_index_; }
  /*! \brief The registered type's key. */
  const char* type_key() const { return type_key_; }
  /*! \brief Records that a constructor was given (no `__ffi_init__` is derived from fields). */
  void set_has_init() { has_init_ = true; }
  /*! \brief Registers the method record `name` calling `fn`, of type schema `schema`. */
  template <typename... Extra>
  void PublishMethod(const char* name, bool is_static, const Function& fn,
                     const std::string& schema, Extra&&... extra) {
    MethodInfoBuilder info(name, schema);
    info.info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
    (info.Apply(std::forward<Extra>(extra)), ...);
    info.Finish(AnyView(fn));
    FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMethod(type_index_, &info.info));
  }

 private:
  template <typename V>
  void TypeAttrValue(const char* name, V&& value) {
    if constexpr (std::is_convertible_v<V&&, AnyView>) {
      detail::RegisterTypeAttr(type_index_, name, AnyView(value));
    } else {
      auto made = detail::MakeTyped(std::string(type_key_) + "." + name, std::forward<V>(value));
      detail::RegisterTypeAttr(type_index_, name, AnyView(made.first));
    }
  }
  void RegisterAttrOnce(const char* name, AnyView value) {
    if (!detail::HasTypeAttr(type_index_, name)) {
      detail::RegisterTypeAttr(type_index_, name, value);
    }
  }
  const TVMFFIMethodInfo* GetInitMethod() const {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index_);
    for (int32_t i = 0; i < info->num_methods; ++i) {
      if (ffi::detail::ByteView(info->methods[i].name) == type_attr::kInit.name) {
        return &info->methods[i];
      }
    }
    FFI_THROW(InternalError) << "ObjectDef: " << type_key_ << " has no " << type_attr::kInit.name;
  }
  template <typename E>
  void ApplyTypeExtra(TVMFFITypeMetadata* metadata, const E& extra) {
    if constexpr (std::is_convertible_v<const E&, const char*>) {
      metadata->doc = AsByteArray(extra);
    } else if constexpr (std::is_same_v<E, init<>>) {
      if (!extra.included()) has_init_ = true;  // init(false): no generated constructor.
    }
  }

  template <typename T, typename Base, typename... Extra>
  void RegisterField(const char* name, T Base::*field, bool writable, Extra&&... extra) {
    static_assert(std::is_base_of_v<Base, Class>, "the field must be a member of the class");
    int64_t offset = GetFieldByteOffsetToObject<Class, T>(field);
    FieldInfoBuilder info(name, ffi::detail::TypeSchema<T>::v());
    info.info.field_static_type_index = TypeToFieldStaticTypeIndex<T>::value;
    info.info.offset = offset;
    info.info.size = static_cast<int64_t>(sizeof(T));
    info.info.alignment = static_cast<int64_t>(alignof(T));
    info.info.flags = writable ? kTVMFFIFieldFlagBitMaskWritable : 0;
    info.info.getter = detail::FieldGetter<T>;
    info.info.setter = reinterpret_cast<void*>(&detail::FieldSetter<T>);
    (info.Apply(std::forward<Extra>(extra)), ...);
    info.Finish();
    FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterField(type_index_, &info.info));
  }

  template <typename F, typename... Extra>
  void RegisterMethod(const char* name, bool is_static, F&& f, Extra&&... extra) {
    auto [fn, schema] = detail::MakeTyped(std::string(type_key_) + "." + name, std::forward<F>(f));
    PublishMethod(name, is_static, fn, schema, std::forward<Extra>(extra)...);
  }

  int32_t type_index_;
  const char* type_key_;
  bool has_init_ = false;
  int uncaught_ = std::uncaught_exceptions();
};

/*!
 * \brief Registers type attributes of `Class`: `.def(name, value)` stores a value (or a callable,
 * made a Function) in column `name` at the type's index; `.attr(name, value)` stores a value.
 * Registering an attribute twice for one type is a ValueError.
 */
template <typename Class, typename = std::enable_if_t<std::is_base_of_v<Object, Class>>>
class TypeAttrDef {
 public:
  TypeAttrDef() : type_index_(Class::_GetOrAllocRuntimeTypeIndex()) {}

  template <typename V>
  TypeAttrDef& def(const char* name, V&& value) {
    if constexpr (std::is_convertible_v<V&&, AnyView>) {
      detail::RegisterTypeAttr(type_index_, name, AnyView(value));
    } else {
      auto made =
          detail::MakeTyped(std::string(Class::_type_key) + "." + name, std::forward<V>(value));
      detail::RegisterTypeAttr(type_index_, name, AnyView(made.first));
    }
    return *this;
  }
  /*! \brief Registers `__ffi_convert__` for `TSelf`, as ObjectDef::def_convert does. */
  template <typename TSelf>
  TypeAttrDef& def_convert() {
    detail::CheckConvertTarget<TSelf, Class>();
    return def(type_attr::kConvert.name, &detail::ConvertToRef<TSelf>);
  }
  template <typename V>
  TypeAttrDef& attr(const char* name, V value) {
    detail::RegisterTypeAttr(type_index_, name, AnyView(value));
    return *this;
  }
  /*! \brief Stores `value` as the key's value type. */
  template <typename T, typename V>
  TypeAttrDef& attr(AttrKey<T> key, V&& value) {
    T typed(std::forward<V>(value));
    detail::RegisterTypeAttr(type_index_, key.name, AnyView(typed));
    return *this;
  }
  /*!
   * \brief Stores native hook `Fn` under a key whose values are hooks
   * (reflection::NativeFunctionView): `.native_fn_attr<&MyHash>(type_attr::kAnyHash)`.
   */
  template <auto Fn, typename T>
  TypeAttrDef& native_fn_attr(AttrKey<T> key) {
    return attr(key, T::template FromNative<Fn>());
  }

 private:
  int32_t type_index_;
};

/*! \brief Creates the type attribute column `name` if it does not exist yet (all None). */
inline void EnsureTypeAttrColumn(std::string_view name) {
  detail::RegisterTypeAttr(kTVMFFINone, name, AnyView());
}
template <typename T>
void EnsureTypeAttrColumn(AttrKey<T> key) {
  EnsureTypeAttrColumn(key.name);
}

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_REGISTRY_H_
