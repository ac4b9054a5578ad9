// Objects of the reference's Python package (tvm_ffi) in calls through ours, and ours in calls
// through it. With both packages in one process there is one runtime (docs/coexistence.md), so an
// object made through either is the same TVMFFIObject to both: it crosses as its handle, never as
// a copy (a tvm_ffi.List passed to an ffi function is that List, mutations included).
#include "foreign.h"

#include <atomic>
#include <cstring>
#include <utility>

#include "classify.h"
#include "errors.h"
#include "objects.h"

namespace tvm::ffi::python {
namespace {

/*! \brief The global our `__tvm_ffi_object__` calls through tvm_ffi to get the object back. */
constexpr const char* kTakeExportName = "ffi._python.TakeExportedObject";

/*! \brief The handle a tvm_ffi object holds (borrowed), or NULL with a Python error. */
TVMFFIObject* ReferenceHandle(PyObject* obj) {
  PyObject* address = PyObject_CallMethod(obj, "__chandle__", nullptr);
  if (address == nullptr) return nullptr;
  void* handle = PyLong_Check(address) ? PyLong_AsVoidPtr(address) : nullptr;
  Py_DECREF(address);
  if (handle == nullptr && !PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "the `%s` holds no object", Py_TYPE(obj)->tp_name);
  }
  return static_cast<TVMFFIObject*>(handle);
}

/*!
 * \brief The object the next call of the global kTakeExportName hands out, per thread: set by
 * `__tvm_ffi_object__` around its one call, so the global takes no address from anyone.
 */
thread_local TVMFFIObject* pending_export = nullptr;

int TakeExportedObject(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  TVMFFIObject* h = std::exchange(pending_export, nullptr);
  result->zero_padding = 0;
  if (h == nullptr) {
    result->type_index = kTVMFFINone;
    result->v_int64 = 0;
    return 0;
  }
  TVMFFIObjectIncRef(h);
  result->type_index = h->type_index;
  result->v_obj = h;
  return 0;
}

}  // namespace

PyObject* ObjectToReference(PyObject* self, PyObject*) {
  // The global, as a tvm_ffi.Function (owned, never released); threads looking it up at once
  // (free-threaded Python) keep the first one published.
  static std::atomic<PyObject*> taker{nullptr};
  PyObject* take = taker.load(std::memory_order_acquire);
  if (take == nullptr) {
    PyObject* name = PyUnicode_FromString("tvm_ffi");
    PyObject* mod = name != nullptr ? PyImport_GetModule(name) : nullptr;
    Py_XDECREF(name);
    if (mod == nullptr) {
      if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_RuntimeError, "__tvm_ffi_object__ needs tvm_ffi to be imported");
      }
      return nullptr;
    }
    PyObject* found = PyObject_CallMethod(mod, "get_global_func", "s", kTakeExportName);
    Py_DECREF(mod);
    if (found == nullptr) return nullptr;
    if (taker.compare_exchange_strong(take, found, std::memory_order_acq_rel)) {
      take = found;
    } else {
      Py_DECREF(found);  // another thread's is kept
    }
  }
  TVMFFIObject* handle = HandleOf(self);  // read after the lookup, which may run Python code
  if (handle == nullptr) return nullptr;
  pending_export = handle;
  PyObject* out = PyObject_CallNoArgs(take);
  pending_export = nullptr;
  return out;
}

TVMFFIObject* ForeignObjectHandle(PyObject* obj) {
  TVMFFIObject* h = nullptr;
  if (IsReferenceObjectType(Py_TYPE(obj))) {
    h = ReferenceHandle(obj);
  } else {
    PyObject* made = PyObject_CallMethod(obj, "__tvm_ffi_object__", nullptr);
    if (made == nullptr) return nullptr;
    if (PyObject_TypeCheck(made, ObjectType)) {
      h = LoadHandle(reinterpret_cast<PyObj*>(made));
      if (h == nullptr) PyErr_SetString(PyExc_TypeError, "__tvm_ffi_object__() has no object");
    } else if (IsReferenceObjectType(Py_TYPE(made))) {
      h = ReferenceHandle(made);
    } else {
      PyErr_Format(PyExc_TypeError, "`%s`.__tvm_ffi_object__() returned `%s`, not an FFI object",
                   Py_TYPE(obj)->tp_name, Py_TYPE(made)->tp_name);
    }
    // The reference is taken before `made` (which may be its only owner) goes.
    if (h != nullptr) TVMFFIObjectIncRef(h);
    Py_DECREF(made);
    return h;
  }
  if (h != nullptr) TVMFFIObjectIncRef(h);
  return h;
}

bool InitForeignObjects() {
  TVMFFIObjectHandle take = nullptr;
  if (TVMFFIFunctionCreate(nullptr, TakeExportedObject, nullptr, &take) != 0) {
    RaiseFromFFI(-1);
    return false;
  }
  TVMFFIByteArray name{kTakeExportName, std::strlen(kTakeExportName)};
  int rc = TVMFFIFunctionSetGlobal(&name, take, 1);
  TVMFFIObjectDecRef(take);
  if (rc != 0) RaiseFromFFI(rc);
  return rc == 0;
}

}  // namespace tvm::ffi::python
