// The ABI's constants as read-only tables (abi_constants.cc).
#ifndef FFI_PYTHON_ABI_CONSTANTS_H_
#define FFI_PYTHON_ABI_CONSTANTS_H_

#include <Python.h>

namespace tvm {
namespace ffi {
namespace python {

/*! \brief Adds the ABI's constants (type indices, flags, DLPack codes, ...) as read-only tables. */
bool InitAbiConstants(PyObject* module);

}  // namespace python
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_PYTHON_ABI_CONSTANTS_H_
