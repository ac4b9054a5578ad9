// Shared declarations of the Python extension `ffi._core`.
//
// The types on the call path (Object, Function, Tensor, dtype, Device) are plain CPython types so
// that a call is one vectorcall with no binding layer in between; nanobind builds the module and
// binds the rest. Values cross between Python and the ABI only through convert.cc.
#ifndef FFI_PYTHON_CORE_H_
#define FFI_PYTHON_CORE_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <string>

namespace ffi {
namespace python {

/*! \brief Layout of ffi.Object and its subclasses: one owned reference to an ABI object. */
struct PyObj {
  PyObject_HEAD TVMFFIObject* handle;
  PyObject* weakrefs;
};

/*! \brief Layout of ffi.Function: an object plus its vectorcall entry and a name for errors. */
struct PyFunc {
  PyObj base;
  vectorcallfunc vectorcall;
  PyObject* name;  // str or NULL
  PyObject* dict;  // attributes, e.g. the signature metadata a module provides
};

/*! \brief Layout of ffi.dtype: a DLDataType. */
struct PyDType {
  PyObject_HEAD DLDataType dtype;
};

/*! \brief Layout of ffi.Device: a DLDevice. */
struct PyDevice {
  PyObject_HEAD DLDevice device;
};

extern PyTypeObject* ObjectType;
extern PyTypeObject* FunctionType;
extern PyTypeObject* TensorType;
extern PyTypeObject* DTypeType;
extern PyTypeObject* DeviceType;

// ---- objects.cc ----------------------------------------------------------------------------
/*! \brief Creates the Object and Function types; false with a Python error on failure. */
bool InitObjectTypes(PyObject* module);
/*! \brief Adds `type` to `module` as `name`. */
bool AddType(PyObject* module, const char* name, PyTypeObject* type);
/*! \brief A new Python object of `type` owning `handle` (steals the reference). */
PyObject* WrapObject(PyTypeObject* type, TVMFFIObject* handle);
/*! \brief The Python class for objects of `type_index` (registered, or ffi.Object). */
PyTypeObject* ClassForTypeIndex(int32_t type_index);
/*! \brief Registers the Python class used for objects of `type_index`. */
void RegisterClass(int32_t type_index, PyTypeObject* cls);
/*! \brief A Function object calling the Python callable `fn` (new reference). */
TVMFFIObject* FunctionFromCallable(PyObject* fn);
/*! \brief Sets the name ffi.Function shows in errors and repr. */
void SetFunctionName(PyObject* func, PyObject* name);

// ---- convert.cc ----------------------------------------------------------------------------
/*!
 * \brief Converts an owned ABI value to Python, consuming it. Returns NULL with a Python error
 * when the value cannot be represented.
 */
PyObject* ToPython(TVMFFIAny* owned);
/*! \brief Converts a borrowed ABI value (a callback argument) to Python. */
PyObject* ViewToPython(const TVMFFIAny* view);
/*!
 * \brief Converts a Python value to an owned ABI value (for results of Python callbacks and
 * values stored by C++). False with a Python error when it cannot be converted.
 */
bool ToOwnedAny(PyObject* value, TVMFFIAny* out);
/*! \brief Raises the Python exception for a failed ABI call returning `rc`; returns NULL. */
PyObject* RaiseFromFFI(int rc);
/*! \brief Turns the pending Python exception into the thread's raised ABI error; returns -1. */
int SetFFIErrorFromPython();
/*! \brief Calls a Function object with Python arguments. */
PyObject* CallFunction(TVMFFIObject* func, PyObject* name, PyObject* const* args, Py_ssize_t n);
/*! \brief Registers the exception class for an error kind. */
void RegisterErrorClass(const std::string& kind, PyObject* cls);

// ---- tensor.cc -----------------------------------------------------------------------------
/*! \brief Creates the Tensor, dtype and Device types. */
bool InitTensorTypes(PyObject* module);
/*! \brief A new ffi.dtype. */
PyObject* NewDType(DLDataType dtype);
/*! \brief A new ffi.Device. */
PyObject* NewDevice(DLDevice device);
/*! \brief A new ffi.Shape (a plain tuple before ffi.api registers the class) of `n` extents. */
PyObject* NewShape(const int64_t* dims, size_t n);

/*! \brief The DLPack exchange API of `type` (cached per type), or NULL when it has none. */
const DLPackExchangeAPI* ExchangeAPIOf(PyTypeObject* type);
/*! \brief Whether `obj` is a NumPy array the fast path can describe; fills `out` (strides into
 * `strides_buf`, which must hold `out->ndim` entries) and returns false otherwise. */
bool NumpyArrayView(PyObject* obj, DLTensor* out, int64_t* strides_buf, int32_t strides_cap);
/*! \brief An owned Tensor object for any DLPack producer (`obj.__dlpack__`); NULL with a Python
 * error on failure. */
TVMFFIObject* TensorFromDLPackProducer(PyObject* obj, int32_t require_alignment,
                                       bool require_contiguous);

/*! \brief Borrowed Python string as UTF-8 (cached by Python) or NULL with an error. */
inline const char* Utf8(PyObject* s, Py_ssize_t* size) { return PyUnicode_AsUTF8AndSize(s, size); }

/*!
 * \brief Copies the text of `text` (a new reference to a str, or NULL after a failed call, which
 * this consumes) into `out`; false with a Python error when there is no text.
 */
inline bool TakeText(PyObject* text, std::string* out) {
  if (text == nullptr) return false;
  Py_ssize_t n = 0;
  const char* s = Utf8(text, &n);
  if (s != nullptr) out->assign(s, static_cast<size_t>(n));
  Py_DECREF(text);
  return s != nullptr;
}

}  // namespace python
}  // namespace ffi

#endif  // FFI_PYTHON_CORE_H_
