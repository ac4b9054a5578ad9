// Objects of the reference's package (tvm_ffi) in our calls, ours in its (foreign.cc).
#ifndef FFI_PYTHON_FOREIGN_H_
#define FFI_PYTHON_FOREIGN_H_

#include <Python.h>
#include <ffi/ffi.h>

namespace tvm::ffi::python {

/*! \brief The FFI object a kForeign value holds (a new reference), or NULL with a Python error. */
TVMFFIObject* ForeignObjectHandle(PyObject* obj);
/*!
 * \brief ffi.Object.__tvm_ffi_object__(): the same FFI object as a tvm_ffi object (the protocol
 * tvm_ffi's calls and type converters use for values standing for an object).
 */
PyObject* ObjectToReference(PyObject* self, PyObject*);
/*! \brief Registers the global ObjectToReference calls; false with a Python error. */
bool InitForeignObjects();

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_FOREIGN_H_
