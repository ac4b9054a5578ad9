// Tensors from NumPy, the DLPack exchange API and any __dlpack__ producer (dlpack_import.cc).
#ifndef FFI_PYTHON_DLPACK_IMPORT_H_
#define FFI_PYTHON_DLPACK_IMPORT_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <cstdint>

#include "classify.h"

namespace tvm::ffi::python {

/*!
 * \brief Fills `out` with a view of the NumPy array `obj` (the caller checked its type). Shape
 * and strides are copied into `dims` (which must hold `cap` entries). False when the array has
 * no DLPack form (dtype, byte order, byte strides) or more than `cap` dimensions.
 */
bool NumpyArrayView(PyObject* obj, DLTensor* out, int64_t* dims, int32_t cap);
/*! \brief Whether the NumPy array `obj` is writeable. */
bool NumpyArrayWriteable(PyObject* obj);
/*!
 * \brief Compact row-major strides of the `ndim` extents `shape`, into `out`. Tensors the
 * extension hands to kernels always carry strides: DLPack 1.2 forbids null ones, and the
 * reference's TensorView::strides() refuses them. (A zero extent makes later strides
 * meaningless; they wrap instead of overflowing.)
 */
inline void FillCompactStrides(const int64_t* shape, int32_t ndim, int64_t* out) {
  uint64_t stride = 1;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    out[i] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(shape[i] > 0 ? shape[i] : 1);
  }
}
/*!
 * \brief What converting a container argument of a call (a list, a dict, ...) on this thread must
 * know and learns. A call clears `api` and sets `in_call` before converting one, and clears
 * `in_call` after; other conversions (ffi.Array(...), field values) run with it false.
 */
struct ContainerArgument {
  /*!
   * \brief The first framework tensor (one exported through a DLPack exchange API) met: tensors
   * nested in lists and dicts make the call's results arrive in their framework as a tensor
   * argument does.
   */
  const DLPackExchangeAPI* api = nullptr;
  /*! \brief That tensor's device. */
  DLDevice device{};
  /*! \brief Read-only tensors are refused, as they are as arguments themselves. */
  bool in_call = false;
};
extern thread_local ContainerArgument container_argument;
/*!
 * \brief An owned Tensor object for any DLPack producer, with `read_only` set when the producer
 * marked it so; NULL with a Python error on failure.
 */
TVMFFIObject* TensorFromDLPackProducer(PyObject* obj, Classified c, int32_t require_alignment,
                                       bool require_contiguous, bool* read_only);
/*!
 * \brief After a refused import (its error raised by the runtime): raises it and frees the tensor,
 * which a refusal leaves to the caller. Its deleter may run Python code, so the import's exception
 * is set aside meanwhile. Returns NULL.
 */
TVMFFIObject* ReleaseRefused(DLManagedTensorVersioned* tensor);
/*! \brief Adds from_dlpack; false with a Python error. */
bool AddDLPackImportFunctions(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_DLPACK_IMPORT_H_
