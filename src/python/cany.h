// ffi.core.CAny, an owned ABI value (cany.cc).
#ifndef FFI_PYTHON_CANY_H_
#define FFI_PYTHON_CANY_H_

#include <Python.h>

namespace tvm::ffi::python {

/*! \brief Creates ffi.core.CAny (an owned ABI value) and _to_py_class_value. */
bool InitCAnyType(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_CANY_H_
