// ffi.core.CAny, an owned ABI value (cany.cc).
#ifndef FFI_PYTHON_CANY_H_
#define FFI_PYTHON_CANY_H_

#include <Python.h>

namespace tvm {
namespace ffi {
namespace python {

/*! \brief Creates ffi.core.CAny (an owned ABI value) and _to_py_class_value. */
bool InitCAnyType(PyObject* module);

}  // namespace python
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_PYTHON_CANY_H_
