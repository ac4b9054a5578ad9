// Tensors from Python producers: NumPy arrays read directly, framework tensors through the DLPack
// exchange API, anything else through `__dlpack__`. Every import that borrows a producer's memory
// goes through ImportView, which holds the producer object for as long as the tensor lives.
#include "dlpack_import.h"

#include <cstring>

#include "arguments.h"
#include "boundary.h"
#include "classify.h"
#include "errors.h"
#include "foreign.h"
#include "objects.h"
#include "tensor.h"

namespace tvm::ffi::python {
namespace {

// ---- NumPy arrays (their object layout is stable across NumPy 1.x and 2.x) -------------------

struct NumpyArrayFields {
  PyObject_HEAD char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
  PyObject* base;
  PyObject* descr;
  int flags;
};
/*! \brief NumPy's NPY_ARRAY_WRITEABLE flag. */
constexpr int kNumpyWriteable = 0x0400;
/*! \brief The most dimensions a NumPy array has (NPY_MAXDIMS is 32 in 1.x, 64 in 2.x). */
constexpr int32_t kNumpyMaxDims = 64;
struct NumpyDescrFields {
  PyObject_HEAD PyTypeObject* typeobj;
  char kind;
  char type;
  char byteorder;
  char flags;
  int type_num;
};

/*! \brief DLPack dtype of a NumPy type number (LP64 platforms); false when there is none. */
bool NumpyDType(int type_num, DLDataType* out) {
  switch (type_num) {
    case 0:
      *out = {kDLBool, 8, 1};
      return true;
    case 1:
      *out = {kDLInt, 8, 1};
      return true;
    case 2:
      *out = {kDLUInt, 8, 1};
      return true;
    case 3:
      *out = {kDLInt, 16, 1};
      return true;
    case 4:
      *out = {kDLUInt, 16, 1};
      return true;
    case 5:
      *out = {kDLInt, 32, 1};
      return true;
    case 6:
      *out = {kDLUInt, 32, 1};
      return true;
    case 7:
    case 9:
      *out = {kDLInt, 64, 1};
      return sizeof(long) == 8 || type_num == 9;
    case 8:
    case 10:
      *out = {kDLUInt, 64, 1};
      return sizeof(long) == 8 || type_num == 10;
    case 11:
      *out = {kDLFloat, 32, 1};
      return true;
    case 12:
      *out = {kDLFloat, 64, 1};
      return true;
    case 14:
      *out = {kDLComplex, 64, 1};
      return true;
    case 15:
      *out = {kDLComplex, 128, 1};
      return true;
    case 23:
      *out = {kDLFloat, 16, 1};
      return true;
    default:
      return false;
  }
}

// ---- the one owner-holding import ------------------------------------------------------------

/*!
 * \brief Keeps the Python object that owns a tensor's memory alive for as long as the imported
 * tensor lives. The runtime's import copies shape and strides, so only the data must stay valid:
 * holding the owner is what a framework's own DLPack export does.
 */
struct PyOwnerHolder {
  DLManagedTensorVersioned managed;
  PyObject* owner;
  static void Delete(DLManagedTensorVersioned* self) {
    auto* h = static_cast<PyOwnerHolder*>(self->manager_ctx);
    DecRefFromAnyThread(h->owner);
    delete h;
  }
};

/*! \brief Imports a borrowed view of `owner`'s memory as an owning Tensor object. */
TVMFFIObject* ImportView(PyObject* owner, const DLTensor& view, int32_t require_alignment,
                         bool require_contiguous, uint64_t flags) {
  auto* h = new PyOwnerHolder();
  h->owner = owner;
  Py_INCREF(owner);
  h->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  h->managed.manager_ctx = h;
  h->managed.deleter = PyOwnerHolder::Delete;
  h->managed.flags = flags;
  h->managed.dl_tensor = view;
  TVMFFIObjectHandle out = nullptr;
  if (TVMFFITensorFromDLPackVersioned(&h->managed, require_alignment, require_contiguous, &out) !=
      0) {
    return ReleaseRefused(&h->managed);
  }
  return static_cast<TVMFFIObject*>(out);
}

/*! \brief Calls obj.__dlpack__, preferring the versioned protocol. */
PyObject* CallDLPack(PyObject* obj) {
  PyObject* method = PyObject_GetAttrString(obj, "__dlpack__");
  if (method == nullptr) return nullptr;
  PyObject* kwargs =
      Py_BuildValue("{s:(ii)}", "max_version", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  PyObject* empty = PyTuple_New(0);
  PyObject* cap = kwargs && empty ? PyObject_Call(method, empty, kwargs) : nullptr;
  if (cap == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();  // a producer from before max_version
    cap = PyObject_Call(method, empty, nullptr);
  }
  Py_XDECREF(empty);
  Py_XDECREF(kwargs);
  Py_DECREF(method);
  return cap;
}

/*! \brief Imports the capsule `__dlpack__` returned, taking ownership of its tensor. */
TVMFFIObject* ImportCapsule(PyObject* obj, PyObject* cap, int32_t require_alignment,
                            bool require_contiguous, bool* read_only) {
  TVMFFIObjectHandle out = nullptr;
  int rc;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    *read_only = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    rc = TVMFFITensorFromDLPackVersioned(m, require_alignment, require_contiguous, &out);
    // Consumed only when imported; a refused tensor is freed by the capsule's destructor.
    if (rc == 0) PyCapsule_SetName(cap, "used_dltensor_versioned");
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    rc = TVMFFITensorFromDLPack(m, require_alignment, require_contiguous, &out);
    if (rc == 0) PyCapsule_SetName(cap, "used_dltensor");
  } else {
    PyErr_Format(PyExc_TypeError,
                 "`%s.__dlpack__()` did not return an unused DLPack capsule (\"dltensor\" or "
                 "\"dltensor_versioned\")",
                 Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  if (rc != 0) return RaiseFromFFI(rc), nullptr;
  return static_cast<TVMFFIObject*>(out);
}

}  // namespace

bool NumpyArrayView(PyObject* obj, DLTensor* out, int64_t* dims, int32_t cap) {
  auto* a = reinterpret_cast<NumpyArrayFields*>(obj);
  auto* d = reinterpret_cast<NumpyDescrFields*>(a->descr);
  if (d->byteorder == '>' || !NumpyDType(d->type_num, &out->dtype)) return false;
  if (a->nd < 0 || a->nd > cap / 2) return false;
  int64_t itemsize = out->dtype.bits / 8;
  int64_t* shape = dims;
  int64_t* strides = dims + a->nd;
  for (int i = 0; i < a->nd; ++i) {
    if (a->strides[i] % itemsize != 0) return false;  // not expressible in elements
    shape[i] = a->dimensions[i];
    strides[i] = a->strides[i] / itemsize;
  }
  out->data = a->data;
  out->device = {kDLCPU, 0};
  out->ndim = a->nd;
  out->shape = shape;
  out->strides = strides;
  out->byte_offset = 0;
  return true;
}

bool NumpyArrayWriteable(PyObject* obj) {
  return (reinterpret_cast<NumpyArrayFields*>(obj)->flags & kNumpyWriteable) != 0;
}

thread_local ContainerArgument container_argument;

TVMFFIObject* ReleaseRefused(DLManagedTensorVersioned* tensor) {
  RaiseFromFFI(-1);
  PendingErrorGuard guard;
  if (tensor->deleter != nullptr) tensor->deleter(tensor);
  return nullptr;
}

TVMFFIObject* TensorFromDLPackProducer(PyObject* obj, Classified c, int32_t require_alignment,
                                       bool require_contiguous, bool* read_only) {
  *read_only = false;
  DLTensor view;
  if (c.kind == PyKind::kExchange) {
    const DLPackExchangeAPI* api = c.api;
    if (api->dltensor_from_py_object_no_sync != nullptr) {
      // A borrowed view plus a reference to the framework tensor: no export object to build.
      if (api->dltensor_from_py_object_no_sync(obj, &view) != 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack view failed");
        return nullptr;
      }
      return ImportView(obj, view, require_alignment, require_contiguous, 0);
    }
    DLManagedTensorVersioned* m = nullptr;
    if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0 || m == nullptr) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack export failed");
      return nullptr;
    }
    *read_only = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    TVMFFIObjectHandle out = nullptr;
    if (TVMFFITensorFromDLPackVersioned(m, require_alignment, require_contiguous, &out) != 0) {
      return ReleaseRefused(m);
    }
    return static_cast<TVMFFIObject*>(out);
  }
  if (c.kind == PyKind::kNumpy) {
    int64_t dims[2 * kNumpyMaxDims];
    if (NumpyArrayView(obj, &view, dims, 2 * kNumpyMaxDims)) {
      *read_only = !NumpyArrayWriteable(obj);
      return ImportView(obj, view, require_alignment, require_contiguous,
                        *read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0);
    }
    // Other dtypes and layouts: NumPy's own __dlpack__ accepts or refuses them.
  }
  PyObject* cap = CallDLPack(obj);
  if (cap == nullptr) return nullptr;
  TVMFFIObject* t = ImportCapsule(obj, cap, require_alignment, require_contiguous, read_only);
  if (t != nullptr) {
    Py_DECREF(cap);
  } else {
    // An unconsumed capsule's destructor runs the producer's deleter, which may run Python code:
    // the import's exception is set aside meanwhile.
    PendingErrorGuard guard;
    Py_DECREF(cap);
  }
  return t;
}

namespace {

/*!
 * \brief from_dlpack(ext_tensor, require_alignment=0, require_contiguous=False), each also by
 * keyword (METH_FASTCALL | METH_KEYWORDS).
 */
PyObject* FromDLPack(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  // The reference's parameters, ext_tensor also by keyword; the settings also by position.
  static const char* const kNames[3] = {"ext_tensor", "require_alignment", "require_contiguous"};
  PyObject* values[3] = {nullptr, nullptr, nullptr};
  if (kwnames == nullptr && PyVectorcall_NARGS(nargsf) == 1) {
    values[0] = args[0];  // the usual call, bound without the general binder
  } else if (!BindArguments("from_dlpack", args, nargsf, kwnames, kNames, 3, 3, 1, values)) {
    return nullptr;
  }
  long long alignment = 0;
  if (values[1] != nullptr &&
      !IntInRange(values[1], 0, INT32_MAX, "from_dlpack(): require_alignment", &alignment)) {
    return nullptr;
  }
  int contiguous = values[2] != nullptr ? PyObject_IsTrue(values[2]) : 0;
  if (contiguous < 0) return nullptr;
  PyObject* obj = values[0];
  if (PyCapsule_CheckExact(obj)) {
    // A capsule a producer's __dlpack__ returned, as the reference also takes: consumed here.
    if (!PyCapsule_IsValid(obj, "dltensor_versioned") && !PyCapsule_IsValid(obj, "dltensor")) {
      return PyErr_Format(PyExc_ValueError,
                          "from_dlpack() needs an unused DLPack capsule (\"dltensor\" or "
                          "\"dltensor_versioned\"), not a capsule named \"%s\" (a capsule is "
                          "consumed once)",
                          PyCapsule_GetName(obj) ? PyCapsule_GetName(obj) : "(null)"),
             nullptr;
    }
    bool read_only = false;
    TVMFFIObject* t =
        ImportCapsule(obj, obj, static_cast<int32_t>(alignment), contiguous != 0, &read_only);
    return t ? WrapTensor(t, read_only) : nullptr;
  }
  Classified c = Classify(obj);
  if (c.kind == PyKind::kUnsupported) return RaiseNoObject(obj);  // an ffi.Object holding none
  if (Py_TYPE(obj) == TensorType && alignment == 0 && !contiguous) {
    Py_INCREF(obj);
    return obj;
  }
  if (c.kind == PyKind::kForeign) {
    // A tvm_ffi Tensor holds a Tensor object of the shared runtime: the same object, no import.
    TVMFFIObject* h = ForeignObjectHandle(obj);
    if (h == nullptr) return nullptr;
    if (h->type_index == kTVMFFITensor && alignment == 0 && !contiguous)
      return WrapTensor(h, false);
    TVMFFIObjectDecRef(h);
    // Anything else foreign that speaks DLPack goes through the protocol.
    if (PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "__dlpack__")) {
      c.kind = PyKind::kDLPack;
    }
  }
  if (c.kind != PyKind::kExchange && c.kind != PyKind::kNumpy && c.kind != PyKind::kDLPack &&
      !(c.kind == PyKind::kObject && PyObject_TypeCheck(obj, TensorType))) {
    return PyErr_Format(PyExc_TypeError,
                        "from_dlpack() needs a DLPack producer (an object with __dlpack__) or a "
                        "DLPack capsule, not `%s`",
                        Py_TYPE(obj)->tp_name),
           nullptr;
  }
  bool read_only = false;
  TVMFFIObject* t = TensorFromDLPackProducer(obj, c, static_cast<int32_t>(alignment),
                                             contiguous != 0, &read_only);
  return t ? WrapTensor(t, read_only) : nullptr;
}

// Text signature ("name($module, ...)\n--\n\n"), so that inspect.signature reads it, with the
// reference's parameter names.
PyMethodDef dlpack_import_functions[] = {
    {"from_dlpack", FFI_PY_METHOD(FromDLPack), METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack($module, ext_tensor, *, require_alignment=0, require_contiguous=False)\n--\n\n"
     "An ffi.Tensor sharing the memory of any DLPack producer (PyTorch, NumPy, JAX, ...). "
     "require_alignment (bytes) and require_contiguous refuse tensors that do not meet them with "
     "a ValueError (they are also taken by position)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool AddDLPackImportFunctions(PyObject* module) {
  return PyModule_AddFunctions(module, dlpack_import_functions) == 0;
}

}  // namespace tvm::ffi::python
