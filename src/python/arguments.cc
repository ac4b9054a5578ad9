// Reading the arguments of METH_FASTCALL functions: keyword binding and ranged ints.

#include "arguments.h"

#include <Python.h>

namespace tvm::ffi::python {

bool BindArguments(const char* name, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames,
                   const char* const* names, int nparams, int npositional, int nrequired,
                   PyObject** out) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  for (int i = 0; i < nparams; ++i) out[i] = nullptr;
  if (n > npositional) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional argument%s (%zd given)", name,
                 npositional, npositional == 1 ? "" : "s", n);
    return false;
  }
  for (Py_ssize_t i = 0; i < n; ++i) out[i] = args[i];
  Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    int slot = 0;
    while (slot < nparams && PyUnicode_CompareWithASCIIString(key, names[slot]) != 0) ++slot;
    if (slot == nparams) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", name, key);
      return false;
    }
    if (out[slot] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                   names[slot]);
      return false;
    }
    out[slot] = args[n + i];
  }
  for (int i = 0; i < nrequired; ++i) {
    if (out[i] == nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", name, names[i],
                   i + 1);
      return false;
    }
  }
  return true;
}

bool IntInRange(PyObject* value, long long lo, long long hi, const char* what, long long* out) {
  if (!PyLong_Check(value) && !PyIndex_Check(value)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not `%s`", what, Py_TYPE(value)->tp_name);
    return false;
  }
  PyObject* index = PyNumber_Index(value);
  if (index == nullptr) return false;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) return false;
  if (overflow != 0 || v < lo || v > hi) {
    PyErr_Format(PyExc_OverflowError, "%s must be in [%lld, %lld]", what, lo, hi);
    return false;
  }
  *out = v;
  return true;
}

}  // namespace tvm::ffi::python
