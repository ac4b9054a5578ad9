// Keyword construction of reflected objects, the reference runtime's KWARGS protocol:
// ffi.GetKwargsObject returns one sentinel object; a call packed as
// (pos0, pos1, ..., KWARGS, key0, value0, key1, value1, ...) passes the values after the sentinel
// by name. ffi._RegisterFFIInit(type_index) gives a type without an explicit constructor the
// `__ffi_init__` type attribute that makes an object from its reflected fields this way (ObjectDef
// calls it when a type registers no init<...>).
#include <ffi/any.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/creator.h>
#include <ffi/reflection/registry.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The KWARGS sentinel: one plain object for the process, never freed. */
const ObjectRef& KwargsObject() {
  static const ObjectRef* sentinel = new ObjectRef(make_object<Object>());
  return *sentinel;
}

/*! \brief A field of the generated constructor, decided once from its flags. */
struct InitField {
  const TVMFFIFieldInfo* info;
  std::string_view name;
  bool in_init;      // not init(false)
  bool kw_only;      // kw_only(true): never positional
  bool has_default;  // default_value / default_factory
};

/*!
 * \brief The generated `__ffi_init__` of one type: the fields (ancestors' first), and the
 * positional order: the positional fields without defaults, then those with defaults, each in
 * declaration order, so that required arguments come first as in a Python signature.
 */
class FieldInit {
 public:
  explicit FieldInit(const TVMFFITypeInfo* info)
      : info_(info), type_key_(detail::ByteView(info->type_key)) {
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
      fields_.push_back({f, detail::ByteView(f->name), !(f->flags & kTVMFFIFieldFlagBitMaskInitOff),
                         (f->flags & kTVMFFIFieldFlagBitMaskKwOnly) != 0,
                         (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) != 0});
    });
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].in_init && !fields_[i].kw_only) positional_.push_back(i);
    }
    std::stable_partition(positional_.begin(), positional_.end(),
                          [&](size_t i) { return !fields_[i].has_default; });
  }

  /*! \brief A new object from `args` (see the file comment); TypeError for a bad call. */
  ObjectRef Make(PackedArgs args) const {
    int32_t kwargs_at = args.size();
    for (int32_t i = 0; i < args.size(); ++i) {
      if (args[i].type_index() >= kTVMFFIStaticObjectBegin &&
          args[i].raw()->v_obj == detail::ObjectUnsafe::HeaderOf(KwargsObject())) {
        kwargs_at = i;
        break;
      }
    }
    if (static_cast<size_t>(kwargs_at) > positional_.size()) {
      FFI_THROW(TypeError) << type_key_ << ".__ffi_init__() takes at most " << positional_.size()
                           << " positional argument(s), but " << kwargs_at << " were given";
    }
    std::vector<const TVMFFIAny*> given(fields_.size(), nullptr);
    for (int32_t i = 0; i < kwargs_at; ++i) given[positional_[i]] = args[i].raw();
    if (kwargs_at < args.size() && (args.size() - kwargs_at - 1) % 2 != 0) {
      FFI_THROW(TypeError) << type_key_
                           << ".__ffi_init__() KWARGS requires an even number of key-value "
                              "arguments";
    }
    for (int32_t i = kwargs_at + 1; i + 1 < args.size(); i += 2) {
      std::optional<String> key = args[i].try_cast<String>();
      if (!key.has_value()) {
        FFI_THROW(TypeError) << type_key_ << ".__ffi_init__() keywords must be strings, got `"
                             << args[i].GetTypeName() << "`";
      }
      size_t k = Find(key->view());
      if (k == fields_.size()) {
        FFI_THROW(TypeError) << type_key_ << ".__ffi_init__() got an unexpected keyword argument '"
                             << key->view() << "'";
      }
      if (given[k] != nullptr) {
        FFI_THROW(TypeError) << type_key_ << ".__ffi_init__() got multiple values for argument '"
                             << key->view() << "'";
      }
      given[k] = args[i + 1].raw();
    }
    // Every required field is checked before the object is made, so a bad call makes nothing.
    for (size_t k = 0; k < fields_.size(); ++k) {
      const InitField& f = fields_[k];
      if (given[k] == nullptr && f.in_init && !f.has_default) {
        FFI_THROW(TypeError) << type_key_ << ".__ffi_init__() missing required "
                             << (f.kw_only ? "keyword-only argument" : "argument") << ": '"
                             << f.name << "'";
      }
    }
    ObjectPtr<Object> obj = CreateEmptyObject(info_);
    char* base = reinterpret_cast<char*>(obj.get());
    for (size_t k = 0; k < fields_.size(); ++k) {
      const InitField& f = fields_[k];
      void* addr = base + f.info->offset;
      if (given[k] != nullptr) {
        if (reflection::CallFieldSetter(f.info, addr, given[k]) != 0) Rethrow("field", f.name);
      } else if (f.has_default) {
        reflection::SetFieldToDefault(f.info, addr);
      }
      // An init(false) field without a default keeps what the creator gave it.
    }
    return ObjectRef(std::move(obj));
  }

 private:
  /*! \brief The index of the constructor's field `name`, or fields_.size(). */
  size_t Find(std::string_view name) const {
    for (size_t k = 0; k < fields_.size(); ++k) {
      if (fields_[k].in_init && fields_[k].name == name) return k;
    }
    return fields_.size();
  }
  /*! \brief Rethrows the setter's raised error, naming the field it was for. */
  [[noreturn]] void Rethrow(const char* what, std::string_view name) const {
    TVMFFIObjectHandle raised = nullptr;
    TVMFFIErrorMoveFromRaised(&raised);
    if (raised == nullptr) {
      FFI_THROW(InternalError) << type_key_ << ".__ffi_init__(): setting " << what << " '" << name
                               << "' failed without an error";
    }
    Error err = detail::ObjectUnsafe::RefFromOwnedHeader<Error>(raised);
    // The setter's message goes below, indented, so nested failures (an element of a list, a
    // conversion inside a conversion) read as a tree.
    std::string message =
        std::string(type_key_) + ".__ffi_init__() " + what + " '" + std::string(name) + "':\n  ";
    for (char c : err.message()) {
      message.push_back(c);
      if (c == '\n') message += "  ";
    }
    throw Error(err.kind(), message, err.backtrace());
  }

  const TVMFFITypeInfo* info_;
  std::string_view type_key_;
  std::vector<InitField> fields_;
  std::vector<size_t> positional_;
};

/*! \brief ffi._RegisterFFIInit(type_index): registers the generated `__ffi_init__`. */
void RegisterFFIInit(int64_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(static_cast<int32_t>(type_index));
  if (info == nullptr) FFI_THROW(IndexError) << "no type is registered at index " << type_index;
  // A type registered twice (its library loaded again) keeps the constructor it has.
  if (reflection::detail::HasTypeAttr(info->type_index, type_attr::kInit.name)) return;
  auto init = std::make_shared<const FieldInit>(info);
  Function fn =
      Function::FromPacked([init](PackedArgs args, Any* result) { *result = init->Make(args); });
  reflection::detail::RegisterTypeAttr(info->type_index, type_attr::kInit.name, AnyView(fn));
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def(
          "ffi.GetKwargsObject", []() { return KwargsObject(); },
          "The KWARGS sentinel: arguments after it in a call are keyword/value pairs.")
      .def("ffi._RegisterFFIInit", RegisterFFIInit,
           "Registers a type's __ffi_init__ made from its reflected fields (keywords through the "
           "KWARGS sentinel).");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
