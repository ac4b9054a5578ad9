// ffi.Function (function.cc): its layout and type, keyword binding, signature metadata.
#ifndef FFI_PYTHON_FUNCTION_H_
#define FFI_PYTHON_FUNCTION_H_

#include <Python.h>

#include "nb_module.h"
#include "objects.h"

namespace tvm::ffi::python {

/*! \brief Layout of ffi.Function: an object plus its vectorcall entry and a name for errors. */
struct PyFunc {
  PyObj base;
  vectorcallfunc vectorcall;
  PyObject* name;          // str or NULL
  PyObject* dict;          // attributes, e.g. the signature metadata a module provides
  bool keep_gil;           // opt-in: call without releasing the GIL (see KeepGil)
  PyObject* arg_names;     // tuple of parameter names from the export, or NULL: no keywords
  PyObject* arg_defaults;  // tuple: defaults of the last len() parameters (with arg_names)
};

/*!
 * \brief Whether calls of `f` keep the GIL (Function.keep_gil). Read and written atomically: a
 * thread may set it while others call the same Function (free-threaded Python).
 */
inline bool KeepGil(const PyFunc* f) { return __atomic_load_n(&f->keep_gil, __ATOMIC_RELAXED); }
inline void SetKeepGil(PyFunc* f, bool keep) {
  __atomic_store_n(&f->keep_gil, keep, __ATOMIC_RELAXED);
}

/*! \brief ffi.Function (created by InitFunctionType). */
extern PyTypeObject* FunctionType;

/*!
 * \brief Creates the Function type, after InitObjectTypes (its base) and before InitReflection
 * (which derives its method type from it); false with a Python error on failure.
 */
bool InitFunctionType(PyObject* module);
/*! \brief The vectorcall of a Function holding a function (without parameter names). */
PyObject* FunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames);
/*! \brief Sets the name ffi.Function shows in errors and repr. */
void SetFunctionName(PyObject* func, PyObject* name);
/*!
 * \brief Gives a Function parameter names (a tuple of str) and the defaults of its last
 * parameters (a tuple), so that calls take keywords; false with a Python error for bad input.
 */
bool SetFunctionParams(PyObject* func, PyObject* names, PyObject* defaults);
/*! \brief Adds _set_function_params. */
void BindFunctionFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_FUNCTION_H_
