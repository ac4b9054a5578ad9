// Reading the arguments of METH_FASTCALL functions (arguments.cc).
#ifndef FFI_PYTHON_ARGUMENTS_H_
#define FFI_PYTHON_ARGUMENTS_H_

#include <Python.h>

namespace tvm::ffi::python {

/*!
 * \brief Binds the arguments of a METH_FASTCALL | METH_KEYWORDS function `name` to its `nparams`
 * parameters `names`: the first `npositional` may come by position, every one by keyword, and the
 * first `nrequired` must come. `out[i]` is the argument of parameter i (borrowed), or NULL when
 * omitted. False with the TypeError Python gives for such a call.
 */
bool BindArguments(const char* name, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames,
                   const char* const* names, int nparams, int npositional, int nrequired,
                   PyObject** out);
/*!
 * \brief Reads an int that must fit in [lo, hi]; false with OverflowError (out of range) or
 * TypeError (not an int) naming `what`.
 */
bool IntInRange(PyObject* value, long long lo, long long hi, const char* what, long long* out);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_ARGUMENTS_H_
