// What the nanobind-bound functions share: the C-level helpers' NULL-with-error results turned
// into the exception nanobind raises.
#ifndef FFI_PYTHON_NB_CHECK_H_
#define FFI_PYTHON_NB_CHECK_H_

#include <Python.h>
#include <nanobind/nanobind.h>

namespace tvm::ffi::python {

/*! \brief Turns a NULL-with-error result of the C-level helpers into a nanobind exception. */
inline nanobind::object Check(PyObject* result) {
  if (result == nullptr) throw nanobind::python_error();
  return nanobind::steal(result);
}

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_NB_CHECK_H_
