// FFI errors <-> Python exceptions. An error raised in C++ arrives as the exception class
// registered for its kind (or the builtin of that name) with the C++ frames as a note; a Python
// exception that crossed C++ (carried in the error's extra context) arrives as the same object.
#include "errors.h"

#include <ffi/extra/visit_error_context.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdarg>
#include <exception>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "boundary.h"
#include "callback.h"
#include "convert.h"
#include "free_threading.h"
#include "nb_check.h"
#include "objects.h"
#include "py_text.h"

namespace nb = nanobind;

namespace tvm::ffi::python {
namespace {

/*!
 * \brief Exception classes by error kind: registered ones, then builtins by name. Locked: errors
 * are raised and classes registered on any thread (free-threaded Python).
 */
struct ErrorClasses {
  std::unordered_map<std::string, PyObject*> by_kind;  // owned references
  TableLock lock;
  static ErrorClasses* Get() {
    static auto* t = new ErrorClasses();  // leaked: errors may be raised until exit
    return t;
  }
  /*! \brief The class for `kind` (new reference). */
  PyObject* Find(const std::string& kind) {
    {
      TableGuard guard(lock);
      auto it = by_kind.find(kind);
      if (it != by_kind.end()) return NewRef(it->second);
    }
    PyObject* builtins = PyEval_GetBuiltins();  // borrowed, the frame's
    PyObject* cls = nullptr;
    if (builtins != nullptr && DictGetItemStringRef(builtins, kind.c_str(), &cls) < 0) {
      PyErr_Clear();
    }
    if (cls != nullptr && PyExceptionClass_Check(cls)) return cls;
    Py_XDECREF(cls);
    return NewRef(PyExc_RuntimeError);
  }
  /*! \brief Registers `cls` (a new reference, taken) for `kind`. */
  void Register(const std::string& kind, PyObject* cls) {
    PyObject* replaced = nullptr;
    {
      TableGuard guard(lock);
      PyObject*& slot = by_kind[kind];
      replaced = slot;
      slot = cls;
    }
    Py_XDECREF(replaced);  // outside the lock: a class's deallocation runs Python code
  }
  /*! \brief The kind `cls` is registered under (by register_error), or empty. */
  std::string KindOf(PyObject* cls) {
    TableGuard guard(lock);
    for (const auto& [kind, registered] : by_kind) {
      if (registered == cls) return kind;
    }
    return {};
  }
};

/*!
 * \brief The Python exception an OpaquePyObject extra context carries, if any (borrowed). A visit
 * context that a structural walk or a visitor put in front of it on the way (keeping it as
 * prev_error_context, extra/visit_error_context.h) is looked through.
 */
PyObject* CarriedPythonException(const TVMFFIErrorCell* cell) {
  auto* ctx = static_cast<TVMFFIObject*>(cell->extra_context);
  while (ctx != nullptr && ctx->type_index == VisitErrorContextObj::RuntimeTypeIndex()) {
    const Optional<ObjectRef>& prev =
        static_cast<const VisitErrorContextObj*>(detail::ObjectUnsafe::FromHeader(ctx))
            ->prev_error_context;
    ctx = prev.has_value() ? detail::ObjectUnsafe::HeaderOf(prev.value()) : nullptr;
  }
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

/*! \brief The attribute an exception made from an FFI error holds that error in (the reference's).
 */
PyObject* ErrorAttribute() {
  static PyObject* name = PyUnicode_InternFromString("__tvm_ffi_error__");
  return name;
}

/*!
 * \brief The frames of `exc`'s Python traceback, innermost first as an Error's backtrace keeps
 * them: `  File "<file>", line <n>, in <function>` each. Empty when there is none.
 */
std::string PythonBacktrace(PyObject* exc) {
  std::vector<std::string> frames;  // outermost first, as the traceback links them
  PyObject* tb = PyException_GetTraceback(exc);
  while (tb != nullptr && tb != Py_None) {
    PyObject* frame = PyObject_GetAttrString(tb, "tb_frame");
    PyObject* line = PyObject_GetAttrString(tb, "tb_lineno");
    PyObject* code = frame ? PyObject_GetAttrString(frame, "f_code") : nullptr;
    PyObject* file = code ? PyObject_GetAttrString(code, "co_filename") : nullptr;
    PyObject* func = code ? PyObject_GetAttrString(code, "co_name") : nullptr;
    const char* file_text = file && PyUnicode_Check(file) ? PyUnicode_AsUTF8(file) : nullptr;
    const char* func_text = func && PyUnicode_Check(func) ? PyUnicode_AsUTF8(func) : nullptr;
    long lineno = line && PyLong_Check(line) ? PyLong_AsLong(line) : -1;
    if (file_text != nullptr && func_text != nullptr) {
      frames.push_back(std::string("  File \"") + file_text + "\", line " + std::to_string(lineno) +
                       ", in " + func_text + "\n");
    }
    Py_XDECREF(frame);
    Py_XDECREF(line);
    Py_XDECREF(code);
    Py_XDECREF(file);
    Py_XDECREF(func);
    PyErr_Clear();
    PyObject* next = PyObject_GetAttrString(tb, "tb_next");
    Py_DECREF(tb);
    tb = next;
  }
  Py_XDECREF(tb);
  PyErr_Clear();
  std::string out;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) out += *it;
  return out;
}

/*! \brief The kind and backtrace (C++ frames) of the FFI error `exc` was made from, if any. */
struct OriginalError {
  std::string kind;  // empty when `exc` was not made from an FFI error
  std::string backtrace;
};
OriginalError OriginalErrorOf(PyObject* exc) {
  PyObject* attr = PyObject_GetAttr(exc, ErrorAttribute());
  OriginalError out;
  if (attr != nullptr && PyObject_TypeCheck(attr, ObjectType)) {
    TVMFFIObject* h = LoadHandle(reinterpret_cast<PyObj*>(attr));
    if (h != nullptr && h->type_index == kTVMFFIError) {
      const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(h);
      out.kind = std::string(detail::ByteView(cell->kind));
      out.backtrace = std::string(detail::ByteView(cell->backtrace));
    }
  }
  Py_XDECREF(attr);
  PyErr_Clear();
  return out;
}

}  // namespace

void RegisterErrorClass(const std::string& kind, PyObject* cls) {
  Py_INCREF(cls);
  ErrorClasses::Get()->Register(kind, cls);
}

namespace {

PyObject* RaiseFromFFIImpl(int rc) {
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
  PyObject* exc = nullptr;
  // The reference's way of saying -2 is the kind EnvErrorAlreadySet: the host's own error (a
  // KeyboardInterrupt a signal check raised, say) is pending and is what the caller gets.
  if (error.kind() != "EnvErrorAlreadySet") {
    if (PyErr_Occurred()) PyErr_Clear();  // a stale error must not ride along with this one
    exc = ExceptionFromError(error);
  }
  DropKeepingError(&error);  // its deleters may run Python code
  if (exc == nullptr) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError,
                      "an FFI call failed with a pending host error, but none is set");
    }
    return nullptr;
  }
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
  return nullptr;
}

/*!
 * \brief What the translation of an error sets when it cannot be done itself (out of memory
 * copying its texts, say): MemoryError, or a RuntimeError. Never throws (no shared translator:
 * that translates through RaiseFromFFI).
 */
void SetTranslationFailure() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "an FFI error could not be turned into a Python exception");
  }
}

PyObject* ExceptionFromErrorImpl(const ffi::Error& error) {
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
  if (msg == nullptr) {
    Py_DECREF(cls);
    return nullptr;
  }
  PyObject* exc = PyObject_CallOneArg(cls, msg);
  if (exc != nullptr && !PyExceptionInstance_Check(exc)) {
    // A registered class whose __new__ made something else: a TypeError saying so, carrying the
    // error's kind and message (and below, its C++ frames and the error itself).
    std::string kind = error.kind();
    PyObject* why = PyUnicode_FromFormat(
        "the exception class `%s` registered for error kind `%s` did not produce an exception "
        "(calling it returned `%s`); the error was %s: %U",
        reinterpret_cast<PyTypeObject*>(cls)->tp_name, kind.c_str(), Py_TYPE(exc)->tp_name,
        kind.c_str(), msg);
    Py_SETREF(exc, why != nullptr ? PyObject_CallOneArg(PyExc_TypeError, why) : nullptr);
    Py_XDECREF(why);
  }
  Py_DECREF(msg);
  Py_DECREF(cls);
  if (exc == nullptr) return nullptr;
  if (!frames.empty()) AddNote(exc, "C++ traceback (most recent call last):\n" + frames);
  // The error itself stays reachable, as in the reference: e.__tvm_ffi_error__.backtrace.
  TVMFFIAny held{};
  held.type_index = kTVMFFIError;
  held.v_obj = detail::ObjectUnsafe::Header(error.get());
  TVMFFIObjectIncRef(held.v_obj);
  PyObject* wrapped = ToPython(&held);
  if (wrapped == nullptr || PyObject_SetAttr(exc, ErrorAttribute(), wrapped) != 0) PyErr_Clear();
  Py_XDECREF(wrapped);
  return exc;
}

TVMFFIObject* ErrorFromExceptionImpl(PyObject* value, bool carry) {
  // The kind, as the reference chooses it: the kind of the FFI error the exception was made from
  // (a C++ -> Python -> C++ round trip keeps it), else the kind its class is registered under,
  // else the class's name.
  OriginalError original = OriginalErrorOf(value);
  std::string kind = original.kind;
  if (kind.empty()) kind = ErrorClasses::Get()->KindOf(reinterpret_cast<PyObject*>(Py_TYPE(value)));
  if (kind.empty()) {
    kind = Py_TYPE(value)->tp_name;
    if (size_t dot = kind.rfind('.'); dot != std::string::npos) kind = kind.substr(dot + 1);
  }
  std::string message;
  if (!TakeText(PyObject_Str(value), &message)) message = "<exception str() failed>";
  PyErr_Clear();
  // Innermost first: the C++ frames of the error the exception was made from (if it was), then
  // the Python frames it passed through.
  std::string backtrace = original.backtrace + PythonBacktrace(value);
  // The exception rides along as an opaque object so the Python caller gets it back unchanged.
  TVMFFIObjectHandle carried = carry ? NewOpaquePyObject(value) : nullptr;
  if (carry && carried == nullptr) PyErr_Clear();  // the error still carries kind and message
  TVMFFIByteArray k{kind.data(), kind.size()}, m{message.data(), message.size()},
      b{backtrace.data(), backtrace.size()};
  TVMFFIObjectHandle err = nullptr;
  if (TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, &b, nullptr, carried, &err) != 0) {
    err = nullptr;
    RaiseFromFFI(-1);
  }
  if (carried != nullptr) TVMFFIObjectDecRef(carried);
  return static_cast<TVMFFIObject*>(err);
}

}  // namespace

PyObject* RaiseFormatted(PyObject* type, const char* format, ...) {
  va_list args;
  va_start(args, format);
  PyObject* message = PyUnicode_FromFormatV(format, args);
  va_end(args);
  if (message == nullptr) return nullptr;  // the MemoryError (or other failure) stays raised
  PyErr_SetObject(type, message);
  Py_DECREF(message);
  return nullptr;
}

void ClearRaisedFFIError() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != nullptr) TVMFFIObjectDecRef(err);
}

PyObject* RaiseFromFFI(int rc) {
  try {
    return RaiseFromFFIImpl(rc);
  }
  FFI_DETAIL_LET_FORCED_UNWIND_PASS
  catch (...) {
    SetTranslationFailure();
    return nullptr;
  }
}

PyObject* ExceptionFromError(const ffi::Error& error) {
  try {
    return ExceptionFromErrorImpl(error);
  }
  FFI_DETAIL_LET_FORCED_UNWIND_PASS
  catch (...) {
    SetTranslationFailure();
    return nullptr;
  }
}

TVMFFIObject* ErrorFromException(PyObject* value, bool carry) {
  try {
    return ErrorFromExceptionImpl(value, carry);
  }
  FFI_PY_CATCH(return nullptr)
}

int SetFFIErrorFromPython() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != nullptr) PyException_SetTraceback(value, tb);
  if (TVMFFIObject* err = value != nullptr ? ErrorFromException(value, true) : nullptr) {
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
  } else {
    // No Error object for the exception (out of memory copying its text, say): the caller still
    // gets an error, of the kind of what went wrong making one.
    const char* kind = PyErr_ExceptionMatches(PyExc_MemoryError) ? "MemoryError" : "RuntimeError";
    TVMFFIErrorSetRaisedFromCStr(kind, "a Python exception could not be turned into an FFI error");
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return -1;
}

namespace {
/*! \brief The Python class of a nanobind builtin exception (nb::type_error, ...). */
PyObject* BuiltinExceptionClass(nanobind::exception_type type) {
  switch (type) {
    case nanobind::exception_type::stop_iteration:
      return PyExc_StopIteration;
    case nanobind::exception_type::index_error:
      return PyExc_IndexError;
    case nanobind::exception_type::key_error:
      return PyExc_KeyError;
    case nanobind::exception_type::value_error:
      return PyExc_ValueError;
    case nanobind::exception_type::type_error:
      return PyExc_TypeError;
    case nanobind::exception_type::buffer_error:
      return PyExc_BufferError;
    case nanobind::exception_type::import_error:
      return PyExc_ImportError;
    case nanobind::exception_type::attribute_error:
      return PyExc_AttributeError;
    default:
      return PyExc_RuntimeError;
  }
}
}  // namespace

void SetPythonErrorFromCppException() noexcept {
  try {
    throw;
  } catch (nanobind::python_error& e) {
    e.restore();
  } catch (const nanobind::builtin_exception& e) {
    PyErr_SetString(BuiltinExceptionClass(e.type()), e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();  // allocates nothing
  } catch (...) {
    // ffi::Error and the rest, as a kernel's exception reaches Python: the runtime's mapping to an
    // error kind (FFI_SAFE_CALL_END's), then RaiseFromFFI's translation of the error.
    RaiseFromFFI(detail::SetRaisedFromException(std::current_exception()));
  }
}

void WriteUnraisableCppException() noexcept {
  PendingErrorGuard guard;  // reports what is raised here, then puts the caller's error back
  SetPythonErrorFromCppException();
}

int SetFFIErrorFromCppException() noexcept {
  try {
    throw;
  } catch (nanobind::python_error& e) {
    e.restore();
    return SetFFIErrorFromPython();
  } catch (...) {
    return detail::SetRaisedFromException(std::current_exception());
  }
}

namespace {

/*! \brief The FFI error a Python ffi.Error object holds; TypeError for anything else. */
ffi::Error ErrorOf(nb::handle obj) {
  TVMFFIAny owned;
  if (!ToOwnedAny(obj.ptr(), &owned)) throw nb::python_error();
  ffi::Any value = ffi::Any::FromRaw(owned);
  if (value.type_index() != kTVMFFIError) throw nb::type_error("expected an ffi.Error object");
  return std::move(value).cast<ffi::Error>();
}

}  // namespace

void BindErrorFunctions(nb::module_& m) {
  m.def(
      "register_error",
      [](std::string kind, nb::handle cls) {
        if (!PyExceptionClass_Check(cls.ptr())) {
          throw nb::type_error("register_error needs an exception class");
        }
        RegisterErrorClass(kind, cls.ptr());
      },
      nb::arg("kind"), nb::arg("cls"), "Maps the FFI error kind `kind` to exception class `cls`.");

  m.def(
      "_error_parts",
      [](nb::handle obj) {
        ffi::Error error = ErrorOf(obj);
        return nb::make_tuple(error.kind(), error.message(), error.backtrace());
      },
      "(kind, message, backtrace) of an ffi.Error object.");

  m.def(
      "_error_to_exception", [](nb::handle obj) { return Check(ExceptionFromError(ErrorOf(obj))); },
      "The Python exception an ffi.Error object stands for.");

  m.def(
      "_make_error",
      [](const std::string& kind, const std::string& message, const std::string& backtrace) {
        TVMFFIAny owned{};
        owned.type_index = kTVMFFIError;
        owned.v_obj = ffi::detail::ObjectUnsafe::MoveToHeader(ffi::Error(kind, message, backtrace));
        return Check(ToPython(&owned));
      },
      nb::arg("kind"), nb::arg("message"), nb::arg("backtrace"), "A new ffi.Error object.");
}

}  // namespace tvm::ffi::python
