// Python <-> TVMFFIAny values (convert.cc), owned and viewed, and the int conversions every
// path shares.
#ifndef FFI_PYTHON_CONVERT_H_
#define FFI_PYTHON_CONVERT_H_

#include <Python.h>
#include <ffi/ffi.h>

#include "classify.h"

namespace tvm::ffi::python {

/*!
 * \brief Converts a Python value to an owned ABI value (for results of Python callbacks and
 * values stored by C++). False with a Python error when it cannot be converted.
 */
bool ToOwnedAny(PyObject* value, TVMFFIAny* out);
/*! \brief ToOwnedAny for a value already classified as `c`. */
bool ToOwnedAny(PyObject* value, Classified c, TVMFFIAny* out);
/*!
 * \brief Converts an owned ABI value to Python, consuming it (also on failure). Returns NULL
 * with a Python error when the value cannot be represented.
 */
PyObject* ToPython(TVMFFIAny* owned);
/*!
 * \brief ToPython, with tensors converted to the framework of `tensor_api` (when not NULL), and
 * containers remembering it so that the tensors read from them convert too.
 */
PyObject* ToPython(TVMFFIAny* owned, const DLPackExchangeAPI* tensor_api);
/*! \brief Releases an owned ABI value that will not be converted. */
inline void ReleaseAny(TVMFFIAny* owned) {
  if (owned->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(owned->v_obj);
  owned->type_index = kTVMFFINone;
}

/*! \brief Why a Python int did not convert: it is outside int64 (every conversion says so). */
inline constexpr const char* kIntOutOfRange =
    "the integer does not fit in 64 bits (outside the int64 range)";

/*!
 * \brief The value of an exact int that fits one internal digit (nearly every int a call passes),
 * read inline; false for any other int (then PyLong_AsLongLongAndOverflow reads it).
 */
inline bool SmallIntValue(PyObject* v, long long* out) {
#if PY_VERSION_HEX >= 0x030C0000
  auto* l = reinterpret_cast<PyLongObject*>(v);
  if (!PyUnstable_Long_IsCompact(l)) return false;
  *out = static_cast<long long>(PyUnstable_Long_CompactValue(l));
#else
  Py_ssize_t size = Py_SIZE(v);
  if (size < -1 || size > 1) return false;
  *out = size * static_cast<long long>(reinterpret_cast<PyLongObject*>(v)->ob_digit[0]);
#endif
  return true;
}
/*!
 * \brief An int (exact or a subclass) as int64; false with an OverflowError saying kIntOutOfRange
 * when it does not fit (or the error reading it raised).
 */
inline bool Int64Of(PyObject* v, long long* out) {
  if (Py_TYPE(v) == &PyLong_Type && SmallIntValue(v, out)) return true;
  int overflow = 0;
  *out = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow != 0) {
    PyErr_SetString(PyExc_OverflowError, kIntOutOfRange);
    return false;
  }
  return !(*out == -1 && PyErr_Occurred());
}

/*! \brief IntToAny for an int that is not a small exact one (see IntToAny). */
bool IntToAnySlow(PyObject* value, TVMFFIAny* out);
/*!
 * \brief A Python int (or subclass) as an owned Any: an Int, or beyond int64 a BigInt object (a
 * new reference in `out`); false with a Python error. Inline: containers convert every element.
 */
inline bool IntToAny(PyObject* value, TVMFFIAny* out) {
  long long v = 0;
  if (Py_TYPE(value) == &PyLong_Type && SmallIntValue(value, &v)) {  // nearly every int
    out->type_index = kTVMFFIInt;
    out->v_int64 = v;
    return true;
  }
  return IntToAnySlow(value, out);
}
/*! \brief Adds convert; false with a Python error. */
bool AddConvertFunctions(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_CONVERT_H_
