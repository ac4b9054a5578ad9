// ffi.dtype and ffi.Device (dtype_device.cc): their layouts, types and constructors.
#ifndef FFI_PYTHON_DTYPE_DEVICE_H_
#define FFI_PYTHON_DTYPE_DEVICE_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <atomic>

namespace tvm::ffi::python {

/*!
 * \brief Layout of ffi.dtype: a str (the text it was made from, or the canonical name) and the
 * DLDataType it names. A str subclass as in the reference: NumPy and dict keys take it as text.
 */
struct PyDType {
  PyUnicodeObject text;
  DLDataType dtype;
};

/*! \brief Layout of ffi.Device: a DLDevice. */
struct PyDevice {
  PyObject_HEAD DLDevice device;
};

/*! \brief ffi.dtype (created by InitDTypeDeviceTypes). */
extern PyTypeObject* DTypeType;
/*! \brief ffi.Device (created by InitDTypeDeviceTypes). */
extern PyTypeObject* DeviceType;
/*!
 * \brief The classes dtypes and devices arrive as from calls and conversions: DTypeType and
 * DeviceType unless the package set subclasses (ffi.core._set_class_dtype, ...).
 */
extern std::atomic<PyTypeObject*> DTypeClass;
/*! \brief See DTypeClass. */
extern std::atomic<PyTypeObject*> DeviceClass;

/*! \brief Creates the dtype and Device types. */
bool InitDTypeDeviceTypes(PyObject* module);
/*!
 * \brief A DTypeClass naming `dtype` by its canonical name (new reference to a shared one).
 */
PyObject* NewDType(DLDataType dtype);
/*!
 * \brief The element type `spec` names: an ffi.dtype, a str, a numpy.dtype, a torch.dtype or a
 * scalar type (np.float32). False with ValueError (or the error str() raised) otherwise.
 */
bool DTypeFromPython(PyObject* spec, DLDataType* out);
/*! \brief A new DeviceClass. */
PyObject* NewDevice(DLDevice device);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_DTYPE_DEVICE_H_
