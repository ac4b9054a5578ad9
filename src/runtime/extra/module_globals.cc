// The standard global functions on modules that the reference's Python package calls
// (`tvm_ffi.Module`'s methods, `tvm_ffi.load_module`): ffi.ModuleLoadFromFile, ffi.ModuleGetKind,
// ffi.ModuleGetPropertyMask, ffi.ModuleImplementsFunction, ffi.ModuleGetFunctionDoc,
// ffi.ModuleGetFunctionMetadata, ffi.ModuleGetWriteFormats, ffi.ModuleInspectSource,
// ffi.ModuleWriteToFile, ffi.ModuleSaveToBytes, ffi.ModuleGetImports, ffi.ModuleImportModule,
// ffi.ModuleClearImports and ffi.ModuleGlobalsAdd/Remove.
//
// Each works on any module, this runtime's or a client's, through the reference's ModuleObj
// shape (module_abi.h): virtual functions for what a module kind decides, module_base.cc for
// the imports.
#include <ffi/any.h>
#include <ffi/container/array.h>
#include <ffi/function.h>
#include <ffi/module.h>
#include <ffi/reflection/registry.h>
#include <ffi/string.h>

#include <mutex>
#include <string>
#include <vector>

#include "../module_abi.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief Loads a module with the loader registered for the file's extension. */
Module LoadFromFile(const std::string& path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  std::string format = (dot == std::string::npos || (slash != std::string::npos && dot < slash))
                           ? std::string("so")
                           : path.substr(dot + 1);
  // Every platform's shared-library suffix names the one shared-library loader, as the reference.
  if (format == "dll" || format == "dylib" || format == "dso") format = "so";
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
          "ffi.ModuleGetKind", [](Module mod) { return String(ModuleView(mod).kind()); },
          "The kind of module (`library` for a loaded shared library or the system library).")
      .def(
          "ffi.ModuleGetPropertyMask", [](Module mod) { return ModuleView(mod).GetPropertyMask(); },
          "The module's property bits: 1 binary serializable, 2 runnable, 4 exportable.")
      .def(
          "ffi.ModuleImplementsFunction",
          [](Module mod, const String& name, bool query_imports) {
            return ModuleImplementsFunction(ModuleView(mod), name, query_imports);
          },
          "Whether the module (or, with query_imports, an import) has the function `name`.")
      .def(
          "ffi.ModuleGetFunctionDoc",
          [](Module mod, const String& name, bool query_imports) {
            return ModuleGetFunctionDoc(ModuleView(mod), name, query_imports);
          },
          "The docstring the module exports for `name`, or None.")
      .def(
          "ffi.ModuleGetFunctionMetadata",
          [](Module mod, const String& name, bool query_imports) {
            return ModuleGetFunctionMetadata(ModuleView(mod), name, query_imports);
          },
          "The metadata (JSON) the module exports for `name`, or None.")
      .def(
          "ffi.ModuleGetWriteFormats", [](Module mod) { return ModuleView(mod).GetWriteFormats(); },
          "The formats the module can be written in.")
      .def(
          "ffi.ModuleInspectSource",
          [](Module mod, const String& format) { return ModuleView(mod).InspectSource(format); },
          "The module's source in a format (empty when it has none).")
      .def(
          "ffi.ModuleWriteToFile",
          [](Module mod, const String& file_name, const String& format) {
            ModuleView(mod).WriteToFile(file_name, format);
          },
          "Writes the module to a file (RuntimeError where its kind cannot).")
      .def(
          "ffi.ModuleSaveToBytes", [](Module mod) { return ModuleView(mod).SaveToBytes(); },
          "The module serialized (RuntimeError where its kind cannot).")
      .def(
          "ffi.ModuleGetImports", [](Module mod) { return ModuleImports(ModuleView(mod)); },
          "The modules `mod` imports, in order.")
      .def(
          "ffi.ModuleImportModule",
          [](Module mod, Module other) { ModuleView(mod).ImportModule(other); },
          "Makes `other` an import of `mod` (RuntimeError when that would form a cycle).")
      .def(
          "ffi.ModuleClearImports", [](Module mod) { ModuleView(mod).ClearImports(); },
          "Drops every import of the module.")
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
