// ffi._Field, the descriptor of a reflected field (fields.cc).
#ifndef FFI_PYTHON_FIELDS_H_
#define FFI_PYTHON_FIELDS_H_

#include <Python.h>
#include <ffi/ffi.h>

namespace tvm::ffi::python {

/*! \brief A new ffi._Field descriptor for `info`, a field of the type `owner`. */
PyObject* NewField(const TVMFFIFieldInfo& info, const TVMFFITypeInfo* owner);
/*! \brief Creates ffi._Field and adds it to the module. */
bool InitFieldType(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_FIELDS_H_
