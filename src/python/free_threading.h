// The extension without the GIL (free-threaded CPython, PEP 703): what guards its shared state.
// With the GIL these cost nothing: the GIL already serializes the code they guard.
#ifndef FFI_PYTHON_FREE_THREADING_H_
#define FFI_PYTHON_FREE_THREADING_H_

#include <Python.h>

namespace tvm::ffi::python {

/*!
 * \brief A lock for a table of the extension that calls may fill (caches, class registries).
 * Without the GIL a PyMutex, which detaches the waiting thread from the interpreter (a std::mutex
 * held by a waiting thread could stall a stop-the-world pause); with the GIL nothing. Code holding
 * it calls no Python code that could take it again.
 */
class TableLock {
 public:
  void lock() {
#ifdef Py_GIL_DISABLED
    PyMutex_Lock(&mutex_);
#endif
  }
  void unlock() {
#ifdef Py_GIL_DISABLED
    PyMutex_Unlock(&mutex_);
#endif
  }

 private:
#ifdef Py_GIL_DISABLED
  PyMutex mutex_{};
#endif
};

/*!
 * \brief Drops the extension's reference to `obj` (or nothing, for NULL), an object it handed out
 * borrowed (a class, a hook) and has just replaced. With the GIL, released now; without it, kept
 * alive: another thread may still be using the one it read.
 */
inline void ReleaseShared(PyObject* obj) {
#ifdef Py_GIL_DISABLED
  (void)obj;
#else
  Py_XDECREF(obj);
#endif
}

/*!
 * \brief PyDict_GetItemStringRef (CPython 3.13) on every version: 1 with a new reference in `*out`
 * when `key` is there, 0 with NULL when not, -1 with an error. A borrowed item of a dict another
 * thread may change could be freed while in use.
 */
inline int DictGetItemStringRef(PyObject* dict, const char* key, PyObject** out) {
#if PY_VERSION_HEX >= 0x030D0000
  return PyDict_GetItemStringRef(dict, key, out);
#else
  *out = PyDict_GetItemString(dict, key);  // the GIL keeps it while it is taken
  Py_XINCREF(*out);
  return *out != nullptr ? 1 : 0;
#endif
}

/*!
 * \brief Item `i` of `fast` (a list or tuple from PySequence_Fast) as a new reference, or NULL
 * (no error) when the list is shorter now. Without the GIL another thread may change a list while
 * a conversion reads it: each item is taken under the list's lock, with a reference.
 */
inline PyObject* SequenceItemRef(PyObject* fast, Py_ssize_t i) {
#ifdef Py_GIL_DISABLED
  if (PyList_Check(fast)) {
    PyObject* item = PyList_GetItemRef(fast, i);
    if (item == nullptr) PyErr_Clear();  // IndexError: shorter now
    return item;
  }
#endif
  if (i >= PySequence_Fast_GET_SIZE(fast)) return nullptr;
  PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
  Py_INCREF(item);
  return item;
}

/*! \brief Holds a TableLock for a scope. */
class TableGuard {
 public:
  explicit TableGuard(TableLock& lock) : lock_(lock) { lock_.lock(); }
  ~TableGuard() { lock_.unlock(); }
  TableGuard(const TableGuard&) = delete;
  TableGuard& operator=(const TableGuard&) = delete;

 private:
  TableLock& lock_;
};

/*!
 * \brief Holds the per-object lock of a Python object (a list or dict another thread may change
 * while a conversion reads it) for a scope: a critical section without the GIL (CPython 3.13's
 * PyCriticalSection, released when the thread blocks), nothing with it.
 */
class ObjectCriticalSection {
 public:
  explicit ObjectCriticalSection(PyObject* obj) {
#ifdef Py_GIL_DISABLED
    PyCriticalSection_Begin(&section_, obj);
#else
    (void)obj;
#endif
  }
  ~ObjectCriticalSection() {
#ifdef Py_GIL_DISABLED
    PyCriticalSection_End(&section_);
#endif
  }
  ObjectCriticalSection(const ObjectCriticalSection&) = delete;
  ObjectCriticalSection& operator=(const ObjectCriticalSection&) = delete;

 private:
#ifdef Py_GIL_DISABLED
  PyCriticalSection section_;
#endif
};

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_FREE_THREADING_H_
