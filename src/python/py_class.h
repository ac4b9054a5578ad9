// The functions behind ffi.dataclasses.py_class (py_class.cc).
#ifndef FFI_PYTHON_PY_CLASS_H_
#define FFI_PYTHON_PY_CLASS_H_

#include <Python.h>

namespace tvm {
namespace ffi {
namespace python {

/*! \brief Adds the functions behind ffi.dataclasses.py_class. */
bool InitPyClass(PyObject* module);

}  // namespace python
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_PYTHON_PY_CLASS_H_
