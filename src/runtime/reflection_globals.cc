// The reference runtime's global functions that work on reflection records, under its names:
// ffi.MakeObjectFromPackedArgs (an object from its type key and field values) and
// ffi.GetRegisteredTypeKeys (every registered type key, as an Array).
#include <ffi/any.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>

#include <string>
#include <string_view>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The size of the runtime's type table (object.cc); indices are below it. */
constexpr int32_t kTypeTableSize = 1 << 14;

/*! \brief The registered type `key`; RuntimeError (the reference's kind) when there is none. */
const TVMFFITypeInfo* TypeInfoOrThrow(std::string_view key) {
  TVMFFIByteArray bytes{key.data(), key.size()};
  int32_t index = -1;
  if (TVMFFITypeKeyToIndex(&bytes, &index) != 0) {
    TVMFFIObjectHandle raised = nullptr;
    TVMFFIErrorMoveFromRaised(&raised);  // Replaced by the error below.
    if (raised != nullptr) TVMFFIObjectDecRef(raised);
    FFI_THROW(RuntimeError) << "Cannot find type `" << key << "`";
  }
  return TVMFFIGetTypeInfo(index);
}

/*! \brief An empty object of the type: its creator, else its `__ffi_new__` attribute. */
ObjectRef CreateEmpty(const TVMFFITypeInfo* info) {
  std::string_view key = detail::ByteView(info->type_key);
  if (info->metadata != nullptr && info->metadata->creator != nullptr) {
    TVMFFIObjectHandle handle = nullptr;
    FFI_CHECK_SAFE_CALL(info->metadata->creator(&handle));
    return detail::ObjectUnsafe::RefFromOwnedHeader<ObjectRef>(handle);
  }
  TVMFFIByteArray name = reflection::AsByteArray(type_attr::kNew.name);
  if (const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name)) {
    int32_t offset = info->type_index - column->begin_index;
    if (offset >= 0 && offset < column->size &&
        column->data[offset].type_index == kTVMFFIFunction) {
      return AnyView::FromRaw(column->data[offset]).cast<Function>()().cast<ObjectRef>();
    }
  }
  FFI_THROW(RuntimeError) << "Type `" << key << "` does not support reflection creation"
                          << " (no native creator or __ffi_new__ type attr)";
}

/*!
 * \brief (type_key, name0, value0, name1, value1, ...): a new object of the type with the named
 * fields set, the others set to their defaults. A field without a default must be given; a name
 * that is no field of the type is refused (both TypeError, the object discarded).
 */
void MakeObjectFromPackedArgs(PackedArgs args, Any* result) {
  if (args.size() % 2 != 1) {
    FFI_THROW(RuntimeError) << "MakeObjectFromPackedArgs takes a type key followed by name/value "
                               "pairs, got "
                            << args.size() << " arguments";
  }
  std::string type_key = args[0].cast<std::string>();
  const TVMFFITypeInfo* info = TypeInfoOrThrow(type_key);
  // The names first, so that a bad call fails before anything is made.
  std::vector<std::string> names;
  for (int32_t i = 1; i < args.size(); i += 2) {
    std::optional<std::string> name = args[i].try_cast<std::string>();
    if (!name.has_value()) {
      FFI_THROW(TypeError) << "MakeObjectFromPackedArgs: argument #" << i
                           << " must be a field name (str), got `" << args[i].GetTypeName() << "`";
    }
    bool found = reflection::ForEachFieldInfoWithEarlyStop(
        info, [&](const TVMFFIFieldInfo* f) { return detail::ByteView(f->name) == *name; });
    if (!found) {
      FFI_THROW(TypeError) << "Type `" << type_key << "` does not have field `" << *name << "`";
    }
    names.push_back(*std::move(name));
  }
  ObjectRef obj = CreateEmpty(info);
  char* base = const_cast<char*>(reinterpret_cast<const char*>(obj.get()));
  reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
    std::string_view field_name = detail::ByteView(field->name);
    void* addr = base + field->offset;
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] == field_name) {
        FFI_CHECK_SAFE_CALL(
            reflection::CallFieldSetter(field, addr, args[static_cast<int32_t>(2 * k + 2)].raw()));
        return;
      }
    }
    if (field->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
      reflection::SetFieldToDefault(field, addr);
      return;
    }
    FFI_THROW(TypeError) << "Required field `" << field_name << "` not set in type `" << type_key
                         << "`";
  });
  *result = std::move(obj);
}

/*! \brief Every registered type key in type index order, as an Array (through `ffi.Array`). */
void GetRegisteredTypeKeys(PackedArgs, Any* result) {
  std::vector<String> keys;
  for (int32_t i = 0; i < kTypeTableSize; ++i) {
    if (const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(i)) {
      keys.emplace_back(detail::ByteView(info->type_key));
    }
  }
  // The runtime's Array constructor builds the result, so that it is the Array type every
  // library and host reads.
  Optional<Function> make_array = Function::GetGlobal("ffi.Array");
  if (!make_array.has_value()) {
    FFI_THROW(RuntimeError) << "ffi.GetRegisteredTypeKeys needs the global function ffi.Array";
  }
  std::vector<AnyView> views(keys.begin(), keys.end());
  views.emplace_back();
  make_array->CallPacked(PackedArgs(views.data(), static_cast<int32_t>(keys.size())), result);
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def_packed("ffi.MakeObjectFromPackedArgs", MakeObjectFromPackedArgs,
                  "Makes an object from its type key and field name/value pairs.")
      .def_packed("ffi.GetRegisteredTypeKeys", GetRegisteredTypeKeys,
                  "Every registered type key, in type index order.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
