// The boundary between the Python extension and CPython: code that may run on any thread or at
// interpreter exit (PythonAlive, DecRefFromAnyThread), releases that keep a pending Python
// exception intact (PendingErrorGuard and its helpers), and C++ exceptions stopped at every entry
// point CPython or a C caller calls (FFI_PY_ENTRY, FFI_PY_CATCH; the translation is in errors.cc).
// Included by the headers whose inline code needs it (py_text.h) and by the .cc files.
#ifndef FFI_PYTHON_BOUNDARY_H_
#define FFI_PYTHON_BOUNDARY_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <type_traits>
#include <utility>

namespace tvm::ffi::python {

// ---- the interpreter's state, for code that may run on any thread or at exit -----------------

/*!
 * \brief Whether Python objects may still be touched: false once finalization has begun, when
 * deleters run from C++ statics or thread exits must leak what they hold instead.
 */
inline bool PythonAlive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

/*!
 * \brief Sets the pending Python exception (if any) aside for its lifetime, and puts it back at
 * the end. Around code that must neither see nor clear the caller's exception: DLPack deleters,
 * and the release of objects whose deleters may run Python code (a producer's deleter through
 * ctypes, a Python object an FFI object held). Python code run with an exception set may clear
 * it, leaving the caller to fail with "SystemError: ... returned NULL without setting an
 * exception". An exception that code raises itself has no caller to go to: it is reported as
 * unraisable. Needs the GIL.
 */
class PendingErrorGuard {
 public:
  PendingErrorGuard() {
    if (PyErr_Occurred() != nullptr) PyErr_Fetch(&type_, &value_, &traceback_);
  }
  ~PendingErrorGuard() {
    // No object named: what ran may have been freeing the object at hand.
    if (PyErr_Occurred() != nullptr) PyErr_WriteUnraisable(nullptr);
    if (type_ != nullptr) PyErr_Restore(type_, value_, traceback_);
  }
  PendingErrorGuard(const PendingErrorGuard&) = delete;
  PendingErrorGuard& operator=(const PendingErrorGuard&) = delete;

 private:
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
};

/*!
 * \brief Runs `release` (code dropping references, whose deleters may run Python code) with the
 * pending Python exception set aside (see PendingErrorGuard). With none pending, the usual case on
 * hot paths (a call's temporaries, a result's wrapper), it costs one check. Needs the GIL.
 */
template <typename F>
inline void ReleaseKeepingError(F&& release) {
  if (FFI_LIKELY(PyErr_Occurred() == nullptr)) return release();
  PendingErrorGuard guard;
  release();
}

/*!
 * \brief Drops a reference to an FFI object, with any pending Python exception kept intact while
 * deleters run (see ReleaseKeepingError). Needs the GIL.
 */
inline void ReleaseObject(TVMFFIObject* obj) {
  ReleaseKeepingError([obj] { TVMFFIObjectDecRef(obj); });
}

/*!
 * \brief Releases what `*values` holds (an ObjectRef, Any, ObjectPtr or a container of them,
 * left empty), with any pending Python exception kept intact while deleters run (see
 * PendingErrorGuard): for values a failed conversion made, dropped with its exception pending.
 */
template <typename T>
void DropKeepingError(T* values) {
  PendingErrorGuard guard;
  T dropped(std::move(*values));  // released here, inside the guard
}

/*!
 * \brief Drops a reference from any thread (taking the GIL), or leaks it once Python is gone. A
 * pending exception of the thread is kept intact (see ReleaseKeepingError): deleters that drop a
 * Python object run from the release of an FFI object, whenever that happens.
 */
inline void DecRefFromAnyThread(PyObject* obj) {
  if (obj == nullptr || !PythonAlive()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  ReleaseKeepingError([obj] { Py_DECREF(obj); });
  PyGILState_Release(gil);
}

// ---- C++ exceptions at the boundary to CPython (errors.cc) --------------------------------------

/*!
 * \brief Sets the Python exception standing for the C++ exception being handled. Call it only
 * from a `catch` block, with the GIL. An ffi::Error becomes the exception class registered for its
 * kind, as RaiseFromFFI raises errors (the same translation); std::bad_alloc a MemoryError; a
 * nanobind python_error is restored, a nanobind builtin exception is its Python class; anything
 * else as the runtime maps a C++ exception to an error kind (detail::SetRaisedFromException:
 * std::out_of_range IndexError, std::invalid_argument ValueError, others RuntimeError).
 */
[[gnu::cold]] void SetPythonErrorFromCppException() noexcept;
/*!
 * \brief For an entry point that cannot fail (tp_dealloc, a capsule destructor): the exception
 * being handled goes to sys.unraisablehook, and an exception the caller had pending stays intact.
 * Call it only from a `catch` block, with the GIL.
 */
[[gnu::cold]] void WriteUnraisableCppException() noexcept;
/*!
 * \brief For a C callback of the runtime (a safe call, a field converter): stores the exception
 * being handled as the thread's raised FFI error (as FFI_SAFE_CALL_END does; a nanobind
 * python_error goes through SetFFIErrorFromPython); returns -1. Call it only from a `catch` block,
 * with the GIL.
 */
[[gnu::cold]] int SetFFIErrorFromCppException() noexcept;

/*!
 * \brief Closes a `try` block around code that may throw C++ exceptions (the headers throw
 * ffi::Error and std::bad_alloc) inside a function CPython or a C caller calls, where none may
 * escape: `try { ... } FFI_PY_CATCH(return nullptr)` runs the statements given with the Python
 * exception set (SetPythonErrorFromCppException). Free when nothing throws (zero-cost exception
 * handling). A thread's forced unwind (pthread_exit) passes through.
 */
#define FFI_PY_CATCH(...)                                 \
  FFI_DETAIL_LET_FORCED_UNWIND_PASS                       \
  catch (...) {                                           \
    ::tvm::ffi::python::SetPythonErrorFromCppException(); \
    __VA_ARGS__;                                          \
  }

/*!
 * \brief The entry point CPython calls for `Fn`: Fn itself, with any C++ exception it throws turned
 * into the Python exception (SetPythonErrorFromCppException) and the error result of the slot's
 * protocol (NULL for an object, -1 for an int or a hash); a void function (tp_dealloc, a capsule
 * destructor) reports it as unraisable. Every function the extension hands to CPython goes through
 * it (FFI_PY_ENTRY and its casts below), except the few that say why they need not.
 */
template <auto Fn>
struct PyEntry;
template <typename R, typename... Args, R (*Fn)(Args...)>
struct PyEntry<Fn> {
  static R Call(Args... args) {
    try {
      return Fn(args...);
    }
    FFI_DETAIL_LET_FORCED_UNWIND_PASS
    catch (...) {
      if constexpr (std::is_void_v<R>) {
        WriteUnraisableCppException();
      } else {
        SetPythonErrorFromCppException();
        if constexpr (std::is_pointer_v<R>) {
          return nullptr;
        } else {
          return static_cast<R>(-1);
        }
      }
    }
  }
};
/*! \brief `Fn` as CPython calls it (see PyEntry), with Fn's own type. */
#define FFI_PY_ENTRY(fn) (&::tvm::ffi::python::PyEntry<fn>::Call)
/*! \brief FFI_PY_ENTRY for a PyType_Slot. */
#define FFI_PY_SLOT(fn) reinterpret_cast<void*>(FFI_PY_ENTRY(fn))
/*! \brief FFI_PY_ENTRY for a PyMethodDef (METH_FASTCALL and METH_KEYWORDS signatures too). */
#define FFI_PY_METHOD(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(FFI_PY_ENTRY(fn)))

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_BOUNDARY_H_
