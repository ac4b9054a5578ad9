/*
 * src/runtime/cxx_abi/bridge.h - private to the runtime: the few calls between the translation
 * units that declare the reference's C++ classes (cxx_abi/, which must never include this
 * project's headers: both name tvm::ffi::String, Any, ...) and the rest of the runtime. Only C
 * types cross it; errors cross as the C ABI's raised error (0 on success, -1 with it raised).
 */
#ifndef FFI_SRC_RUNTIME_CXX_ABI_BRIDGE_H_
#define FFI_SRC_RUNTIME_CXX_ABI_BRIDGE_H_

#include <ffi/c_api.h>

#include <exception>

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

// Implemented by cxx_abi/, for the rest of the runtime.

/*!
 * \brief When `e` is the reference's Error class (thrown by a client's code built with the
 * reference's headers, e.g. a module's virtual function), a new reference to its error object;
 * otherwise null.
 */
TVMFFIObject* CxxAbiTakeErrorObject(const std::exception* e);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_CXX_ABI_BRIDGE_H_
