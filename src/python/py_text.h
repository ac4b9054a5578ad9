// Small inline helpers on Python references and text.
#ifndef FFI_PYTHON_PY_TEXT_H_
#define FFI_PYTHON_PY_TEXT_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <cstring>
#include <string>

#include "boundary.h"

namespace tvm::ffi::python {

/*! \brief A new reference to `o` (Py_NewRef is 3.10+). */
inline PyObject* NewRef(PyObject* o) {
  Py_INCREF(o);
  return o;
}
/*! \brief The text of `a` as a str (undecodable bytes kept as surrogates). */
inline PyObject* Str(const TVMFFIByteArray& a) {
  return PyUnicode_DecodeUTF8(a.data, static_cast<Py_ssize_t>(a.size), "surrogateescape");
}
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
  bool ok = s != nullptr;
  if (ok) {
    try {
      out->assign(s, static_cast<size_t>(n));
    }
    FFI_PY_CATCH(ok = false)  // MemoryError: a text too large to copy
  }
  Py_DECREF(text);
  return ok;
}

/*!
 * \brief Keeps the text signature of a type made by PyType_FromSpec from `doc`, a doc that begins
 * with it ("name(params)\n--\n\n..."), where inspect.signature reads it. CPython 3.9 copies the
 * doc without the signature (its __text_signature__ is None and inspect.signature(cls) fails);
 * there the whole doc is put back. __doc__, which the type's dict holds, stays without the
 * signature.
 */
inline bool KeepTextSignature(PyTypeObject* type, const char* doc) {
#if PY_VERSION_HEX < 0x030A0000
  size_t size = std::strlen(doc) + 1;
  // The type frees its doc with PyObject_Free.
  auto* copy = static_cast<char*>(PyObject_Malloc(size));
  if (copy == nullptr) {
    PyErr_NoMemory();
    return false;
  }
  std::memcpy(copy, doc, size);
  PyObject_Free(const_cast<char*>(type->tp_doc));
  type->tp_doc = copy;
  PyType_Modified(type);
#else
  (void)type;
  (void)doc;
#endif
  return true;
}

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_PY_TEXT_H_
