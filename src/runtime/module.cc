// Modules: shared libraries loaded from files, system libraries (symbols registered by statically
// linked code, ffi.SystemLib), and the global functions hosts use to reach them.
#include "ffi/module.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ffi/reflection/registry.h"
#include "loading.h"
#include "module_abi.h"
#include "platform/platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief Symbols hosts registered for the libraries' slots of the same names
 * (TVMFFIEnvModRegisterContextSymbol: TVM registers `__TVMBackendAllocWorkspace` and others). */
struct ContextSymbols {
  std::mutex mutex;
  std::unordered_map<std::string, void*> symbols;
  static ContextSymbols* Get() {
    static ContextSymbols* table = new ContextSymbols();
    return table;
  }
};

using platform::SymbolInfo;
using platform::SymbolKind;

/*! \brief The kind of a defined symbol that is not code, as error messages name it. */
const char* SymbolKindName(SymbolKind kind) {
  switch (kind) {
    case SymbolKind::kData:
    case SymbolKind::kCommonData:
      return "a data object";
    case SymbolKind::kThreadLocal:
      return "a thread-local variable";
    default:
      return "not a function";
  }
}

/*!
 * \brief What this runtime's own modules answer beyond the reference's interface (ModuleBase):
 * the global functions ffi.ModuleGetPath and ffi.ModuleListFunctionNames dispatch on it.
 */
class RuntimeModuleObj : public ModuleBase {
 public:
  virtual ~RuntimeModuleObj() = default;
  // Binary serializable, as the reference's library modules claim (though SaveToBytes raises):
  // TVM's export_library admits only modules that claim one of the two serializations.
  int GetPropertyMask() const override { return kModuleBinarySerializable | kModuleRunnable; }
  /*! \brief The docstring a library exports for `name` (`__tvm_ffi__doc_<name>`), or None. */
  Any GetFunctionDoc(const String& name) override { return ExportedString("doc", name); }
  /*! \brief The metadata a library exports for `name` (`__tvm_ffi__metadata_<name>`), or None. */
  Any GetFunctionMetadata(const String& name) override { return ExportedString("metadata", name); }
  /*! \brief Names of the functions the module has, sorted. */
  virtual std::vector<std::string> FunctionNames() const = 0;
  /*! \brief The file the module was loaded from; empty for a system library. */
  virtual std::string path() const = 0;

 private:
  /*! \brief What the exported getter `_<what>_<name>` returns (a string), or None. */
  Any ExportedString(const char* what, const String& name) {
    Optional<Function> getter = GetFunction(String(std::string("_") + what + "_" + name.c_str()));
    if (!getter.has_value()) return Any();
    return (*getter)().cast<String>();
  }
};

/*!
 * \brief A module backed by a loaded library. The library is never unloaded: objects and
 * functions it made (whose deleters live in its code) may outlive the module.
 */
class LibraryModuleObj final : public RuntimeModuleObj {
 public:
  LibraryModuleObj(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {
    // The ABI's symbols all start with "__"; C++ names start with "_Z", so this table stays small.
    platform::ForEachDefinedSymbol(handle_, [&](const char* name, const SymbolInfo& info) {
      if (name[0] == '_' && name[1] == '_') abi_symbols_.emplace(name, info);
    });
  }
  ~LibraryModuleObj() {
    // The library stays loaded; make its context slot stop pointing at a dead module.
    if (void** slot = DataSlot("__tvm_ffi__library_ctx")) {
      if (*slot == LibraryContext(this)) *slot = nullptr;
    }
  }

  const char* kind() const final { return "library"; }
  std::string path() const final { return path_; }

  /*! \brief Names of the functions the library exports (`__tvm_ffi_<name>`), sorted. */
  std::vector<std::string> FunctionNames() const final {
    std::vector<std::string> names;
    constexpr std::string_view kPrefix = "__tvm_ffi_";
    for (const auto& [symbol, info] : abi_symbols_) {
      std::string_view s(symbol);
      // `__tvm_ffi__<x>` are companions (metadata, docs), not functions; data is never listed.
      if (s.rfind(kPrefix, 0) == 0 && s.size() > kPrefix.size() && s[kPrefix.size()] != '_' &&
          info.kind == SymbolKind::kCode) {
        names.emplace_back(s.substr(kPrefix.size()));
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  /*!
   * \brief The function `__tvm_ffi_<name>`, or nothing when there is no such symbol. A symbol that
   * is not code (a variable of that name) is refused with AttributeError instead of being called.
   * Not cached here: a cached function would hold the module and the module the function.
   */
  Optional<Function> GetFunction(const String& function_name) final {
    std::string name(function_name.data(), function_name.size());
    // The loader would read a name with a NUL byte only up to it and find another function.
    if (name.find('\0') != std::string::npos) return std::nullopt;
    std::string symbol = "__tvm_ffi_" + name;
    void* address = platform::LookupSymbol(handle_, symbol.c_str());
    if (address == nullptr) return std::nullopt;
    SymbolKind type = FindSymbol(symbol, address).kind;
    if (type != SymbolKind::kCode) {
      FFI_THROW(AttributeError) << "Module `" << path_ << "`: symbol `" << symbol << "` is "
                                << SymbolKindName(type) << ", so `" << name << "` cannot be called";
    }
    // The function keeps the module alive; the callback ignores its resource handle.
    TVMFFIObject* self = detail::ObjectUnsafe::Header(this);
    detail::ObjectUnsafe::IncRef(self);
    return Function::FromExternC(self, reinterpret_cast<TVMFFISafeCallType>(address),
                                 [](void* m) { detail::ObjectUnsafe::DecRef(m); });
  }

  /*! \brief The data object `symbol` the library defines, or null when it has none. */
  const void* DataSymbol(const std::string& symbol) const {
    void* address = platform::LookupSymbol(handle_, symbol.c_str());
    if (address == nullptr || FindSymbol(symbol, address).kind != SymbolKind::kData) return nullptr;
    return address;
  }

  /*!
   * \brief The pointer variable `symbol` the library defines for the host to fill, or null when it
   * has none or the symbol is not a pointer-sized variable (writing there would corrupt it).
   */
  void** DataSlot(const std::string& symbol) const {
    void* address = platform::LookupSymbol(handle_, symbol.c_str());
    if (address == nullptr) return nullptr;
    SymbolInfo info = FindSymbol(symbol, address);
    if (info.kind != SymbolKind::kData || (info.size_known && info.size < sizeof(void*))) {
      return nullptr;
    }
    return static_cast<void**>(address);
  }

 private:
  /*!
   * \brief What the symbol `symbol` found at `address` is: from this library's table, else (a
   * symbol of one of its dependencies) what the loader says of the address; kUnknown when neither
   * tells.
   */
  SymbolInfo FindSymbol(const std::string& symbol, void* address) const {
    auto it = abi_symbols_.find(symbol);
    if (it != abi_symbols_.end()) return it->second;
    SymbolInfo info;
    if (!platform::SymbolAtAddress(address, &info)) return SymbolInfo();
    return info;
  }

  std::string path_;
  void* handle_;
  /*! \brief The defined symbols whose names start with "__", with their kinds and sizes. */
  std::unordered_map<std::string, SymbolInfo> abi_symbols_;
};

/*!
 * \brief Libraries whose static initializers failed, with the error: loading the same file again
 * returns the same handle without running them again, so a second load must fail alike.
 */
struct FailedLibraries {
  std::mutex mutex;
  std::unordered_map<void*, Error> errors;
  static FailedLibraries* Get() {
    static FailedLibraries* table = new FailedLibraries();
    return table;
  }
};

/*! \brief The path for error messages: NUL bytes shown as `\0`. */
std::string Printable(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

/*! \brief Refuses what the loader cannot or must not be given: ValueError or RuntimeError. */
void CheckLoadablePath(const std::string& path) {
  if (path.empty()) FFI_THROW(ValueError) << "Cannot load module: the path is empty";
  if (path.find('\0') != std::string::npos) {
    FFI_THROW(ValueError) << "Cannot load module `" << Printable(path)
                          << "`: the path contains a NUL byte";
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) {
      FFI_THROW(RuntimeError) << "Cannot load module: file `" << path << "` does not exist";
    }
    FFI_THROW(RuntimeError) << "Cannot load module `" << path << "`: " << std::strerror(err);
  }
  if (S_ISDIR(st.st_mode)) {
    FFI_THROW(RuntimeError) << "Cannot load module `" << path
                            << "`: it is a directory, not a shared library";
  }
  // The loader reads the file: a FIFO would block it forever, a device would feed it anything.
  if (!S_ISREG(st.st_mode)) {
    FFI_THROW(RuntimeError) << "Cannot load module `" << path
                            << "`: it is not a regular file, so not a shared library";
  }
}

/*!
 * \brief The module tree a library embeds in `__tvm_ffi__library_bin` (what a client's
 * export_library wrote): little-endian, a uint64 byte count, then the import tree as CSR (a
 * uint64 count and that many uint64 row offsets, one per module plus one; a uint64 count and that
 * many uint64 child indices), then one entry per module in tree order: a uint64 length and the
 * type key, and, unless the key is `_lib` (the library itself), a uint64 length and the bytes that
 * the global function `ffi.Module.load_from_bytes.<key>` turns into the module. Each module then
 * imports its children; module 0, the root, is what loading the file returns.
 */
Module LoadImportTree(const std::string& path, const char* bin, const Module& library) {
  auto fail = [&](const std::string& why) {
    FFI_THROW(RuntimeError) << "Cannot load module `" << path
                            << "`: its embedded module tree (__tvm_ffi__library_bin) " << why;
  };
  uint64_t size = 0;
  std::memcpy(&size, bin, sizeof(size));
  const char* data = bin + sizeof(size);
  size_t pos = 0;
  auto read_u64 = [&]() {
    if (size - pos < sizeof(uint64_t)) fail("ends early");
    uint64_t v = 0;
    std::memcpy(&v, data + pos, sizeof(v));
    pos += sizeof(v);
    return v;
  };
  auto read_u64s = [&]() {
    uint64_t n = read_u64();
    if (n > (size - pos) / sizeof(uint64_t)) fail("ends early");
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) v = read_u64();
    return values;
  };
  auto read_bytes = [&]() {
    uint64_t n = read_u64();
    if (n > size - pos) fail("ends early");
    std::string_view bytes(data + pos, n);
    pos += n;
    return bytes;
  };
  std::vector<uint64_t> rows = read_u64s();
  std::vector<uint64_t> children = read_u64s();
  if (rows.empty()) fail("has no modules");
  size_t count = rows.size() - 1;
  std::vector<Module> modules;
  for (size_t i = 0; i < count; ++i) {
    std::string_view key = read_bytes();
    if (key == "_lib") {
      modules.push_back(library);
      continue;
    }
    std::string_view blob = read_bytes();
    std::string loader_name = "ffi.Module.load_from_bytes." + std::string(key);
    Optional<Function> loader = Function::GetGlobal(loader_name);
    if (!loader.has_value()) {
      fail("holds a module of kind `" + std::string(key) +
           "`, and no loader for it is registered (" + loader_name + ")");
    }
    modules.push_back((*loader)(Bytes(blob.data(), blob.size())).cast<Module>());
  }
  for (size_t i = 0; i < count; ++i) {
    if (rows[i] > rows[i + 1] || rows[i + 1] > children.size()) fail("has a malformed import tree");
    for (uint64_t j = rows[i]; j < rows[i + 1]; ++j) {
      if (children[j] >= count) fail("has a malformed import tree");
      ModuleView(modules[i]).ImportModule(modules[children[j]]);
    }
  }
  return modules[0];
}

Module LoadLibraryModule(const std::string& path) {
  CheckLoadablePath(path);
  std::string why = platform::CheckLibraryImage(path);
  if (!why.empty()) FFI_THROW(RuntimeError) << "Cannot load module `" << path << "`: " << why;
  void* handle = nullptr;
  Optional<Error> init_failure;
  {
    RegistrationFailureScope scope;
    handle = platform::OpenLibrary(path, &why);
    init_failure = scope.failure();
  }
  if (handle == nullptr) FFI_THROW(RuntimeError) << "Cannot load module `" << path << "`: " << why;
  {
    FailedLibraries* failed = FailedLibraries::Get();
    std::lock_guard<std::mutex> lock(failed->mutex);
    if (init_failure.has_value()) {
      failed->errors.emplace(handle, *init_failure);
    } else if (auto it = failed->errors.find(handle); it != failed->errors.end()) {
      init_failure = it->second;
      platform::CloseLibrary(handle);  // only the reference this call took: the first load's stays
    }
  }
  if (init_failure.has_value()) {
    // The library stays loaded (what it registered before and after the failure points into its
    // code), but no module is made from it.
    FFI_THROW(RuntimeError) << "Cannot load module `" << path
                            << "`: its static initialization failed: "
                            << init_failure.value().kind() << ": "
                            << init_failure.value().message();
  }
  auto obj = make_object<LibraryModuleObj>(path, handle);
  if (void** slot = obj->DataSlot("__tvm_ffi__library_ctx")) *slot = LibraryContext(obj.get());
  ContextSymbols* ctx = ContextSymbols::Get();
  std::lock_guard<std::mutex> lock(ctx->mutex);
  for (const auto& kv : ctx->symbols) {
    if (void** slot = obj->DataSlot(kv.first)) *slot = kv.second;
  }
  const void* bin = obj->DataSymbol("__tvm_ffi__library_bin");
  Module library(ObjectPtr<Object>(std::move(obj)));
  if (bin == nullptr) return library;
  return LoadImportTree(path, static_cast<const char*>(bin), library);
}

/*!
 * \brief The system library of one symbol prefix (ffi.SystemLib): functions are the symbols that
 * statically linked code registered with TVMFFIEnvModRegisterSystemLibSymbol. `GetFunction(name)`
 * finds `__tvm_ffi_<prefix><name>`, else `__tvm_ffi_<name>`, as the reference does; companion
 * symbols (`__tvm_ffi__metadata_<name>`, `__tvm_ffi__library_ctx`) carry the prefix in front.
 */
class SystemLibModuleObj final : public RuntimeModuleObj {
 public:
  explicit SystemLibModuleObj(std::string prefix) : prefix_(std::move(prefix)) {}

  // The reference names the system library's kind as it names a loaded library's.
  const char* kind() const final { return "library"; }
  std::string path() const final { return std::string(); }

  Optional<Function> GetFunction(const String& function_name) final {
    std::string name(function_name.data(), function_name.size());
    const std::string prefix(kPrefix);
    void* symbol = nullptr;
    if (!name.empty() && name[0] == '_') {
      // A companion (`_metadata_<f>`, `_doc_<f>`): registered as `<prefix>__tvm_ffi__metadata_<f>`,
      // the reference's spelling (the prefix goes before the whole symbol).
      symbol = SlotSymbol(prefix + name);
    } else {
      symbol = SystemLibGetSymbol(prefix + prefix_ + name);
      if (symbol == nullptr) symbol = SystemLibGetSymbol(prefix + name);
    }
    if (symbol == nullptr) return std::nullopt;
    // The code is part of the process and the module lives as long as it: nothing to keep alive.
    return Function::FromExternC(nullptr, reinterpret_cast<TVMFFISafeCallType>(symbol), nullptr);
  }

  /*! \brief The names GetFunction finds: prefixed symbols without the prefix, and the others. */
  std::vector<std::string> FunctionNames() const final {
    std::vector<std::string> names;
    for (const std::string& symbol : SystemLibSymbolNames()) {
      std::string_view s(symbol);
      // `__tvm_ffi__<x>` are companions (metadata, docs, the library context), not functions.
      if (s.rfind(kPrefix, 0) != 0 || s.size() == kPrefix.size() || s[kPrefix.size()] == '_') {
        continue;
      }
      s.remove_prefix(kPrefix.size());
      if (!prefix_.empty() && s.rfind(prefix_, 0) == 0 && s.size() > prefix_.size()) {
        s.remove_prefix(prefix_.size());
      }
      names.emplace_back(s);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  /*!
   * \brief The module for `prefix`: one per prefix for the life of the process (never freed, so
   * a library context slot pointing at it stays valid), made on first request.
   */
  static Module Get(const std::string& prefix) {
    static std::mutex mutex;
    static auto* modules = new std::unordered_map<std::string, Module>();
    std::lock_guard<std::mutex> lock(mutex);
    auto it = modules->find(prefix);
    if (it != modules->end()) return it->second;
    auto obj = make_object<SystemLibModuleObj>(prefix);
    // Generated system libraries register a `__tvm_ffi__library_ctx` slot; point it here.
    if (void* slot = obj->SlotSymbol("__tvm_ffi__library_ctx")) {
      *static_cast<void**>(slot) = LibraryContext(obj.get());
    }
    Module mod(ObjectPtr<Object>(std::move(obj)));
    modules->emplace(prefix, mod);
    return mod;
  }

 private:
  static constexpr std::string_view kPrefix = "__tvm_ffi_";
  /*! \brief The registered symbol `<prefix><name>`, else `<name>` (the reference's order). */
  void* SlotSymbol(const std::string& name) const {
    void* symbol = SystemLibGetSymbol(prefix_ + name);
    return symbol != nullptr ? symbol : SystemLibGetSymbol(name);
  }
  std::string prefix_;
};

/*! \brief This runtime's own module whose header is `header`, or null for a client's module. */
RuntimeModuleObj* AsRuntimeModule(TVMFFIObject* header) {
  // Only modules this runtime made carry these deleters; anything else is not ours to cast.
  auto* obj = static_cast<ModuleObj*>(detail::ObjectUnsafe::FromHeader(static_cast<void*>(header)));
  if (header->deleter == detail::ObjectDeleter<LibraryModuleObj>) {
    return static_cast<LibraryModuleObj*>(obj);
  }
  if (header->deleter == detail::ObjectDeleter<SystemLibModuleObj>) {
    return static_cast<SystemLibModuleObj*>(obj);
  }
  return nullptr;
}

/*! \brief This runtime's own module behind `mod`, or null for a client's module. */
RuntimeModuleObj* AsRuntimeModule(const Module& mod) {
  if (!mod.defined()) FFI_THROW(ValueError) << "The module is None";
  return AsRuntimeModule(detail::ObjectUnsafe::Header(mod.get()));
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def_packed("ffi.Module.load_from_file.so",
                  [](PackedArgs args, Any* result) {
                    // (path) or (path, format); the format is implied by the extension.
                    if (args.size() < 1 || args.size() > 2) {
                      FFI_THROW(TypeError)
                          << "ffi.Module.load_from_file.so expects (path[, format]), got "
                          << args.size() << " arguments";
                    }
                    *result = LoadLibraryModule(args[0].cast<std::string>());
                  })
      .def_packed("ffi.SystemLib",
                  [](PackedArgs args, Any* result) {
                    // () or (prefix), as the reference's.
                    if (args.size() > 1) {
                      FFI_THROW(TypeError) << "ffi.SystemLib expects ([symbol_prefix]), got "
                                           << args.size() << " arguments";
                    }
                    std::string prefix = args.size() == 1 ? args[0].cast<std::string>() : "";
                    *result = SystemLibModuleObj::Get(prefix);
                  })
      .def("ffi.ModuleGetFunction",
           [](Module mod, const String& name, bool query_imports) {
             return ModuleGetFunction(ModuleView(mod), name, query_imports);
           })
      .def("ffi.ModuleGetPath",
           [](Module mod) {
             // A client's module kind has no path this runtime can tell.
             RuntimeModuleObj* own = AsRuntimeModule(mod);
             return own != nullptr ? own->path() : std::string();
           })
      .def("ffi.ModuleListFunctionNames", [](Module mod) {
        // One string, names separated by newlines: the ABI subset has no array type yet. A
        // client's module kind cannot list its functions (the reference's interface has no such
        // call): they are found by name.
        std::string joined;
        if (RuntimeModuleObj* own = AsRuntimeModule(mod)) {
          for (const std::string& n : own->FunctionNames()) joined += n + "\n";
        }
        return joined;
      });
}

}  // namespace

ModuleBase* RuntimeModuleOf(TVMFFIObject* header) { return AsRuntimeModule(header); }

int ModuleBridgeVisitContextSymbols(void (*visit)(void* context, const char* name, void* symbol),
                                    void* context) {
  FFI_SAFE_CALL_BEGIN();
  ContextSymbols* ctx = ContextSymbols::Get();
  std::vector<std::pair<std::string, void*>> symbols;
  {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    symbols.assign(ctx->symbols.begin(), ctx->symbols.end());
  }
  for (const auto& [name, symbol] : symbols) visit(context, name.c_str(), symbol);
  FFI_SAFE_CALL_END();
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

extern "C" {

int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol) {
  FFI_SAFE_CALL_BEGIN();
  auto* ctx = ffi::runtime::ContextSymbols::Get();
  std::lock_guard<std::mutex> lock(ctx->mutex);
  ctx->symbols[name] = symbol;
  FFI_SAFE_CALL_END();
}

int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                  TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  std::optional<ffi::runtime::ModuleView> mod;
  if (library_ctx != nullptr) mod = ffi::runtime::ModuleView::OfLibraryContext(library_ctx);
  *out = ffi::runtime::ModuleLookupFromImports(mod ? &*mod : nullptr, ffi::String(func_name));
  FFI_SAFE_CALL_END();
}

}  // extern "C"
