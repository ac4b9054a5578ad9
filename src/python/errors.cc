// FFI errors <-> Python exceptions. An error raised in C++ arrives as the exception class
// registered for its kind (or the builtin of that name) with the C++ frames as a note; a Python
// exception that crossed C++ (carried in the error's extra context) arrives as the same object.
#include <string>
#include <unordered_map>

#include "core.h"

namespace tvm {
namespace ffi {
namespace python {
namespace {

/*! \brief Exception classes by error kind: registered ones, then builtins by name. */
struct ErrorClasses {
  std::unordered_map<std::string, PyObject*> by_kind;  // owned references
  static ErrorClasses* Get() {
    static auto* t = new ErrorClasses();  // leaked: errors may be raised until exit
    return t;
  }
  PyObject* Find(const std::string& kind) {
    auto it = by_kind.find(kind);
    if (it != by_kind.end()) return it->second;
    PyObject* builtins = PyEval_GetBuiltins();
    PyObject* cls = builtins ? PyDict_GetItemString(builtins, kind.c_str()) : nullptr;
    if (cls != nullptr && PyExceptionClass_Check(cls)) return cls;
    return PyExc_RuntimeError;
  }
};

/*! \brief The Python exception an OpaquePyObject extra context carries, if any (borrowed). */
PyObject* CarriedPythonException(const TVMFFIErrorCell* cell) {
  auto* ctx = static_cast<TVMFFIObject*>(cell->extra_context);
  if (ctx == nullptr || ctx->type_index != kTVMFFIOpaquePyObject) return nullptr;
  auto* exc = static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(ctx)->handle);
  return PyExceptionInstance_Check(exc) ? exc : nullptr;
}

/*! \brief Adds a note to an exception (shown under its traceback). */
void AddNote(PyObject* exc, const std::string& note) {
  PyObject* text =
      PyUnicode_DecodeUTF8(note.data(), static_cast<Py_ssize_t>(note.size()), "replace");
  if (text == nullptr) return PyErr_Clear();
  PyObject* notes = PyObject_GetAttrString(exc, "__notes__");
  if (notes == nullptr) {
    PyErr_Clear();
    notes = PyList_New(0);
    if (notes == nullptr || PyObject_SetAttrString(exc, "__notes__", notes) != 0) PyErr_Clear();
  }
  if (notes != nullptr && PyList_Check(notes) && PyList_Append(notes, text) != 0) PyErr_Clear();
  Py_XDECREF(notes);
  Py_DECREF(text);
}

}  // namespace

void RegisterErrorClass(const std::string& kind, PyObject* cls) {
  Py_INCREF(cls);
  PyObject*& slot = ErrorClasses::Get()->by_kind[kind];
  Py_XSETREF(slot, cls);
}

PyObject* RaiseFromFFI(int rc) {
  if (rc == -2) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError,
                      "an FFI call failed with a pending host error, but none is set");
    }
    return nullptr;
  }
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    PyErr_Format(PyExc_RuntimeError, "an FFI call failed with code %d but raised no error", rc);
    return nullptr;
  }
  ffi::Error error(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)));
  PyObject* exc = ExceptionFromError(error);
  if (exc == nullptr) return nullptr;
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
  return nullptr;
}

PyObject* ExceptionFromError(const ffi::Error& error) {
  if (PyObject* exc = CarriedPythonException(error.cell())) {
    // A Python exception that crossed C++: the very same object.
    Py_INCREF(exc);
    return exc;
  }
  std::string message = error.message();
  std::string frames = error.TracebackMostRecentCallLast();
  PyObject* cls = ErrorClasses::Get()->Find(error.kind());
  PyObject* msg =
      PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (msg == nullptr) return nullptr;
  PyObject* exc = PyObject_CallOneArg(cls, msg);
  Py_DECREF(msg);
  if (exc == nullptr) return nullptr;
  if (!frames.empty()) AddNote(exc, "C++ traceback (most recent call last):\n" + frames);
  return exc;
}

TVMFFIObject* ErrorFromException(PyObject* value) {
  std::string kind = Py_TYPE(value)->tp_name;
  if (size_t dot = kind.rfind('.'); dot != std::string::npos) kind = kind.substr(dot + 1);
  std::string message;
  if (!TakeText(PyObject_Str(value), &message)) message = "<exception str() failed>";
  PyErr_Clear();
  // The exception rides along as an opaque object so the Python caller gets it back unchanged.
  TVMFFIObjectHandle carried = NewOpaquePyObject(value);
  if (carried == nullptr) PyErr_Clear();  // the error still carries kind and message
  TVMFFIByteArray k{kind.data(), kind.size()}, m{message.data(), message.size()}, b{"", 0};
  TVMFFIObjectHandle err = nullptr;
  if (TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, &b, nullptr, carried, &err) != 0) {
    err = nullptr;
    RaiseFromFFI(-1);
  }
  if (carried != nullptr) TVMFFIObjectDecRef(carried);
  return static_cast<TVMFFIObject*>(err);
}

int SetFFIErrorFromPython() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != nullptr) PyException_SetTraceback(value, tb);
  if (TVMFFIObject* err = ErrorFromException(value)) {
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return -1;
}

}  // namespace python
}  // namespace ffi
}  // namespace tvm
