// Python -> C++ calls (call.cc): argument packing, the borrowed-tensor pool, the GIL.
#ifndef FFI_PYTHON_CALL_H_
#define FFI_PYTHON_CALL_H_

#include <Python.h>
#include <ffi/ffi.h>

namespace tvm::ffi::python {

/*!
 * \brief Calls a Function object with Python arguments, releasing the GIL around the call
 * unless `keep_gil`; `name` (or NULL) names the function in errors.
 */
PyObject* CallFunction(TVMFFIObject* func, PyObject* name, PyObject* const* args, Py_ssize_t n,
                       bool keep_gil = false);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_CALL_H_
