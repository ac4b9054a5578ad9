// The ABI's constants as read-only tables (abi_constants.cc).
#ifndef FFI_PYTHON_ABI_CONSTANTS_H_
#define FFI_PYTHON_ABI_CONSTANTS_H_

#include <Python.h>

namespace tvm::ffi::python {

/*! \brief Adds the ABI's constants (type indices, flags, DLPack codes, ...) as read-only tables. */
bool InitAbiConstants(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_ABI_CONSTANTS_H_
