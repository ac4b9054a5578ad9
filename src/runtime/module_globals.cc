// The standard global functions on modules that the reference's Python package calls
// (`tvm_ffi.Module`'s methods, `tvm_ffi.load_module`): ffi.ModuleLoadFromFile, ffi.ModuleGetKind,
// ffi.ModuleGetPropertyMask, ffi.ModuleImplementsFunction, ffi.ModuleGetFunctionDoc,
// ffi.ModuleGetFunctionMetadata, ffi.ModuleGetWriteFormats, ffi.ModuleInspectSource,
// ffi.ModuleWriteToFile, ffi.ModuleImportModule, ffi.ModuleClearImports and
// ffi.ModuleGlobalsAdd/Remove.
//
// They are built on the module functions module.cc registers (ffi.ModuleGetFunction,
// ffi.ModuleGetPath): a library's docstrings and signatures are the functions it exports as
// `__tvm_ffi__doc_<name>` and `__tvm_ffi__metadata_<name>`, which ModuleGetFunction finds as
// `_doc_<name>` and `_metadata_<name>`. Modules of this runtime are shared libraries (or the
// system library): runnable, never serializable, importing no other module.
#include <ffi/any.h>
#include <ffi/container/array.h>
#include <ffi/function.h>
#include <ffi/module.h>
#include <ffi/reflection/registry.h>
#include <ffi/string.h>

#include <mutex>
#include <string>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The reference's module property bit for "functions can be called". */
constexpr int64_t kPropertyRunnable = 0b010;

Optional<Function> FindFunction(const Module& mod, const std::string& name) {
  static Function get = Function::GetGlobalRequired("ffi.ModuleGetFunction");
  return get(mod, name, false).cast<Optional<Function>>();
}

std::string PathOf(const Module& mod) {
  static Function path = Function::GetGlobalRequired("ffi.ModuleGetPath");
  return path(mod).cast<std::string>();
}

/*! \brief What the exported getter `_<what>_<name>` returns (a string), or None without one. */
Optional<String> ExportedString(const Module& mod, const char* what, const std::string& name) {
  Optional<Function> getter = FindFunction(mod, std::string("_") + what + "_" + name);
  if (!getter.has_value()) return Optional<String>();
  return (*getter)().cast<String>();
}

/*! \brief Loads a module with the loader registered for the file's extension. */
Module LoadFromFile(const std::string& path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  std::string format = (dot == std::string::npos || (slash != std::string::npos && dot < slash))
                           ? std::string("so")
                           : path.substr(dot + 1);
  Optional<Function> loader = Function::GetGlobal("ffi.Module.load_from_file." + format);
  if (!loader.has_value()) {
    FFI_THROW(RuntimeError) << "Cannot load module `" << path << "`: no loader for format `"
                            << format << "` (ffi.Module.load_from_file." << format << ")";
  }
  return (*loader)(path, format).cast<Module>();
}

/*! \brief Modules kept alive for the process (ffi.ModuleGlobalsAdd / Remove). */
struct ModuleGlobals {
  std::mutex mutex;
  std::vector<Module> modules;

  static ModuleGlobals* Get() {
    static ModuleGlobals* globals = new ModuleGlobals();  // Never destroyed: modules outlive exit.
    return globals;
  }
};

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def("ffi.ModuleLoadFromFile", LoadFromFile,
           "Loads a module from a file, with the loader registered for its extension.")
      .def(
          "ffi.ModuleGetKind", [](Module) { return String("library"); },
          "The kind of module: `library` (a shared library or the system library, as the "
          "reference names both).")
      .def(
          "ffi.ModuleGetPropertyMask", [](Module) { return kPropertyRunnable; },
          "The module's property bits (runnable; not serializable, not exportable).")
      .def(
          "ffi.ModuleImplementsFunction",
          [](Module mod, const std::string& name, bool) {
            return FindFunction(mod, name).has_value();
          },
          "Whether the module has the function `name`.")
      .def(
          "ffi.ModuleGetFunctionDoc",
          [](Module mod, const std::string& name, bool) {
            return ExportedString(mod, "doc", name);
          },
          "The docstring the module exports for `name`, or None.")
      .def(
          "ffi.ModuleGetFunctionMetadata",
          [](Module mod, const std::string& name, bool) {
            return ExportedString(mod, "metadata", name);
          },
          "The metadata (JSON) the module exports for `name`, or None.")
      .def(
          "ffi.ModuleGetWriteFormats", [](Module) { return Array<String>(); },
          "The formats the module can be written in: none.")
      .def(
          "ffi.ModuleInspectSource", [](Module, const std::string&) { return String(""); },
          "The module's source in a format: a loaded library has none.")
      .def(
          "ffi.ModuleWriteToFile",
          [](Module mod, const std::string&, const std::string& format) {
            FFI_THROW(RuntimeError) << "Module `" << PathOf(mod) << "` cannot be written: format `"
                                    << format << "` is not supported by a loaded library";
          },
          "Writes the module to a file: unsupported for loaded libraries (RuntimeError).")
      .def(
          "ffi.ModuleImportModule",
          [](Module mod, Module) {
            FFI_THROW(RuntimeError) << "Module `" << PathOf(mod)
                                    << "` cannot import modules: this runtime's modules are "
                                       "loaded libraries, which resolve through the globals";
          },
          "Imports a module into another: unsupported (RuntimeError).")
      .def(
          "ffi.ModuleClearImports", [](Module) {}, "Clears a module's imports (it has none).")
      .def(
          "ffi.ModuleGlobalsAdd",
          [](Module mod) {
            ModuleGlobals* g = ModuleGlobals::Get();
            std::lock_guard<std::mutex> lock(g->mutex);
            g->modules.push_back(mod);
          },
          "Keeps a module alive for the rest of the process.")
      .def(
          "ffi.ModuleGlobalsRemove",
          [](Module mod) {
            ModuleGlobals* g = ModuleGlobals::Get();
            std::lock_guard<std::mutex> lock(g->mutex);
            for (size_t i = 0; i < g->modules.size(); ++i) {
              if (g->modules[i].same_as(mod)) {
                g->modules.erase(g->modules.begin() + static_cast<std::ptrdiff_t>(i));
                return;
              }
            }
          },
          "Stops keeping a module alive (one ffi.ModuleGlobalsAdd undone).");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
