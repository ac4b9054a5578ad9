// C++ -> Python calls: a Python callable wrapped as an FFI function. The callback may run on any
// thread (a kernel's worker, say): it takes the GIL itself, and refuses cleanly once Python is
// finalizing.
#include "callback.h"

#include <nanobind/nanobind.h>

#include <cstring>
#include <memory>
#include <new>

#include "boundary.h"
#include "convert.h"
#include "dlpack_import.h"
#include "errors.h"
#include "function.h"
#include "nb_check.h"
#include "objects.h"
#include "reflection.h"
#include "tensor.h"

namespace nb = nanobind;

namespace tvm::ffi::python {
namespace {

/*!
 * \brief The Tensor object a callback receives for a borrowed `DLTensor*` argument. The memory
 * belongs to the caller and is valid only during the call, so the object is detached when the
 * callback returns: if anyone kept it, they are left holding an empty tensor (shape (0,), no
 * data) instead of a pointer into memory the caller may free.
 */
struct CallbackTensorView {
  TVMFFIObject header;
  DLTensor dl;
  std::unique_ptr<int64_t[]> dims;  // shape then strides, at least two entries

  static void Deleter(void* self, int flags) {
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) delete static_cast<CallbackTensorView*>(self);
  }

  /*! \brief A new view of `src` (one strong reference), or NULL when `src` is malformed. */
  static CallbackTensorView* Make(const DLTensor* src) {
    if (src == nullptr || src->ndim < 0 || (src->ndim > 0 && src->shape == nullptr)) {
      return nullptr;
    }
    auto* v = new CallbackTensorView();
    InitObjectHeader(&v->header, kTVMFFITensor, Deleter);
    v->dl = *src;
    size_t n = static_cast<size_t>(src->ndim);
    v->dims.reset(new (std::nothrow) int64_t[2 * n + 2]);  // room for Detach's 1-d shape and stride
    if (v->dims == nullptr) {
      delete v;
      throw std::bad_alloc();
    }
    for (size_t i = 0; i < n; ++i) v->dims[i] = src->shape[i];
    v->dl.shape = v->dims.get();
    if (src->strides != nullptr) {
      for (size_t i = 0; i < n; ++i) v->dims[n + i] = src->strides[i];
    } else {
      FillCompactStrides(v->dims.get(), src->ndim, v->dims.get() + n);
    }
    v->dl.strides = v->dims.get() + n;
    return v;
  }

  /*! \brief Makes the object describe no memory: an empty 1-d tensor. */
  void Detach() {
    dims[0] = 0;
    dims[1] = 1;
    dl.data = nullptr;
    dl.ndim = 1;
    dl.shape = dims.get();
    dl.strides = dims.get() + 1;
    dl.byte_offset = 0;
  }
};
static_assert(offsetof(CallbackTensorView, dl) == sizeof(TVMFFIObject));

/*!
 * \brief Converts callback argument `view` to Python; `*detach` receives a tensor view. NULL with
 * a Python error (never a C++ exception).
 */
PyObject* ArgToPython(const TVMFFIAny* view, CallbackTensorView** detach) {
  TVMFFIAny owned;
  if (view->type_index == kTVMFFIDLTensorPtr) {
    CallbackTensorView* t = nullptr;
    try {
      t = CallbackTensorView::Make(static_cast<const DLTensor*>(view->v_ptr));
    }
    FFI_PY_CATCH(return nullptr)
    if (t == nullptr) {
      PyErr_SetString(PyExc_ValueError, "a callback received a malformed DLTensor*");
      return nullptr;
    }
    TVMFFIObjectIncRef(&t->header);  // ours, until the callback returns
    *detach = t;
    return WrapTensor(&t->header, false);
  }
  if (TVMFFIAnyViewToOwnedAny(view, &owned) != 0) return RaiseFromFFI(-1);
  return ToPython(&owned);
}

/*!
 * \brief Calls the Python callable `self` with the converted arguments and converts its result
 * (with the GIL). Its conversions report failures as Python errors, which become the FFI error;
 * only the allocation of room for many arguments may throw, before anything is held.
 */
int CallPython(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int rc = 0;
  PyObject* stack[8];
  CallbackTensorView* views_stack[8] = {};
  std::unique_ptr<PyObject*[]> heap;
  std::unique_ptr<CallbackTensorView*[]> heap_views;
  PyObject** py_args = stack;
  CallbackTensorView** views = views_stack;
  if (num_args > 8) {
    heap.reset(new PyObject*[num_args]);
    heap_views.reset(new CallbackTensorView*[num_args]());
    py_args = heap.get();
    views = heap_views.get();
  }
  int32_t converted = 0;
  for (; converted < num_args; ++converted) {
    py_args[converted] = ArgToPython(&args[converted], &views[converted]);
    if (py_args[converted] == nullptr) break;
  }
  if (converted < num_args) {
    rc = SetFFIErrorFromPython();
    if (views[converted] != nullptr) TVMFFIObjectDecRef(&views[converted]->header);
  } else {
    PyObject* r = PyObject_Vectorcall(static_cast<PyObject*>(self), py_args,
                                      static_cast<size_t>(num_args), nullptr);
    if (r == nullptr || !ToOwnedAny(r, result)) rc = SetFFIErrorFromPython();
    Py_XDECREF(r);
  }
  for (int32_t i = 0; i < converted; ++i) {
    Py_DECREF(py_args[i]);
    if (CallbackTensorView* v = views[i]) {
      if (!detail::HasSoleReference(&v->header)) v->Detach();  // someone kept it
      TVMFFIObjectDecRef(&v->header);
    }
  }
  return rc;
}

/*!
 * \brief The safe call of a Function made from a Python callable (`self` is the callable). The
 * runtime calls it as a C function: a C++ exception becomes the raised FFI error.
 */
int PythonCallback(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (!PythonAlive()) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError",
                                 "a Python callback was called while Python is shutting down");
    return -1;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc;
  try {
    rc = CallPython(self, args, num_args, result);
  }
  FFI_DETAIL_LET_FORCED_UNWIND_PASS
  catch (...) {
    rc = SetFFIErrorFromCppException();
  }
  PyGILState_Release(gil);
  return rc;
}

void PythonCallbackDeleter(void* self) { DecRefFromAnyThread(static_cast<PyObject*>(self)); }

}  // namespace

namespace {
/*!
 * \brief A function an MLIR execution engine compiled with the packed interface, `void fn(void**
 * args)`, where args point at a safe call's (self, args, num_args, result) and its return code.
 */
struct MLIRPackedFunction {
  void (*fn)(void**);
  PyObject* keep_alive;  // owned, or NULL
};

int MLIRPackedCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int32_t rc = 0;
  void* handle = nullptr;
  void* packed[] = {&handle, &args, &num_args, &result, &rc};
  static_cast<MLIRPackedFunction*>(self)->fn(packed);
  return rc;
}

void MLIRPackedDeleter(void* self) {
  auto* f = static_cast<MLIRPackedFunction*>(self);
  if (f->keep_alive != nullptr) DecRefFromAnyThread(f->keep_alive);
  delete f;
}
}  // namespace

namespace {
/*!
 * \brief The object `create(&out)` makes, which holds the reference to `held` (NULL allowed) this
 * takes for it; on failure the reference is dropped and NULL returned with a Python error.
 */
template <typename Create>
TVMFFIObject* MakeHolding(PyObject* held, Create create) {
  TVMFFIObjectHandle out = nullptr;
  Py_XINCREF(held);
  int rc = -1;
  try {
    rc = create(&out);
    if (rc != 0) RaiseFromFFI(rc);
  }
  FFI_PY_CATCH()
  if (rc != 0) {
    Py_XDECREF(held);
    return nullptr;
  }
  return static_cast<TVMFFIObject*>(out);
}
}  // namespace

TVMFFIObject* FunctionFromCSymbol(void* address, PyObject* keep_alive, bool mlir_packed) {
  if (mlir_packed) {
    return MakeHolding(keep_alive, [&](TVMFFIObjectHandle* out) {
      auto* f = new MLIRPackedFunction{reinterpret_cast<void (*)(void**)>(address), keep_alive};
      int rc = TVMFFIFunctionCreate(f, MLIRPackedCall, MLIRPackedDeleter, out);
      if (rc != 0) delete f;
      return rc;
    });
  }
  // The safe call ignores its `self`, which carries the object to keep alive.
  return MakeHolding(keep_alive, [&](TVMFFIObjectHandle* out) {
    return TVMFFIFunctionCreate(keep_alive, reinterpret_cast<TVMFFISafeCallType>(address),
                                keep_alive != nullptr ? PythonCallbackDeleter : nullptr, out);
  });
}

TVMFFIObject* NewOpaquePyObject(PyObject* obj) {
  return MakeHolding(obj, [&](TVMFFIObjectHandle* out) {
    return TVMFFIObjectCreateOpaque(obj, kTVMFFIOpaquePyObject, PythonCallbackDeleter, out);
  });
}

namespace {
/*! \brief The Python object an OpaquePyObject value holds (borrowed). */
PyObject* HeldPyObject(const TVMFFIAny& v) {
  return static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(v.v_obj)->handle);
}

/*! \brief Whether a key hook got `n` OpaquePyObject values; else a raised TypeError. */
bool OpaqueKeyArgs(const TVMFFIAny* args, int32_t num_args, int32_t n) {
  bool ok = num_args == n;
  for (int32_t i = 0; ok && i < n; ++i) ok = args[i].type_index == kTVMFFIOpaquePyObject;
  if (!ok) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "an OpaquePyObject key hook got other values");
  }
  return ok;
}

/*!
 * \brief `__any_hash__` of OpaquePyObject: the held object's Python hash (with the GIL, taken
 * from any thread), so that a key the container API held (a tuple, a callable, any other Python
 * object) is found again by an equal one. Once Python is shutting down: the object's address.
 */
int OpaqueKeyHash(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (!OpaqueKeyArgs(args, num_args, 1)) return -1;
  PyObject* obj = HeldPyObject(args[0]);
  int64_t hash = reinterpret_cast<intptr_t>(obj);
  int rc = 0;
  if (PythonAlive()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_hash_t h = PyObject_Hash(obj);
    if (h == -1 && PyErr_Occurred()) {
      rc = SetFFIErrorFromPython();
    } else {
      hash = static_cast<int64_t>(h);
    }
    PyGILState_Release(gil);
  }
  if (rc == 0) {
    result->type_index = kTVMFFIInt;
    result->zero_padding = 0;
    result->v_int64 = hash;
  }
  return rc;
}

/*! \brief `__any_equal__` of OpaquePyObject: Python's == on the held objects (identity once
 * Python is shutting down). */
int OpaqueKeyEqual(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (!OpaqueKeyArgs(args, num_args, 2)) return -1;
  PyObject* a = HeldPyObject(args[0]);
  PyObject* b = HeldPyObject(args[1]);
  int equal = a == b;
  int rc = 0;
  if (!equal && PythonAlive()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    equal = PyObject_RichCompareBool(a, b, Py_EQ);
    if (equal < 0) rc = SetFFIErrorFromPython();
    PyGILState_Release(gil);
  }
  if (rc == 0) {
    result->type_index = kTVMFFIBool;
    result->zero_padding = 0;
    result->v_int64 = equal;
  }
  return rc;
}

/*! \brief Registers `hook` as OpaquePyObject's type attribute `name` (nothing when the type
 * already has one: another copy of this package, or a runtime that brings its own). */
void RegisterOpaqueKeyHook(const char* name, TVMFFISafeCallType hook) {
  TVMFFIObjectHandle f = nullptr;
  if (TVMFFIFunctionCreate(nullptr, hook, nullptr, &f) != 0) {
    TVMFFIObjectHandle error = nullptr;
    TVMFFIErrorMoveFromRaised(&error);
    if (error != nullptr) TVMFFIObjectDecRef(error);
    return;
  }
  TVMFFIByteArray key{name, std::strlen(name)};
  TVMFFIAny value;
  value.type_index = kTVMFFIFunction;
  value.zero_padding = 0;
  value.v_obj = static_cast<TVMFFIObject*>(f);
  if (TVMFFITypeRegisterAttr(kTVMFFIOpaquePyObject, &key, &value) != 0) {
    TVMFFIObjectHandle error = nullptr;
    TVMFFIErrorMoveFromRaised(&error);
    if (error != nullptr) TVMFFIObjectDecRef(error);
  }
  TVMFFIObjectDecRef(f);
}
}  // namespace

void InitOpaqueKeyHooks() {
  RegisterOpaqueKeyHook("__any_hash__", OpaqueKeyHash);
  RegisterOpaqueKeyHook("__any_equal__", OpaqueKeyEqual);
}

TVMFFIObject* FunctionFromCallable(PyObject* fn) {
  return MakeHolding(fn, [&](TVMFFIObjectHandle* out) {
    return TVMFFIFunctionCreate(fn, PythonCallback, PythonCallbackDeleter, out);
  });
}

namespace {

/*! \brief _function_from_c_symbol(address, keep_alive, mlir_packed) -> ffi.Function. */
PyObject* FunctionFromCSymbolPy(PyObject*, PyObject* args) {
  PyObject* address = nullptr;
  PyObject* keep_alive = nullptr;
  int mlir_packed = 0;
  if (!PyArg_ParseTuple(args, "OOp", &address, &keep_alive, &mlir_packed)) return nullptr;
  if (!PyLong_Check(address)) {
    PyErr_Format(PyExc_TypeError, "the function address must be an int, not `%s`",
                 Py_TYPE(address)->tp_name);
    return nullptr;
  }
  void* fn = PyLong_AsVoidPtr(address);
  if (fn == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the function address is null");
    return nullptr;
  }
  TVMFFIObject* f =
      FunctionFromCSymbol(fn, keep_alive == Py_None ? nullptr : keep_alive, mlir_packed != 0);
  return f != nullptr ? WrapObject(FunctionType, f) : nullptr;
}

PyMethodDef callback_functions[] = {
    {"_function_from_c_symbol", FFI_PY_METHOD(FunctionFromCSymbolPy), METH_VARARGS,
     "_function_from_c_symbol(address, keep_alive, mlir_packed)\n\nAn ffi.Function calling a C "
     "safe-call function (or an MLIR packed-interface one) at `address`, keeping `keep_alive`."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void BindCallbackFunctions(nb::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), callback_functions) != 0) throw nb::python_error();
  m.def(
      "_convert_to_opaque_object",
      [](nb::handle value) {
        TVMFFIObject* h = NewOpaquePyObject(value.ptr());
        if (h == nullptr) throw nb::python_error();
        return Check(WrapObject(ClassForTypeIndex(kTVMFFIOpaquePyObject), h));
      },
      nb::arg("value").none(), "An ffi.core.OpaquePyObject holding `value`, whatever it is.");

  m.def(
      "_opaque_pyobject",
      [](nb::handle obj) {
        TVMFFIObject* h = PyObject_TypeCheck(obj.ptr(), ObjectType)
                              ? LoadHandle(reinterpret_cast<PyObj*>(obj.ptr()))
                              : nullptr;
        if (h == nullptr || h->type_index != kTVMFFIOpaquePyObject) {
          throw nb::type_error("_opaque_pyobject needs an ffi.core.OpaquePyObject");
        }
        return nb::borrow(static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(h)->handle));
      },
      "The Python object an ffi.core.OpaquePyObject holds.");
}

}  // namespace tvm::ffi::python
