// Loading shared libraries as modules and the global functions hosts use to reach them.
#include <dlfcn.h>
#include <ffi/module.h>
#include <sys/stat.h>

#include <mutex>
#include <string>
#include <unordered_map>

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
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
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
      .def("ffi.ModuleGetPath", [](Module mod) { return AsLibraryModule(mod)->path(); });
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
