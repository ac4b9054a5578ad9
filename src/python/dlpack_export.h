// ffi.Tensor's DLPack exchange API; tensor results as framework tensors (dlpack_export.cc).
#ifndef FFI_PYTHON_DLPACK_EXPORT_H_
#define FFI_PYTHON_DLPACK_EXPORT_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <atomic>

#include "nb_module.h"

namespace tvm::ffi::python {

/*! \brief ffi.Tensor's own exchange API (a static table, valid for the process's lifetime). */
const DLPackExchangeAPI* TensorExchangeAPI();
/*!
 * \brief Whether tensor results of calls that received framework tensors come back as that
 * framework's tensors (the default) or as ffi.Tensor; see set_tensor_results().
 */
extern std::atomic<bool> framework_tensor_results;
/*!
 * \brief The tensor `handle` as a tensor of the framework of `api`, zero-copy (steals the
 * reference, also on failure): the producer's own DLPack tensor when `handle` was its only owner
 * and the runtime can hand it back, else an export. Falls back to ffi.Tensor when the framework
 * cannot take it; NULL with an error only when it released a tensor it refused.
 */
PyObject* TensorToFramework(TVMFFIObject* handle, const DLPackExchangeAPI* api);
/*! \brief Adds set_tensor_results and Tensor.__dlpack_c_exchange_api__. */
bool InitDLPackExport(PyObject* module);
/*! \brief Adds _tensor_as. */
void BindDLPackExportFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_DLPACK_EXPORT_H_
