// The reference runtime's global functions that work on reflection records, under its names:
// ffi.MakeObjectFromPackedArgs (an object from its type key and field values) and
// ffi.GetRegisteredTypeKeys (every registered type key, as an Array).
#include <ffi/any.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/creator.h>
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

/*!
 * \brief (type, name0, value0, name1, value1, ...): a new object of the type (its key, or its type
 * index as clients built with the reference's headers pass it) with the named
 * fields set, the others set to their defaults. A field without a default must be given; a name
 * that is no field of the type is refused (both TypeError, the object discarded).
 */
void MakeObjectFromPackedArgs(PackedArgs args, Any* result) {
  if (args.size() % 2 != 1) {
    FFI_THROW(RuntimeError) << "MakeObjectFromPackedArgs takes a type key followed by name/value "
                               "pairs, got "
                            << args.size() << " arguments";
  }
  const TVMFFITypeInfo* info = nullptr;
  if (auto type_index = args[0].try_cast<int64_t>(); type_index.has_value()) {
    if (*type_index >= 0 && *type_index <= INT32_MAX) {
      info = TVMFFIGetTypeInfo(static_cast<int32_t>(*type_index));
    }
    if (info == nullptr) FFI_THROW(RuntimeError) << "Cannot find type index " << *type_index;
  } else {
    info = TypeInfoOrThrow(args[0].cast<std::string>());
  }
  std::vector<std::string> names;
  for (int32_t i = 1; i < args.size(); i += 2) {
    std::optional<std::string> name = args[i].try_cast<std::string>();
    if (!name.has_value()) {
      FFI_THROW(TypeError) << "MakeObjectFromPackedArgs: argument #" << i
                           << " must be a field name (str), got `" << args[i].GetTypeName() << "`";
    }
    names.push_back(*std::move(name));
  }
  ObjectPtr<Object> obj = CreateEmptyObject(info);
  size_t matched = reflection::detail::InitFields(info, obj.get(), [&](std::string_view name) {
    std::optional<Any> value;
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] == name) value = Any(args[static_cast<int32_t>(2 * k + 2)]);
    }
    return value;
  });
  if (matched != names.size()) {
    for (const std::string& name : names) reflection::detail::CheckIsField(info, name);
  }
  *result = ObjectRef(std::move(obj));
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
  make_array.value().CallPacked(PackedArgs(views.data(), static_cast<int32_t>(keys.size())),
                                result);
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
