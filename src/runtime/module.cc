// Loading shared libraries as modules and the global functions hosts use to reach them.
#include "ffi/module.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ffi {
namespace runtime {
namespace {

/*! \brief Symbols hosts registered for libraries' `__<name>` slots
 * (TVMFFIEnvModRegisterContextSymbol). */
struct ContextSymbols {
  std::mutex mutex;
  std::unordered_map<std::string, void*> symbols;
  static ContextSymbols* Get() {
    static ContextSymbols* table = new ContextSymbols();
    return table;
  }
};

/*!
 * \brief Calls `fn(name)` for every function symbol the loaded library defines, read from its
 * dynamic symbol table (the number of symbols comes from DT_HASH or DT_GNU_HASH).
 */
template <typename F>
void ForEachDefinedFunction(void* handle, F fn) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return;
  auto addr = [&](ElfW(Addr) p) -> const char* {
    // glibc relocates these entries in place on most targets; add the base when it did not.
    return reinterpret_cast<const char*>(p < map->l_addr ? p + map->l_addr : p);
  };
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* hash = nullptr;
  const uint32_t* gnu_hash = nullptr;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) strtab = addr(d->d_un.d_ptr);
    if (d->d_tag == DT_HASH) hash = reinterpret_cast<const uint32_t*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const uint32_t*>(addr(d->d_un.d_ptr));
  }
  if (symtab == nullptr || strtab == nullptr) return;
  size_t count = 0;
  if (hash != nullptr) {
    count = hash[1];  // nchain
  } else if (gnu_hash != nullptr) {
    uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom_size = gnu_hash[2];
    const uint32_t* buckets = gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / sizeof(uint32_t));
    const uint32_t* chains = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nbuckets; ++b) last = std::max(last, buckets[b]);
    if (last >= symoffset) {
      while ((chains[last - symoffset] & 1) == 0) ++last;  // the chain ends at an odd hash
      count = last + 1;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const ElfW(Sym)& sym = symtab[i];
    if (sym.st_shndx != SHN_UNDEF && ELF64_ST_TYPE(sym.st_info) == STT_FUNC)
      fn(strtab + sym.st_name);
  }
}

/*!
 * \brief A module backed by a dlopen-ed library. The library is never dlclose-d: objects and
 * functions it made (whose deleters live in its code) may outlive the module.
 */
class LibraryModuleObj : public ModuleObj {
 public:
  LibraryModuleObj(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  ~LibraryModuleObj() {
    // The library stays loaded; make its context slot stop pointing at a dead module.
    if (void** slot = static_cast<void**>(dlsym(handle_, "__tvm_ffi__library_ctx"))) {
      if (*slot == detail::ObjectUnsafe::Header(this)) *slot = nullptr;
    }
  }

  const std::string& path() const { return path_; }

  /*! \brief Names of the functions the library exports (`__tvm_ffi_<name>`), sorted. */
  std::vector<std::string> FunctionNames() const {
    std::vector<std::string> names;
    ForEachDefinedFunction(handle_, [&](const char* symbol) {
      std::string_view s(symbol);
      constexpr std::string_view kPrefix = "__tvm_ffi_";
      // `__tvm_ffi__<x>` are companions (metadata, docs), not functions.
      if (s.rfind(kPrefix, 0) == 0 && s.size() > kPrefix.size() && s[kPrefix.size()] != '_') {
        names.emplace_back(s.substr(kPrefix.size()));
      }
    });
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  // Not cached here: a cached function would hold the module and the module the function.
  Optional<Function> GetFunction(const std::string& name) {
    std::string symbol = "__tvm_ffi_" + name;
    auto safe_call = reinterpret_cast<TVMFFISafeCallType>(dlsym(handle_, symbol.c_str()));
    if (safe_call == nullptr) return std::nullopt;
    // The function keeps the module alive; the callback ignores its resource handle.
    TVMFFIObject* self = detail::ObjectUnsafe::Header(this);
    detail::ObjectUnsafe::IncRef(self);
    return Function::FromExternC(self, safe_call, [](void* m) { detail::ObjectUnsafe::DecRef(m); });
  }

 private:
  std::string path_;
  void* handle_;
};

Module LoadLibraryModule(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    FFI_THROW(RuntimeError) << "Cannot load module: file `" << path << "` does not exist";
  }
  // A bare file name would make dlopen search the library path; the caller means this file.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    FFI_THROW(RuntimeError) << "Cannot load module `" << path
                            << "`: " << (why ? why : "dlopen failed");
  }
  auto obj = make_object<LibraryModuleObj>(path, handle);
  if (void** slot = static_cast<void**>(dlsym(handle, "__tvm_ffi__library_ctx"))) {
    *slot = detail::ObjectUnsafe::Header(obj.get());
  }
  ContextSymbols* ctx = ContextSymbols::Get();
  std::lock_guard<std::mutex> lock(ctx->mutex);
  for (const auto& kv : ctx->symbols) {
    if (void** slot = static_cast<void**>(dlsym(handle, ("__" + kv.first).c_str()))) {
      *slot = kv.second;
    }
  }
  return Module(ObjectPtr<Object>(std::move(obj)));
}

LibraryModuleObj* AsLibraryModule(const Module& mod) {
  if (!mod.defined()) FFI_THROW(ValueError) << "The module is None";
  // Only modules this runtime loaded carry this deleter; anything else is not ours to cast.
  if (detail::ObjectUnsafe::Header(mod.get())->deleter != detail::ObjectDeleter<LibraryModuleObj>) {
    FFI_THROW(TypeError) << "The module was not loaded from a library by this runtime";
  }
  return const_cast<LibraryModuleObj*>(static_cast<const LibraryModuleObj*>(mod.get()));
}

FFI_STATIC_INIT_BLOCK() {
  GlobalDef()
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
      .def("ffi.ModuleLoadFromFile",
           [](const std::string& path) { return LoadLibraryModule(path); })
      .def("ffi.ModuleGetFunction",
           [](Module mod, const std::string& name, bool /*query_imports*/) {
             return AsLibraryModule(mod)->GetFunction(name);
           })
      .def("ffi.ModuleGetPath", [](Module mod) { return AsLibraryModule(mod)->path(); })
      .def("ffi.ModuleListFunctionNames", [](Module mod) {
        // One string, names separated by newlines: the ABI subset has no array type yet.
        std::string joined;
        for (const std::string& n : AsLibraryModule(mod)->FunctionNames()) joined += n + "\n";
        return joined;
      });
}

}  // namespace
}  // namespace runtime
}  // namespace ffi

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
  using ffi::detail::ObjectUnsafe;
  // Modules loaded from a file import nothing; fall back to the global functions.
  ffi::Optional<ffi::Function> f;
  if (library_ctx != nullptr) {
    auto mod = ObjectUnsafe::RefFromBorrowedHeader<ffi::Module>(library_ctx);
    f = ffi::runtime::AsLibraryModule(mod)->GetFunction(func_name);
  }
  if (!f.has_value()) f = ffi::Function::GetGlobal(func_name);
  if (!f.has_value()) {
    FFI_THROW(AttributeError) << "Cannot find function `" << func_name
                              << "` in the module or the global functions";
  }
  *out = ObjectUnsafe::MoveToHeader(std::move(f).value());
  FFI_SAFE_CALL_END();
}

}  // extern "C"
