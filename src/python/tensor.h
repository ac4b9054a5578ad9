// ffi.Tensor and ffi.Shape (tensor.cc): the layout, the types, and making them.
#ifndef FFI_PYTHON_TENSOR_H_
#define FFI_PYTHON_TENSOR_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "objects.h"

namespace tvm::ffi::python {

/*! \brief Layout of ffi.Tensor: an object plus what Python knows of its memory. */
struct PyTensor {
  PyObj base;
  bool read_only;  // imported from a read-only producer: refused as a kernel argument
};

/*! \brief ffi.Tensor (created by InitTensorType). */
extern PyTypeObject* TensorType;
/*!
 * \brief The class tensors arrive as from calls and conversions: TensorType unless the package set
 * a subclass (ffi.core._set_class_tensor).
 */
extern std::atomic<PyTypeObject*> TensorClass;

/*! \brief Whether `obj`, an ffi.Object holding `handle`, is an ffi.Tensor marked read-only. */
inline bool IsReadOnlyTensor(PyObject* obj, const TVMFFIObject* handle) {
  return handle->type_index == kTVMFFITensor && PyObject_TypeCheck(obj, TensorType) &&
         reinterpret_cast<PyTensor*>(obj)->read_only;
}

/*! \brief Creates the Tensor type. */
bool InitTensorType(PyObject* module);
/*! \brief A new ffi.Tensor owning `handle` (steals it, also on failure). */
PyObject* WrapTensor(TVMFFIObject* handle, bool read_only);
/*! \brief A new ffi.Shape (a plain tuple before the package registers the class). */
PyObject* NewShape(const int64_t* dims, size_t n);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_TENSOR_H_
