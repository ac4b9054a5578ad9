/*
 * src/runtime/module_abi.h - private to the runtime: the C++ shape every module object has, and
 * the module operations built on it (imports, lookups) that the global functions and the exported
 * C++ ABI (cxx_abi/) share.
 *
 * A module is an object of a class derived from the reference's `ModuleObj`: a vtable pointer in
 * front of the object header (the header itself is not polymorphic), twelve virtual functions in a
 * fixed order, then two fields (the imported modules and an import lookup cache). Clients built
 * with the reference's headers (Apache TVM, TileLang) subclass it and call its virtual functions
 * inline, on their modules and on ours. So this runtime's modules have that shape, and this
 * runtime reaches any module, its own or a client's, through it.
 *
 * `ModuleBase` is that shape in this runtime's types. Every parameter and result has the layout
 * and calling convention of the reference's type in the same place: String and Bytes are one
 * TVMFFIAny; an Optional<String> is one Any (None for nothing), which is why GetFunctionDoc and
 * GetFunctionMetadata return Any; Optional<Function>, Array, Map and Module are one pointer; all
 * are non-trivial, so results come back through a hidden pointer as the reference's do.
 * cxx_abi/module_obj.cc declares the same class under the reference's name and exports its vtable
 * and typeinfo, which clients' subclasses link against.
 *
 * The two are one layout but two classes: a client's module derives from the reference's, this
 * runtime's from ModuleBase, and a virtual call through the other class is undefined behaviour
 * (-fsanitize=vptr reports it). So the runtime reaches a module it did not make through
 * `ModuleView`, which calls this runtime's modules directly and a client's through cxx_abi/.
 */
#ifndef FFI_SRC_RUNTIME_MODULE_ABI_H_
#define FFI_SRC_RUNTIME_MODULE_ABI_H_

#include <ffi/any.h>
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/error.h>
#include <ffi/function.h>
#include <ffi/module.h>
#include <ffi/string.h>

#include <string>
#include <utility>

#include "cxx_abi/bridge.h"

namespace tvm {
namespace ffi {
namespace runtime {

/*! \brief The reference's module property bits (ModuleObj::GetPropertyMask). */
enum ModulePropertyMask : int {
  kModuleBinarySerializable = 0b001,
  kModuleRunnable = 0b010,
  kModuleCompilationExportable = 0b100,
};

/*! \brief The reference's ModuleObj, virtual functions in its order, in this runtime's types. */
class ModuleBase : public ModuleObj {
 public:
  ModuleBase() = default;
  ModuleBase(const ModuleBase&) = delete;
  ModuleBase& operator=(const ModuleBase&) = delete;

  /*! \brief The kind of module ("library", "system_lib", a client's kind). */
  virtual const char* kind() const = 0;
  /*! \brief ModulePropertyMask bits. */
  virtual int GetPropertyMask() const { return 0; }
  /*! \brief The function `name` of this module alone (imports not searched), or nothing. */
  virtual Optional<Function> GetFunction(const String& name) = 0;
  /*! \brief Whether GetFunction(name) finds something. */
  virtual bool ImplementsFunction(const String& name) { return GetFunction(name).has_value(); }
  /*! \brief The docstring of `name`: a String, or None. */
  virtual Any GetFunctionDoc(const String& /*name*/) { return Any(); }
  /*! \brief The metadata (JSON text) of `name`: a String, or None. */
  virtual Any GetFunctionMetadata(const String& /*name*/) { return Any(); }
  /*! \brief Writes the module to a file in `format`; RuntimeError where unsupported. */
  virtual void WriteToFile(const String& /*file_name*/, const String& /*format*/) const {
    FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support WriteToFile";
  }
  /*! \brief The formats WriteToFile accepts. */
  virtual Array<String> GetWriteFormats() const { return Array<String>(); }
  /*! \brief The module serialized; RuntimeError where unsupported. */
  virtual Bytes SaveToBytes() const {
    FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support SaveToBytes";
  }
  /*! \brief The module's source in `format`, or an empty string. */
  virtual String InspectSource(const String& /*format*/) const { return String(); }
  /*! \brief Appends `other` to the imports (ModuleImport in module.cc checks for cycles). */
  virtual void ImportModule(const Module& other);
  /*! \brief Drops every import. */
  virtual void ClearImports();

  /*! \brief Registers the reflected field `imports_` of every module, as the reference does (its
   * Python package reads a module's imports through it). */
  static void RegisterReflection();

 protected:
  Array<Any> imports_;
  /*! \brief What TVMFFIEnvModLookupFromImports found, by name: it owns the functions that call
   * lends (ModuleLookupFromImports, under module_base.cc's lock), as the reference's does. */
  Map<String, Function> import_lookup_cache_;

  friend class ModuleView;
};

static_assert(sizeof(Optional<Function>) == sizeof(void*), "Optional<Function> is one pointer");
static_assert(sizeof(String) == sizeof(TVMFFIAny) && sizeof(Bytes) == sizeof(TVMFFIAny) &&
                  sizeof(Any) == sizeof(TVMFFIAny),
              "String, Bytes and Any are one TVMFFIAny");
static_assert(sizeof(Array<Any>) == sizeof(void*) && sizeof(Map<String, Function>) == sizeof(void*),
              "Array and Map are one pointer");

/*!
 * \brief This runtime's own module whose object header is `header`, or null for a client's module
 * (module.cc tells them by the deleters of its module classes).
 */
ModuleBase* RuntimeModuleOf(TVMFFIObject* header);

/*!
 * \brief Any module, this runtime's or a client's, with the reference's ModuleObj interface: the
 * virtual functions run directly on this runtime's modules and through the reference's class
 * (cxx_abi/) on a client's, an Error the client's code throws arriving as this runtime's Error.
 * The fields are read by the shared layout. A view: it holds no reference to the module.
 */
class ModuleView {
 public:
  /*! \brief The module whose object header is `header` (not null). */
  explicit ModuleView(TVMFFIObject* header) : header_(header), own_(RuntimeModuleOf(header)) {}
  /*! \brief The module `mod` holds; ValueError for None. */
  explicit ModuleView(const Module& mod);
  /*!
   * \brief The module a `__tvm_ffi__library_ctx` value names (not null): the address of the
   * polymorphic module object (the reference's `ModuleObj*`, as it writes it and as a client's
   * modules, TVM's JIT ones among them, write themselves), the vtable pointer's, which comes
   * before the object header.
   */
  static ModuleView OfLibraryContext(void* ctx) {
    return ModuleView(reinterpret_cast<TVMFFIObject*>(static_cast<char*>(ctx) + sizeof(void*)));
  }

  /*! \brief The module's object header. */
  TVMFFIObject* header() const { return header_; }
  bool operator==(const ModuleView& other) const { return header_ == other.header_; }

  // The reference's ModuleObj virtual functions (ModuleBase documents each).
  const char* kind() const;
  int GetPropertyMask() const;
  Optional<Function> GetFunction(const String& name) const;
  bool ImplementsFunction(const String& name) const;
  Any GetFunctionDoc(const String& name) const;
  Any GetFunctionMetadata(const String& name) const;
  void WriteToFile(const String& file_name, const String& format) const;
  Array<String> GetWriteFormats() const;
  Bytes SaveToBytes() const;
  String InspectSource(const String& format) const;
  void ImportModule(const Module& other) const;
  void ClearImports() const;

  /*! \brief The field holding the imports (module_base.cc reads and writes it under its lock). */
  Array<Any>& imports() const { return own_ != nullptr ? own_->imports_ : fields()->imports; }
  /*! \brief The field holding what TVMFFIEnvModLookupFromImports found (module_base.cc). */
  Map<String, Function>& import_lookup_cache() const {
    return own_ != nullptr ? own_->import_lookup_cache_ : fields()->import_lookup_cache;
  }

 private:
  /*! \brief The fields every module has after its object header, in the reference's order. */
  struct FieldLayout {
    Array<Any> imports;
    Map<String, Function> import_lookup_cache;
  };
  FieldLayout* fields() const { return reinterpret_cast<FieldLayout*>(header_ + 1); }

  TVMFFIObject* header_;
  /*! \brief The module as this runtime's class, or null for a client's module. */
  ModuleBase* own_;
};

/*!
 * \brief The value a library's `__tvm_ffi__library_ctx` holds for this runtime's module `mod`
 * (ModuleView::OfLibraryContext reads it back).
 */
inline void* LibraryContext(ModuleBase* mod) { return mod; }

/*!
 * \brief The function `name` of `mod`, searching its imports (depth first, in import order) when
 * `query_imports` is set: the reference's ModuleObj::GetFunction(name, query_imports).
 */
Optional<Function> ModuleGetFunction(ModuleView mod, const String& name, bool query_imports);
/*! \brief Whether `mod` (or, with `query_imports`, an import) has the function `name`. */
bool ModuleImplementsFunction(ModuleView mod, const String& name, bool query_imports);
/*! \brief The docstring of `name` from the first module (imports after `mod`) that has one. */
Any ModuleGetFunctionDoc(ModuleView mod, const String& name, bool query_imports);
/*! \brief The metadata of `name` from the first module (imports after `mod`) that has one. */
Any ModuleGetFunctionMetadata(ModuleView mod, const String& name, bool query_imports);
/*! \brief The imports of `mod`, in import order (a snapshot: later imports do not change it). */
Array<Any> ModuleImports(ModuleView mod);
/*!
 * \brief The base ImportModule: makes `other` an import of `mod` (RuntimeError when it would
 * close a cycle).
 */
void ModuleImport(ModuleView mod, const Module& other);
/*! \brief The base ClearImports: drops every import of `mod`. */
void ModuleClearImports(ModuleView mod);
/*!
 * \brief TVMFFIEnvModLookupFromImports: the function `name` from the imports of `mod` (each with
 * its own imports, in import order), else the global function; RuntimeError when neither has it.
 * The module itself is not searched. The result is lent: `mod` keeps it (a null `mod`: the
 * process does), and the same name gives the same function from then on.
 */
TVMFFIObject* ModuleLookupFromImports(const ModuleView* mod, const String& name);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_MODULE_ABI_H_
