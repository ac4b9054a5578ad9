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

Array<Any> ImportsOf(const ModuleBase* mod) {
  std::lock_guard<std::mutex> lock(ImportsMutex());
  return mod->imports();
}

/*! \brief Calls `visit(import)` for each import of `mod` in order until it returns true. */
template <typename F>
bool AnyImport(const ModuleBase* mod, F visit) {
  for (const Any& item : ImportsOf(mod)) {
    if (auto imported = item.as<Module>(); imported.has_value() && imported->defined()) {
      if (visit(AsModuleBase(*imported))) return true;
    }
  }
  return false;
}

/*! \brief Whether `mod` is `target` or imports it, directly or not. */
bool Reaches(const ModuleBase* mod, const ModuleBase* target) {
  if (mod == target) return true;
  return AnyImport(mod, [&](ModuleBase* imported) { return Reaches(imported, target); });
}

/*! \brief The first non-None result of `get(module)` over `mod`, then (if asked) its imports. */
template <typename F>
Any FirstString(ModuleBase* mod, bool query_imports, F get) {
  Any found = CallingModule([&] { return get(mod); });
  if (found != nullptr || !query_imports) return found;
  AnyImport(mod, [&](ModuleBase* imported) {
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
    Any result = lookup(AsModuleBase(mod), StringArg(name), query_imports != 0);
    *out = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(result));
  });
}

}  // namespace

void ModuleBase::ImportModule(const Module& other) { ModuleImport(this, other); }

void ModuleBase::ClearImports() {
  std::lock_guard<std::mutex> lock(ImportsMutex());
  imports_ = Array<Any>();
}

Optional<Function> ModuleGetFunction(ModuleBase* mod, const String& name, bool query_imports) {
  Optional<Function> found = CallingModule([&] { return mod->GetFunction(name); });
  if (found.has_value() || !query_imports) return found;
  AnyImport(mod, [&](ModuleBase* imported) {
    found = ModuleGetFunction(imported, name, true);
    return found.has_value();
  });
  return found;
}

bool ModuleImplementsFunction(ModuleBase* mod, const String& name, bool query_imports) {
  if (CallingModule([&] { return mod->ImplementsFunction(name); })) return true;
  return query_imports && AnyImport(mod, [&](ModuleBase* imported) {
           return ModuleImplementsFunction(imported, name, true);
         });
}

Any ModuleGetFunctionDoc(ModuleBase* mod, const String& name, bool query_imports) {
  return FirstString(mod, query_imports, [&](ModuleBase* m) { return m->GetFunctionDoc(name); });
}

Any ModuleGetFunctionMetadata(ModuleBase* mod, const String& name, bool query_imports) {
  return FirstString(mod, query_imports,
                     [&](ModuleBase* m) { return m->GetFunctionMetadata(name); });
}

void ModuleImport(ModuleBase* mod, const Module& other) {
  ModuleBase* imported = AsModuleBase(other);
  // A cycle would make every lookup through the imports recurse forever.
  if (Reaches(imported, mod)) {
    // RuntimeError, as the reference raises it.
    FFI_THROW(RuntimeError) << "Cyclic dependency detected during import: a module of kind `"
                            << imported->kind() << "` cannot be imported into a module of kind `"
                            << mod->kind() << "` that it reaches through its own imports";
  }
  std::lock_guard<std::mutex> lock(ImportsMutex());
  Array<Any> imports = mod->imports();
  imports.push_back(other);
  mod->SetImports(std::move(imports));
}

TVMFFIObject* ModuleLookupFromImports(ModuleBase* mod, const String& name) {
  // Lookups run outside the lock (a module's GetFunction may look functions up itself); the first
  // function cached under a name is the one every caller gets.
  static std::mutex* mutex = new std::mutex();
  static Map<String, Function>* process_cache = new Map<String, Function>();
  Map<String, Function>& cache = mod != nullptr ? mod->import_lookup_cache_ : *process_cache;
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
    AnyImport(mod, [&](ModuleBase* imported) {
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
    *out = ModuleImplementsFunction(AsModuleBase(mod), StringArg(name), query_imports != 0);
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
    ModuleImport(AsModuleBase(mod), detail::ObjectUnsafe::RefFromBorrowedHeader<Module>(other));
  });
}

int ModuleBridgeClearImports(TVMFFIObject* mod) {
  return AsSafeCall([&] { AsModuleBase(mod)->ModuleBase::ClearImports(); });
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
