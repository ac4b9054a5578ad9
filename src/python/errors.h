// FFI errors <-> Python exceptions (errors.cc).
#ifndef FFI_PYTHON_ERRORS_H_
#define FFI_PYTHON_ERRORS_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <string>

#include "nb_module.h"

namespace tvm::ffi::python {

/*! \brief Raises the Python exception for a failed ABI call returning `rc`; returns NULL. */
PyObject* RaiseFromFFI(int rc);
/*!
 * \brief PyErr_Format that keeps a MemoryError: when the message cannot be built (it quotes a str
 * too large to copy), the MemoryError is what is raised. CPython 3.9 and 3.10 raise `type` with no
 * message then. Returns NULL.
 */
PyObject* RaiseFormatted(PyObject* type, const char* format, ...);
/*! \brief Drops the error a failed ABI call raised, where failing is an expected answer. */
void ClearRaisedFFIError();
/*!
 * \brief An Error object for a Python exception (its class name as the kind, its str as the
 * message); NULL with a Python error when it cannot be made. With `carry`, for an exception raised
 * through C++, the exception itself rides along so Python gets it back unchanged. An exception
 * passed as a value is not carried: the Error value would often sit in a frame the exception's
 * own traceback reaches, a cycle through C++ that Python's collector cannot see.
 */
TVMFFIObject* ErrorFromException(PyObject* exc, bool carry);

/*! \brief The Python exception an FFI error stands for (new reference; nullptr with a Python error
 * set on failure): the exception it carries when it came from Python, else one of the class
 * registered for its kind with the message and the C++ frames as a note. */
PyObject* ExceptionFromError(const ffi::Error& error);
/*! \brief Turns the pending Python exception into the thread's raised ABI error; returns -1. */
int SetFFIErrorFromPython();
/*! \brief Registers the exception class for an error kind (replacing any earlier one). */
void RegisterErrorClass(const std::string& kind, PyObject* cls);
/*! \brief Adds register_error, _error_parts, _error_to_exception and _make_error. */
void BindErrorFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_ERRORS_H_
