// The Python-level behaviour the package registers (module.cc, `_core._set_hooks`).
#ifndef FFI_PYTHON_HOOKS_H_
#define FFI_PYTHON_HOOKS_H_

#include <Python.h>

namespace tvm::ffi::python {

/*!
 * \brief Python-level behaviour the package provides, set by `_core._set_hooks` (borrowed
 * references; NULL until set).
 */
struct Hooks {
  PyObject* module_loaded = nullptr;            // f(module): called when a Module arrives
  PyObject* signature_from_metadata = nullptr;  // f(metadata dict) -> inspect.Signature
  PyObject* global_metadata = nullptr;          // f(function, metadata str): names its parameters
};
/*! \brief The registered hooks. */
Hooks& GetHooks();

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_HOOKS_H_
