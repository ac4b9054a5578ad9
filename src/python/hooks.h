// The Python-level behaviour the package registers (module.cc, `_core._set_hooks`).
#ifndef FFI_PYTHON_HOOKS_H_
#define FFI_PYTHON_HOOKS_H_

#include <Python.h>

#include <atomic>

namespace tvm::ffi::python {

/*!
 * \brief Python-level behaviour the package provides, set by `_core._set_hooks` (the Hooks' own
 * references; NULL until set). Atomic: calls on other threads read them (free-threaded Python).
 */
struct Hooks {
  std::atomic<PyObject*> module_loaded{nullptr};  // f(module): called when a Module arrives
  std::atomic<PyObject*> signature_from_metadata{nullptr};  // f(metadata dict) -> Signature
  std::atomic<PyObject*> global_metadata{nullptr};  // f(function, metadata str): names parameters
};
/*! \brief The registered hooks. */
Hooks& GetHooks();

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_HOOKS_H_
