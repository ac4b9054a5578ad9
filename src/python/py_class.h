// The functions behind ffi.dataclasses.py_class (py_class.cc).
#ifndef FFI_PYTHON_PY_CLASS_H_
#define FFI_PYTHON_PY_CLASS_H_

#include <Python.h>

namespace tvm::ffi::python {

/*! \brief Adds the functions behind ffi.dataclasses.py_class. */
bool InitPyClass(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_PY_CLASS_H_
