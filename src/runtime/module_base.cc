// What every module has through the reference's ModuleObj shape (module_abi.h): imports and the
// lookups that search them, the base implementations of ImportModule and ClearImports, and the
// bridge through which cxx_abi/ serves the reference's out-of-line ModuleObj methods. Clients'
// modules and this runtime's are handled alike.
#include <ffi/function.h>
#include <ffi/reflection/registry.h>

#include <mutex>
#include <string>

#include "module_abi.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*!
 * \brief Guards changes to any module's imports. Lookups read a snapshot (the imports array is
 * copied on write, so a copy taken under the lock never changes).
 */
std::mutex& ImportsMutex() {
  static std::mutex* mutex = new std::mutex();
  return *mutex;
}

/*! \brief Calls `visit(import)` for each import of `mod` in order until it returns true. */
template <typename F>
bool AnyImport(ModuleView mod, F visit) {
  for (const Any& item : ModuleImports(mod)) {
    if (auto imported = item.as<Module>(); imported.has_value() && imported->defined()) {
      if (visit(ModuleView(*imported))) return true;
    }
  }
  return false;
}

/*! \brief Whether `mod` is `target` or imports it, directly or not. */
bool Reaches(ModuleView mod, ModuleView target) {
  if (mod == target) return true;
  return AnyImport(mod, [&](ModuleView imported) { return Reaches(imported, target); });
}

/*! \brief The first non-None result of `get(module)` over `mod`, then (if asked) its imports. */
template <typename F>
Any FirstString(ModuleView mod, bool query_imports, F get) {
  Any found = get(mod);
  if (found != nullptr || !query_imports) return found;
  AnyImport(mod, [&](ModuleView imported) {
    found = FirstString(imported, true, get);
    return found != nullptr;
  });
  return found;
}

/*! \brief Runs `body` as a C ABI call: 0, or -1 with the error raised. */
template <typename F>
int AsSafeCall(F body) {
  FFI_SAFE_CALL_BEGIN();
  body();
  FFI_SAFE_CALL_END();
}

const String& StringArg(const TVMFFIAny* name) { return *reinterpret_cast<const String*>(name); }

/*! \brief A bridge call of a by-name lookup (`lookup(mod, name, query_imports)`): its result,
 * owned, in `out`. */
template <typename Lookup>
int BridgeLookup(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports, TVMFFIAny* out,
                 Lookup lookup) {
  return AsSafeCall([&] {
    Any result = lookup(ModuleView(mod), StringArg(name), query_imports != 0);
    *out = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(result));
  });
}

/*! \brief The object header of the module `mod` holds; ValueError for None. */
TVMFFIObject* DefinedModuleHeader(const Module& mod) {
  if (!mod.defined()) FFI_THROW(ValueError) << "The module is None";
  return detail::ObjectUnsafe::Header(mod.get());
}

/*! \brief Throws the raised error when a call into a client's module failed. */
void CheckClientCall(int code) {
  if (code != 0) detail::ThrowRaised(code);
}

/*! \brief A String argument as the bridge passes it. */
const TVMFFIAny* RawArg(const String& value) { return reinterpret_cast<const TVMFFIAny*>(&value); }

/*! \brief Takes ownership of a value a call into a client's module returned. */
template <typename T>
T OwnedResult(TVMFFIAny raw) {
  return detail::AnyUnsafe::MoveTVMFFIAnyToAny(&raw).cast<T>();
}

}  // namespace

ModuleView::ModuleView(const Module& mod) : ModuleView(DefinedModuleHeader(mod)) {}

const char* ModuleView::kind() const {
  if (own_ != nullptr) return own_->kind();
  const char* out = nullptr;
  CheckClientCall(ClientModuleKind(header_, &out));
  return out;
}

int ModuleView::GetPropertyMask() const {
  if (own_ != nullptr) return own_->GetPropertyMask();
  int out = 0;
  CheckClientCall(ClientModuleGetPropertyMask(header_, &out));
  return out;
}

Optional<Function> ModuleView::GetFunction(const String& name) const {
  if (own_ != nullptr) return own_->GetFunction(name);
  TVMFFIObject* out = nullptr;
  CheckClientCall(ClientModuleGetFunction(header_, RawArg(name), &out));
  if (out == nullptr) return std::nullopt;
  return detail::ObjectUnsafe::RefFromOwnedHeader<Function>(out);
}

bool ModuleView::ImplementsFunction(const String& name) const {
  if (own_ != nullptr) return own_->ImplementsFunction(name);
  int out = 0;
  CheckClientCall(ClientModuleImplementsFunction(header_, RawArg(name), &out));
  return out != 0;
}

Any ModuleView::GetFunctionDoc(const String& name) const {
  if (own_ != nullptr) return own_->GetFunctionDoc(name);
  TVMFFIAny out{};
  CheckClientCall(ClientModuleGetFunctionDoc(header_, RawArg(name), &out));
  return OwnedResult<Any>(out);
}

Any ModuleView::GetFunctionMetadata(const String& name) const {
  if (own_ != nullptr) return own_->GetFunctionMetadata(name);
  TVMFFIAny out{};
  CheckClientCall(ClientModuleGetFunctionMetadata(header_, RawArg(name), &out));
  return OwnedResult<Any>(out);
}

void ModuleView::WriteToFile(const String& file_name, const String& format) const {
  if (own_ != nullptr) return own_->WriteToFile(file_name, format);
  CheckClientCall(ClientModuleWriteToFile(header_, RawArg(file_name), RawArg(format)));
}

Array<String> ModuleView::GetWriteFormats() const {
  if (own_ != nullptr) return own_->GetWriteFormats();
  TVMFFIObject* out = nullptr;
  CheckClientCall(ClientModuleGetWriteFormats(header_, &out));
  return detail::ObjectUnsafe::RefFromOwnedHeader<Array<String>>(out);
}

Bytes ModuleView::SaveToBytes() const {
  if (own_ != nullptr) return own_->SaveToBytes();
  TVMFFIAny out{};
  CheckClientCall(ClientModuleSaveToBytes(header_, &out));
  return OwnedResult<Bytes>(out);
}

String ModuleView::InspectSource(const String& format) const {
  if (own_ != nullptr) return own_->InspectSource(format);
  TVMFFIAny out{};
  CheckClientCall(ClientModuleInspectSource(header_, RawArg(format), &out));
  return OwnedResult<String>(out);
}

void ModuleView::ImportModule(const Module& other) const {
  if (own_ != nullptr) return own_->ImportModule(other);
  CheckClientCall(ClientModuleImportModule(header_, detail::ObjectUnsafe::Header(other.get())));
}

void ModuleView::ClearImports() const {
  if (own_ != nullptr) return own_->ClearImports();
  CheckClientCall(ClientModuleClearImports(header_));
}

void ModuleBase::ImportModule(const Module& other) {
  ModuleImport(ModuleView(detail::ObjectUnsafe::Header(this)), other);
}

void ModuleBase::ClearImports() {
  ModuleClearImports(ModuleView(detail::ObjectUnsafe::Header(this)));
}

Optional<Function> ModuleGetFunction(ModuleView mod, const String& name, bool query_imports) {
  Optional<Function> found = mod.GetFunction(name);
  if (found.has_value() || !query_imports) return found;
  AnyImport(mod, [&](ModuleView imported) {
    found = ModuleGetFunction(imported, name, true);
    return found.has_value();
  });
  return found;
}

bool ModuleImplementsFunction(ModuleView mod, const String& name, bool query_imports) {
  if (mod.ImplementsFunction(name)) return true;
  return query_imports && AnyImport(mod, [&](ModuleView imported) {
           return ModuleImplementsFunction(imported, name, true);
         });
}

Any ModuleGetFunctionDoc(ModuleView mod, const String& name, bool query_imports) {
  return FirstString(mod, query_imports, [&](ModuleView m) { return m.GetFunctionDoc(name); });
}

Any ModuleGetFunctionMetadata(ModuleView mod, const String& name, bool query_imports) {
  return FirstString(mod, query_imports, [&](ModuleView m) { return m.GetFunctionMetadata(name); });
}

Array<Any> ModuleImports(ModuleView mod) {
  std::lock_guard<std::mutex> lock(ImportsMutex());
  return mod.imports();
}

void ModuleImport(ModuleView mod, const Module& other) {
  ModuleView imported(other);
  // A cycle would make every lookup through the imports recurse forever.
  if (Reaches(imported, mod)) {
    // RuntimeError, as the reference raises it.
    FFI_THROW(RuntimeError) << "Cyclic dependency detected during import: a module of kind `"
                            << imported.kind() << "` cannot be imported into a module of kind `"
                            << mod.kind() << "` that it reaches through its own imports";
  }
  std::lock_guard<std::mutex> lock(ImportsMutex());
  Array<Any> imports = mod.imports();
  imports.push_back(other);
  mod.imports() = std::move(imports);
}

void ModuleClearImports(ModuleView mod) {
  std::lock_guard<std::mutex> lock(ImportsMutex());
  mod.imports() = Array<Any>();
}

TVMFFIObject* ModuleLookupFromImports(const ModuleView* mod, const String& name) {
  // Lookups run outside the lock (a module's GetFunction may look functions up itself); the first
  // function cached under a name is the one every caller gets.
  static std::mutex* mutex = new std::mutex();
  static Map<String, Function>* process_cache = new Map<String, Function>();
  Map<String, Function>& cache = mod != nullptr ? mod->import_lookup_cache() : *process_cache;
  auto cached = [&]() -> TVMFFIObject* {
    auto it = cache.find(name);
    return it == cache.end() ? nullptr : detail::ObjectUnsafe::Header((*it).second.get());
  };
  {
    std::lock_guard<std::mutex> lock(*mutex);
    if (TVMFFIObject* found = cached()) return found;
  }
  Optional<Function> found;
  if (mod != nullptr) {
    AnyImport(*mod, [&](ModuleView imported) {
      found = ModuleGetFunction(imported, name, true);
      return found.has_value();
    });
  }
  if (!found.has_value()) found = Function::GetGlobal(std::string_view(name.data(), name.size()));
  if (!found.has_value()) {
    // RuntimeError and the reference's words: generated code may report it as it stands.
    FFI_THROW(RuntimeError) << "Cannot find function " << name
                            << " in the imported modules or global registry.";
  }
  std::lock_guard<std::mutex> lock(*mutex);
  if (TVMFFIObject* raced = cached()) return raced;
  cache.Set(name, *found);
  return cached();
}

void ModuleBase::RegisterReflection() {
  reflection::ObjectDef<ModuleBase>().def_ro("imports_", &ModuleBase::imports_,
                                             "The modules this module imports, in order.");
}

FFI_STATIC_INIT_BLOCK() { ModuleBase::RegisterReflection(); }

int ModuleBridgeGetFunction(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                            TVMFFIAny* out) {
  return BridgeLookup(mod, name, query_imports, out, ModuleGetFunction);
}

int ModuleBridgeImplementsFunction(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                                   int* out) {
  return AsSafeCall([&] {
    *out = ModuleImplementsFunction(ModuleView(mod), StringArg(name), query_imports != 0);
  });
}

int ModuleBridgeGetFunctionDoc(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                               TVMFFIAny* out) {
  return BridgeLookup(mod, name, query_imports, out, ModuleGetFunctionDoc);
}

int ModuleBridgeGetFunctionMetadata(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                                    TVMFFIAny* out) {
  return BridgeLookup(mod, name, query_imports, out, ModuleGetFunctionMetadata);
}

int ModuleBridgeImport(TVMFFIObject* mod, TVMFFIObject* other) {
  return AsSafeCall([&] {
    ModuleImport(ModuleView(mod), detail::ObjectUnsafe::RefFromBorrowedHeader<Module>(other));
  });
}

int ModuleBridgeClearImports(TVMFFIObject* mod) {
  return AsSafeCall([&] { ModuleClearImports(ModuleView(mod)); });
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
