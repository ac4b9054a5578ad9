/*
 * ffi/module.h - Module: a loaded shared library whose `__tvm_ffi_<name>` symbols are functions.
 *
 * The runtime owns loading (dlopen) and lookup; this header reaches it through the global
 * functions "ffi.Module.load_from_file.so" and "ffi.ModuleGetFunction", the same entry points a
 * C host uses, so C++ and C hosts share one implementation.
 */
#ifndef FFI_MODULE_H_
#define FFI_MODULE_H_

#include <string>

#include "function.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The object behind Module; its contents are private to the runtime. */
class ModuleObj : public Object {
 public:
  /*!
   * \brief The function exported as `name` (symbol `__tvm_ffi_<name>`), or nothing. Throws
   * AttributeError when the library defines that symbol as something other than code (a variable).
   */
  Optional<Function> GetFunction(const String& name, bool query_imports = false) const {
    static Function get = Function::GetGlobalRequired("ffi.ModuleGetFunction");
    TVMFFIAny self;
    self.type_index = kTVMFFIModule;
    self.zero_padding = 0;
    self.v_obj = detail::ObjectUnsafe::Header(this);
    return get(AnyView::FromRaw(self), name, query_imports).cast<Optional<Function>>();
  }

  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Module", ModuleObj, Object, kTVMFFIModule);
};

/*! \brief A loaded library of functions. Never null once loaded. */
class Module : public ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(Module, ObjectRef, ModuleObj);

  /*!
   * \brief Loads the shared library at `path` (dlopen), resolving all its symbols now. Throws
   * ValueError for a path that cannot name a file (empty, or containing a NUL byte), and
   * RuntimeError, naming the path and the reason, when the file is missing, is a directory or
   * another non-regular file, is not a loadable library (truncated, not ELF), leaves a symbol
   * undefined, or its static initialization fails to register a global function (a name already
   * registered, say). In that last case the library stays loaded, keeping what it did register,
   * but no module is returned, and loading it again fails the same way.
   */
  static Module LoadFromFile(const String& path) {
    static Function load = Function::GetGlobalRequired("ffi.Module.load_from_file.so");
    return load(path, String("")).cast<Module>();
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_MODULE_H_
