// C++ -> Python calls (callback.cc): Python callables and C symbols as FFI functions, and
// OpaquePyObject, the FFI object holding any Python object.
#ifndef FFI_PYTHON_CALLBACK_H_
#define FFI_PYTHON_CALLBACK_H_

#include <Python.h>
#include <ffi/ffi.h>

#include "nb_module.h"

namespace tvm::ffi::python {

/*! \brief A Function object calling the Python callable `fn` (new reference), or NULL. */
TVMFFIObject* FunctionFromCallable(PyObject* fn);
/*!
 * \brief An OpaquePyObject holding a reference to `obj` (released from any thread when the object
 * dies); converting it back to Python gives `obj` itself. NULL with a Python error on failure.
 */
TVMFFIObject* NewOpaquePyObject(PyObject* obj);
/*!
 * \brief Gives OpaquePyObject map-key hooks (`__any_hash__`, `__any_equal__`) that use the held
 * objects' Python hash and ==, so that a key the container API holds in one is found again.
 */
void InitOpaqueKeyHooks();
/*!
 * \brief A Function calling C code at `address`: a TVMFFISafeCallType function (which ignores its
 * `self`), or with `mlir_packed` an MLIR packed-interface function `void(void**)`. The Function
 * holds a reference to `keep_alive` (NULL: none), e.g. the JIT engine owning the code.
 */
TVMFFIObject* FunctionFromCSymbol(void* address, PyObject* keep_alive, bool mlir_packed);
/*! \brief Adds _function_from_c_symbol, _convert_to_opaque_object and _opaque_pyobject. */
void BindCallbackFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_CALLBACK_H_
