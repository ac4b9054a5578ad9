// The reference runtime's exported C++ ABI for modules: ModuleObj's vtable and typeinfo (which
// clients' module classes derive from), its out-of-line methods, Module::LoadFromFile and
// Module::VisitContextSymbols, under the reference's mangled names. The module logic itself is
// the runtime's (module.cc, through bridge.h), shared with the standard global functions; the
// inline virtual functions below are the defaults the reference's header gives subclasses.
#include <string>

#include "bridge.h"
#include "reference_types.h"

namespace tvm {
namespace ffi {

/*!
 * \brief The reference's ModuleObj: the vtable pointer, the object header, the imports and the
 * import lookup cache (runtime/module_abi.h describes the same class in the runtime's types).
 */
class FFI_CXX_ABI_EXPORT ModuleObj : public Object {
 public:
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const { return 0b000; }
  virtual Optional<Function> GetFunction(const String& name) = 0;
  virtual bool ImplementsFunction(const String& name) { return GetFunction(name).defined(); }
  virtual Optional<String> GetFunctionDoc(const String& /*name*/) { return Optional<String>(); }
  virtual Optional<String> GetFunctionMetadata(const String& /*name*/) {
    return Optional<String>();
  }
  virtual void WriteToFile(const String& /*file_name*/, const String& /*format*/) const {
    cxx_abi::Throw("RuntimeError",
                   std::string("Module[") + kind() + "] does not support WriteToFile");
  }
  virtual Array<String> GetWriteFormats() const;
  virtual Bytes SaveToBytes() const {
    cxx_abi::Throw("RuntimeError",
                   std::string("Module[") + kind() + "] does not support SaveToBytes");
  }
  virtual String InspectSource(const String& /*format*/) const { return String(); }
  virtual void ImportModule(const Module& other);
  virtual void ClearImports();

  Optional<Function> GetFunction(const String& name, bool query_imports);
  bool ImplementsFunction(const String& name, bool query_imports);
  Optional<String> GetFunctionDoc(const String& name, bool query_imports);
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports);

  /*! \brief The module whose object header is `header` (the vtable pointer comes first). */
  static ModuleObj* FromHeader(TVMFFIObject* header) {
    return reinterpret_cast<ModuleObj*>(reinterpret_cast<char*>(header) - sizeof(void*));
  }
  /*!
   * \brief The object header of `mod`, found by the layout alone: the non-virtual methods run on
   * this runtime's modules too (clients call them on any module), whose class is not this one, so
   * they must not touch a member.
   */
  static TVMFFIObject* HeaderOf(ModuleObj* mod) {
    return reinterpret_cast<TVMFFIObject*>(reinterpret_cast<char*>(mod) + sizeof(void*));
  }

 protected:
  Array<Any> imports_;

 private:
  Map<String, Function> import_lookup_cache_;
};

static_assert(sizeof(ModuleObj) == sizeof(void*) + sizeof(TVMFFIObject) + 2 * sizeof(void*),
              "ModuleObj: vtable pointer, object header, imports, import lookup cache");

namespace {

/*! \brief Throws the raised error when a bridge call failed. */
void Check(int code) {
  if (code != 0) cxx_abi::ThrowRaised();
}

/*! \brief The String argument a bridge call passes as its TVMFFIAny (the same layout). */
const String& StringArg(const TVMFFIAny* value) { return *reinterpret_cast<const String*>(value); }

/*!
 * \brief Runs `body` on the client's module `mod` as a bridge call: 0, or -1 with the Error the
 * module threw raised. Other exceptions pass through to the runtime's caller, which runs inside a
 * C ABI call of its own.
 */
template <typename F>
int CallClientModule(TVMFFIObject* mod, F body) {
  try {
    body(ModuleObj::FromHeader(mod));
    return 0;
  } catch (const Error& error) {
    TVMFFIErrorSetRaised(error.get());
    return -1;
  }
}

}  // namespace

// The key function (first out-of-line virtual): the vtable and typeinfo are emitted here.
void ModuleObj::ImportModule(const Module& other) {
  Check(runtime::ModuleBridgeImport(HeaderOf(this), other.get()));
}

void ModuleObj::ClearImports() { Check(runtime::ModuleBridgeClearImports(HeaderOf(this))); }

Array<String> ModuleObj::GetWriteFormats() const {
  static TVMFFIObject* cache = nullptr;
  TVMFFIAny empty = cxx_abi::CallGlobal(&cache, "ffi.Array", nullptr, 0);
  return Array<String>(cxx_abi::Ref::Own(empty.v_obj));
}

Optional<Function> ModuleObj::GetFunction(const String& name, bool query_imports) {
  TVMFFIAny out = cxx_abi::NoneAny();
  Check(runtime::ModuleBridgeGetFunction(HeaderOf(this), &name.raw(), query_imports, &out));
  return Optional<Function>(
      cxx_abi::Ref::Own(out.type_index == kTVMFFIFunction ? out.v_obj : nullptr));
}

bool ModuleObj::ImplementsFunction(const String& name, bool query_imports) {
  int out = 0;
  Check(runtime::ModuleBridgeImplementsFunction(HeaderOf(this), &name.raw(), query_imports, &out));
  return out != 0;
}

Optional<String> ModuleObj::GetFunctionDoc(const String& name, bool query_imports) {
  TVMFFIAny out = cxx_abi::NoneAny();
  Check(runtime::ModuleBridgeGetFunctionDoc(HeaderOf(this), &name.raw(), query_imports, &out));
  return Optional<String>(cxx_abi::Cell::Own(out));
}

Optional<String> ModuleObj::GetFunctionMetadata(const String& name, bool query_imports) {
  TVMFFIAny out = cxx_abi::NoneAny();
  Check(runtime::ModuleBridgeGetFunctionMetadata(HeaderOf(this), &name.raw(), query_imports, &out));
  return Optional<String>(cxx_abi::Cell::Own(out));
}

Module Module::LoadFromFile(const String& file_name) {
  static TVMFFIObject* cache = nullptr;
  TVMFFIAny out = cxx_abi::CallGlobal(&cache, "ffi.ModuleLoadFromFile", &file_name.raw(), 1);
  Module mod;
  static_cast<cxx_abi::Ref&>(mod) = cxx_abi::Ref::Own(out.v_obj);
  return mod;
}

void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>& callback) {
  struct Visit {
    const Function* callback;
    bool failed = false;
    static void Call(void* context, const char* name, void* symbol) {
      Visit* self = static_cast<Visit*>(context);
      if (self->failed) return;
      cxx_abi::Cell name_value = cxx_abi::Cell::Own(cxx_abi::MakeString(name));
      TVMFFIAny args[2] = {name_value.raw(), cxx_abi::NoneAny()};
      args[1].type_index = kTVMFFIOpaquePtr;
      args[1].v_ptr = symbol;
      TVMFFIAny result = cxx_abi::NoneAny();
      if (TVMFFIFunctionCall(self->callback->get(), args, 2, &result) != 0) {
        self->failed = true;  // the error stays raised for the caller below
        return;
      }
      cxx_abi::Cell::Own(result);  // released
    }
  };
  Visit visit{&callback.packed};
  Check(runtime::ModuleBridgeVisitContextSymbols(&Visit::Call, &visit));
  if (visit.failed) cxx_abi::ThrowRaised();
}

namespace runtime {

int ClientModuleKind(TVMFFIObject* mod, const char** out) {
  return CallClientModule(mod, [&](ModuleObj* m) { *out = m->kind(); });
}

int ClientModuleGetPropertyMask(TVMFFIObject* mod, int* out) {
  return CallClientModule(mod, [&](ModuleObj* m) { *out = m->GetPropertyMask(); });
}

int ClientModuleGetFunction(TVMFFIObject* mod, const TVMFFIAny* name, TVMFFIObject** out) {
  return CallClientModule(mod,
                          [&](ModuleObj* m) { *out = m->GetFunction(StringArg(name)).Release(); });
}

int ClientModuleImplementsFunction(TVMFFIObject* mod, const TVMFFIAny* name, int* out) {
  return CallClientModule(mod,
                          [&](ModuleObj* m) { *out = m->ImplementsFunction(StringArg(name)); });
}

int ClientModuleGetFunctionDoc(TVMFFIObject* mod, const TVMFFIAny* name, TVMFFIAny* out) {
  return CallClientModule(
      mod, [&](ModuleObj* m) { *out = m->GetFunctionDoc(StringArg(name)).Release(); });
}

int ClientModuleGetFunctionMetadata(TVMFFIObject* mod, const TVMFFIAny* name, TVMFFIAny* out) {
  return CallClientModule(
      mod, [&](ModuleObj* m) { *out = m->GetFunctionMetadata(StringArg(name)).Release(); });
}

int ClientModuleWriteToFile(TVMFFIObject* mod, const TVMFFIAny* file_name,
                            const TVMFFIAny* format) {
  return CallClientModule(
      mod, [&](ModuleObj* m) { m->WriteToFile(StringArg(file_name), StringArg(format)); });
}

int ClientModuleGetWriteFormats(TVMFFIObject* mod, TVMFFIObject** out) {
  return CallClientModule(mod, [&](ModuleObj* m) { *out = m->GetWriteFormats().Release(); });
}

int ClientModuleSaveToBytes(TVMFFIObject* mod, TVMFFIAny* out) {
  return CallClientModule(mod, [&](ModuleObj* m) { *out = m->SaveToBytes().Release(); });
}

int ClientModuleInspectSource(TVMFFIObject* mod, const TVMFFIAny* format, TVMFFIAny* out) {
  return CallClientModule(
      mod, [&](ModuleObj* m) { *out = m->InspectSource(StringArg(format)).Release(); });
}

int ClientModuleImportModule(TVMFFIObject* mod, TVMFFIObject* other) {
  return CallClientModule(mod, [&](ModuleObj* m) {
    cxx_abi::IncRef(other);  // borrowed by the caller; `imported` holds its own reference
    Module imported;
    static_cast<cxx_abi::Ref&>(imported) = cxx_abi::Ref::Own(other);
    m->ImportModule(imported);
  });
}

int ClientModuleClearImports(TVMFFIObject* mod) {
  return CallClientModule(mod, [&](ModuleObj* m) { m->ClearImports(); });
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
