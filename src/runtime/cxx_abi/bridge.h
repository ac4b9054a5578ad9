/*
 * src/runtime/cxx_abi/bridge.h - private to the runtime: the few calls between the translation
 * units that declare the reference's C++ classes (cxx_abi/, which must never include this
 * project's headers: both name tvm::ffi::String, Any, ...) and the rest of the runtime. Only C
 * types cross it; errors cross as the C ABI's raised error (0 on success, -1 with it raised).
 */
#ifndef FFI_SRC_RUNTIME_CXX_ABI_BRIDGE_H_
#define FFI_SRC_RUNTIME_CXX_ABI_BRIDGE_H_

#include <ffi/c_api.h>

namespace tvm {
namespace ffi {
namespace runtime {

// Implemented by the runtime's modules (module.cc), on any module object (header address), for
// the reference's out-of-line ModuleObj methods that cxx_abi/module_obj.cc exports.

/*! \brief ModuleObj::GetFunction(name, query_imports): a Function or None in `out`. */
int ModuleBridgeGetFunction(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                            TVMFFIAny* out);
/*! \brief ModuleObj::ImplementsFunction(name, query_imports). */
int ModuleBridgeImplementsFunction(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                                   int* out);
/*! \brief ModuleObj::GetFunctionDoc(name, query_imports): a String or None in `out`. */
int ModuleBridgeGetFunctionDoc(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                               TVMFFIAny* out);
/*! \brief ModuleObj::GetFunctionMetadata(name, query_imports): a String or None in `out`. */
int ModuleBridgeGetFunctionMetadata(TVMFFIObject* mod, const TVMFFIAny* name, int query_imports,
                                    TVMFFIAny* out);
/*! \brief ModuleObj::ImportModule(other), the base implementation. */
int ModuleBridgeImport(TVMFFIObject* mod, TVMFFIObject* other);
/*! \brief ModuleObj::ClearImports(), the base implementation. */
int ModuleBridgeClearImports(TVMFFIObject* mod);
/*! \brief Module::VisitContextSymbols: `visit(context, name, symbol)` for every symbol hosts
 * registered with TVMFFIEnvModRegisterContextSymbol. */
int ModuleBridgeVisitContextSymbols(void (*visit)(void* context, const char* name, void* symbol),
                                    void* context);

// Implemented by cxx_abi/module_obj.cc, for the rest of the runtime: the virtual functions of a
// client's module (one whose class derives from the reference's ModuleObj, not from this runtime's
// ModuleBase), called through the reference's class. `mod` is the module's header address; string
// arguments and results are String values, one TVMFFIAny each; results are owned. An Error the
// module throws arrives as the raised error (-1); any other exception passes through unchanged.

/*! \brief ModuleObj::kind(). */
int ClientModuleKind(TVMFFIObject* mod, const char** out);
/*! \brief ModuleObj::GetPropertyMask(). */
int ClientModuleGetPropertyMask(TVMFFIObject* mod, int* out);
/*! \brief ModuleObj::GetFunction(name): a function object, or null for none. */
int ClientModuleGetFunction(TVMFFIObject* mod, const TVMFFIAny* name, TVMFFIObject** out);
/*! \brief ModuleObj::ImplementsFunction(name). */
int ClientModuleImplementsFunction(TVMFFIObject* mod, const TVMFFIAny* name, int* out);
/*! \brief ModuleObj::GetFunctionDoc(name): a String or None. */
int ClientModuleGetFunctionDoc(TVMFFIObject* mod, const TVMFFIAny* name, TVMFFIAny* out);
/*! \brief ModuleObj::GetFunctionMetadata(name): a String or None. */
int ClientModuleGetFunctionMetadata(TVMFFIObject* mod, const TVMFFIAny* name, TVMFFIAny* out);
/*! \brief ModuleObj::WriteToFile(file_name, format). */
int ClientModuleWriteToFile(TVMFFIObject* mod, const TVMFFIAny* file_name, const TVMFFIAny* format);
/*! \brief ModuleObj::GetWriteFormats(): an array object. */
int ClientModuleGetWriteFormats(TVMFFIObject* mod, TVMFFIObject** out);
/*! \brief ModuleObj::SaveToBytes(): a Bytes value. */
int ClientModuleSaveToBytes(TVMFFIObject* mod, TVMFFIAny* out);
/*! \brief ModuleObj::InspectSource(format): a String. */
int ClientModuleInspectSource(TVMFFIObject* mod, const TVMFFIAny* format, TVMFFIAny* out);
/*! \brief ModuleObj::ImportModule(other). */
int ClientModuleImportModule(TVMFFIObject* mod, TVMFFIObject* other);
/*! \brief ModuleObj::ClearImports(). */
int ClientModuleClearImports(TVMFFIObject* mod);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_CXX_ABI_BRIDGE_H_
