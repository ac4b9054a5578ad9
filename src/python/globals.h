// Global functions and modules (globals.cc): the runtime's function registry and module
// loading.
#ifndef FFI_PYTHON_GLOBALS_H_
#define FFI_PYTHON_GLOBALS_H_

#include "nb_module.h"

namespace tvm::ffi::python {

/*!
 * \brief Adds get_global_func, remove_global_func, register_global_func, list_global_func_names,
 * load_module and module_get_function.
 */
void BindGlobalFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_GLOBALS_H_
