// ffi.Tensor: an FFI tensor object seen from Python, and its DLPack export.
#include "tensor.h"

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "boundary.h"
#include "dlpack_export.h"
#include "dlpack_import.h"
#include "dtype_device.h"
#include "errors.h"
#include "objects.h"
#include "py_text.h"
#include "reflection.h"
#include "stream_sync.h"

namespace tvm::ffi::python {

PyTypeObject* TensorType = nullptr;
std::atomic<PyTypeObject*> TensorClass{nullptr};

namespace {

// ---- Tensor ----------------------------------------------------------------------------------

/*!
 * \brief The tensor's DLTensor, or NULL with a RuntimeError when the ffi.Tensor holds no tensor
 * (see HandleOf): every accessor reads the tensor through here.
 */
DLTensor* DL(PyObject* self) {
  TVMFFIObject* h = HandleOf(self);
  return h != nullptr ? TVMFFITensorGetDLTensorPtr(h) : nullptr;
}

PyObject* IntTuple(const int64_t* v, int32_t n) {
  PyObject* t = PyTuple_New(n);
  for (int32_t i = 0; t && i < n; ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  return t;
}

}  // namespace

PyObject* NewShape(const int64_t* dims, size_t n) {
  PyObject* tuple = IntTuple(dims, static_cast<int32_t>(n));
  PyTypeObject* cls = ClassForTypeIndex(kTVMFFIShape);
  if (tuple == nullptr || cls == ObjectType) return tuple;
  // tuple.__new__(cls, tuple): the extents are int64 already, so Shape.__new__'s checks are
  // skipped (they would cost a Python call per `tensor.shape`).
  PyObject* args = PyTuple_Pack(1, tuple);
  Py_DECREF(tuple);
  if (args == nullptr) return nullptr;
  PyObject* shape = PyTuple_Type.tp_new(cls, args, nullptr);
  Py_DECREF(args);
  return shape;
}

namespace {

PyObject* TensorShape(PyObject* self, void*) {
  DLTensor* t = DL(self);
  if (t == nullptr) return nullptr;
  return NewShape(t->shape, static_cast<size_t>(t->ndim));
}

PyObject* TensorStrides(PyObject* self, void*) {
  DLTensor* t = DL(self);
  if (t == nullptr) return nullptr;
  if (t->strides != nullptr) return IntTuple(t->strides, t->ndim);
  std::vector<int64_t> s(static_cast<size_t>(t->ndim));
  detail::FillCompactStrides(t->shape, t->ndim, s.data());
  return IntTuple(s.data(), t->ndim);
}

PyObject* TensorDType(PyObject* self, void*) {
  DLTensor* t = DL(self);
  return t != nullptr ? NewDType(t->dtype) : nullptr;
}
PyObject* TensorDevice(PyObject* self, void*) {
  DLTensor* t = DL(self);
  return t != nullptr ? NewDevice(t->device) : nullptr;
}
PyObject* TensorNDim(PyObject* self, void*) {
  DLTensor* t = DL(self);
  return t != nullptr ? PyLong_FromLong(t->ndim) : nullptr;
}
PyObject* TensorByteOffset(PyObject* self, void*) {
  DLTensor* t = DL(self);
  return t != nullptr ? PyLong_FromUnsignedLongLong(t->byte_offset) : nullptr;
}

PyObject* TensorDataPtr(PyObject* self, PyObject*) {
  DLTensor* t = DL(self);
  return t != nullptr ? PyLong_FromVoidPtr(t->data) : nullptr;
}
PyObject* TensorIsContiguous(PyObject* self, PyObject*) {
  DLTensor* t = DL(self);
  return t != nullptr ? PyBool_FromLong(detail::IsContiguous(*t)) : nullptr;
}
PyObject* TensorNumel(PyObject* self, PyObject*) {
  DLTensor* t = DL(self);
  if (t == nullptr) return nullptr;
  return PyLong_FromLongLong(ShapeView(t->shape, static_cast<size_t>(t->ndim)).Product());
}

PyObject* TensorDLPackDevice(PyObject* self, PyObject*) {
  DLTensor* t = DL(self);
  if (t == nullptr) return nullptr;
  DLDevice d = t->device;
  PyObject* type = PyLong_FromLong(static_cast<long>(d.device_type));
  PyObject* id = type ? PyLong_FromLong(d.device_id) : nullptr;
  PyObject* out = id ? PyTuple_Pack(2, type, id) : nullptr;
  Py_XDECREF(type);
  Py_XDECREF(id);
  return out;
}

// The capsule destructors run when the capsule goes, often while the consumer that refused it
// has its exception pending: the deleter runs with that exception set aside (PendingErrorGuard),
// which leaves the consumer's error intact. A consumed capsule (renamed) has nothing to delete.
void VersionedCapsuleDestructor(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, "dltensor_versioned")) return;
  PendingErrorGuard guard;
  auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

void LegacyCapsuleDestructor(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, "dltensor")) return;
  PendingErrorGuard guard;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

/*!
 * \brief Whether the tensor's memory is read-only: as imported here, or as the runtime recorded
 * it for a tensor that went through C++ (its versioned export carries the flag).
 */
bool IsReadOnly(PyObject* self) {
  if (reinterpret_cast<PyTensor*>(self)->read_only) return true;
  DLManagedTensorVersioned* m = nullptr;
  if (TVMFFITensorToDLPackVersioned(LoadHandle(reinterpret_cast<PyObj*>(self)), &m) != 0) {
    ClearRaisedFFIError();
    return false;
  }
  bool read_only = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  m->deleter(m);
  return read_only;
}

/*! \brief The `__dlpack__` keyword arguments; NULL where not given. */
struct DLPackArgs {
  PyObject* stream = Py_None;
  PyObject* max_version = Py_None;
  PyObject* dl_device = Py_None;
  PyObject* copy = Py_None;

  /*! \brief Reads keyword-only arguments (vectorcall form); false with a TypeError. */
  bool Parse(PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
    static PyObject* names[4] = {
        PyUnicode_InternFromString("stream"), PyUnicode_InternFromString("max_version"),
        PyUnicode_InternFromString("dl_device"), PyUnicode_InternFromString("copy")};
    PyObject** slots[4] = {&stream, &max_version, &dl_device, &copy};
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n != 0) {
      PyErr_SetString(PyExc_TypeError, "__dlpack__() takes keyword arguments only");
      return false;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, i);
      int slot = 0;
      while (slot < 4 && key != names[slot]) ++slot;  // interned: pointers match in practice
      if (slot == 4) {
        slot = 0;
        while (slot < 4 && PyUnicode_Compare(key, names[slot]) != 0) ++slot;
      }
      if (slot == 4) {
        PyErr_Format(PyExc_TypeError, "__dlpack__() got an unexpected keyword argument '%S'", key);
        return false;
      }
      *slots[slot] = args[i];
    }
    return true;
  }
};

/*! \brief The versioned protocol's major version the consumer accepts (0: legacy only). */
bool MaxMajor(PyObject* max_version, long* major) {
  *major = 0;
  if (max_version == Py_None) return true;
  if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
    PyErr_SetString(PyExc_TypeError, "__dlpack__(): max_version must be a (major, minor) tuple");
    return false;
  }
  *major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
  return !(*major == -1 && PyErr_Occurred());
}

/*!
 * \brief A compact CPU copy of `src` as a new Tensor object (for copy=True), or NULL with a
 * BufferError. Only CPU memory is copied here; device copies are the consumer's to make.
 */
TVMFFIObject* CopyCPU(const DLTensor& src) {
  if (src.device.device_type != kDLCPU) {
    PyErr_Format(PyExc_BufferError,
                 "__dlpack__(copy=True): ffi.Tensor copies CPU tensors only, not one on %s",
                 DLDeviceToString(src.device).c_str());
    return nullptr;
  }
  size_t bits = static_cast<size_t>(src.dtype.bits) * src.dtype.lanes;
  bool compact = detail::IsContiguous(src);
  if (bits % 8 != 0 && !compact) {
    PyErr_SetString(PyExc_BufferError,
                    "__dlpack__(copy=True): cannot copy a strided sub-byte tensor");
    return nullptr;
  }
  std::string why;
  // Called as a C callback: nothing may escape it (the text is kept when it fits).
  auto set_error = [](void* ctx, const char* kind, const char* msg) noexcept {
    try {
      *static_cast<std::string*>(ctx) = std::string(kind) + ": " + msg;
    } catch (...) {
    }
  };
  // What may throw (the element count overflowing, room for the multi-index of a strided copy)
  // comes before the copy is allocated: nothing throws while it is held.
  int64_t numel = ShapeView(src.shape, static_cast<size_t>(src.ndim)).Product();
  std::vector<int64_t> index(compact ? 0 : static_cast<size_t>(src.ndim), 0);
  DLManagedTensorVersioned* m = nullptr;
  DLTensor prototype = src;
  if (TensorExchangeAPI()->managed_tensor_allocator(&prototype, &m, &why, set_error) != 0) {
    PyErr_Format(PyExc_BufferError, "__dlpack__(copy=True): %s", why.c_str());
    return nullptr;
  }
  const char* from = static_cast<const char*>(src.data) + src.byte_offset;
  char* to = static_cast<char*>(m->dl_tensor.data);
  if (compact) {
    std::memcpy(to, from, (static_cast<size_t>(numel) * bits + 7) / 8);
  } else {
    // Walk the elements in row-major order, carrying a multi-index.
    size_t item = bits / 8;
    for (int64_t k = 0; k < numel; ++k) {
      int64_t offset = 0;
      for (int32_t d = 0; d < src.ndim; ++d) offset += index[d] * src.strides[d];
      std::memcpy(to + static_cast<size_t>(k) * item, from + offset * static_cast<int64_t>(item),
                  item);
      for (int32_t d = src.ndim - 1; d >= 0 && ++index[d] == src.shape[d]; --d) index[d] = 0;
    }
  }
  m->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
  TVMFFIObjectHandle out = nullptr;
  if (TVMFFITensorFromDLPackVersioned(m, 0, 0, &out) != 0) return ReleaseRefused(m);
  return static_cast<TVMFFIObject*>(out);
}

/*! \brief Exports `h` as a DLPack capsule, versioned when the consumer accepts it. */
PyObject* ExportCapsule(PyObject* self, TVMFFIObject* h, long major, bool copied) {
  if (major >= 1) {
    DLManagedTensorVersioned* m = nullptr;
    if (TVMFFITensorToDLPackVersioned(h, &m) != 0) return RaiseFromFFI(-1);
    if (copied) {
      m->flags = (m->flags & ~static_cast<uint64_t>(DLPACK_FLAG_BITMASK_READ_ONLY)) |
                 DLPACK_FLAG_BITMASK_IS_COPIED;
    } else if (reinterpret_cast<PyTensor*>(self)->read_only) {
      m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
    }
    PyObject* cap =
        PyCapsule_New(m, "dltensor_versioned", FFI_PY_ENTRY(VersionedCapsuleDestructor));
    if (cap == nullptr) m->deleter(m);
    return cap;
  }
  if (!copied && IsReadOnly(self)) {
    PyErr_SetString(PyExc_BufferError,
                    "ffi.Tensor is read-only and the consumer asked for a DLPack version that "
                    "cannot mark it so (pass max_version=(1, 0) or later)");
    return nullptr;
  }
  DLManagedTensor* m = nullptr;
  if (TVMFFITensorToDLPack(h, &m) != 0) return RaiseFromFFI(-1);
  PyObject* cap = PyCapsule_New(m, "dltensor", FFI_PY_ENTRY(LegacyCapsuleDestructor));
  if (cap == nullptr) m->deleter(m);
  return cap;
}

PyObject* TensorDLPack(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                       PyObject* kwnames) {
  DLPackArgs a;
  if (!a.Parse(args, nargsf, kwnames)) return nullptr;
  DLTensor* t = DL(self);
  if (t == nullptr) return nullptr;
  int copy = a.copy == Py_None ? -1 : PyObject_IsTrue(a.copy);
  if (a.copy != Py_None && copy < 0) return nullptr;
  if (a.dl_device != Py_None) {
    int type = 0, id = 0;
    if (!PyTuple_Check(a.dl_device)) {
      PyErr_Format(PyExc_TypeError,
                   "__dlpack__(): dl_device must be a (device_type, id) tuple, not `%s`",
                   Py_TYPE(a.dl_device)->tp_name);
      return nullptr;
    }
    if (!PyArg_ParseTuple(a.dl_device, "ii;__dlpack__(): dl_device must be (device_type, id)",
                          &type, &id)) {
      return nullptr;
    }
    if (type != t->device.device_type || id != t->device.device_id) {
      PyErr_Format(PyExc_BufferError,
                   "__dlpack__(): ffi.Tensor on %s cannot be exported to device (%d, %d)%s",
                   DLDeviceToString(t->device).c_str(), type, id,
                   copy == 0 ? " without a copy (copy=False)" : "");
      return nullptr;
    }
  }
  long major = 0;
  if (!MaxMajor(a.max_version, &major)) return nullptr;
  // The consumer's stream waits for the producer's before it sees the tensor (also for a copy,
  // which reads the data now: CPU only, where there are no streams).
  if (!SyncForConsumer(t->device, a.stream)) return nullptr;
  TVMFFIObject* h = LoadHandle(reinterpret_cast<PyObj*>(self));
  if (copy != 1) return ExportCapsule(self, h, major, false);
  TVMFFIObject* c = CopyCPU(*t);
  if (c == nullptr) return nullptr;
  PyObject* cap = ExportCapsule(self, c, major, true);
  TVMFFIObjectDecRef(c);
  return cap;
}

PyObject* TensorSize(PyObject* self, PyObject* dim) {
  DLTensor* t = DL(self);
  if (t == nullptr) return nullptr;
  long long i = PyLong_AsLongLong(dim);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  if (i < 0) i += t->ndim;
  if (i < 0 || i >= t->ndim) {
    PyErr_Format(PyExc_IndexError, "dimension %S out of range for a %d-dimensional tensor", dim,
                 t->ndim);
    return nullptr;
  }
  return PyLong_FromLongLong(t->shape[i]);
}

PyObject* TensorRepr(PyObject* self) {
  // As ffi.Object's repr: one that holds no tensor says so rather than failing.
  if (LoadHandle(reinterpret_cast<PyObj*>(self)) == nullptr) {
    return PyUnicode_FromFormat("<%s (no FFI object)>", Py_TYPE(self)->tp_name);
  }
  DLTensor* t = DL(self);
  std::ostringstream os;
  std::string dt;
  detail::TextFormatter<DLDataType>::Append(&dt, t->dtype);
  os << "ffi.Tensor(shape=" << ShapeView(t->shape, static_cast<size_t>(t->ndim)) << ", dtype=" << dt
     << ", device=" << DLDeviceToString(t->device) << ")";
  std::string s = os.str();
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

PyGetSetDef tensor_getset[] = {
    {"shape", FFI_PY_ENTRY(TensorShape), nullptr, "Extents (an ffi.Shape).", nullptr},
    {"strides", FFI_PY_ENTRY(TensorStrides), nullptr, "Strides in elements.", nullptr},
    {"dtype", FFI_PY_ENTRY(TensorDType), nullptr, "Element type (an ffi.dtype).", nullptr},
    {"device", FFI_PY_ENTRY(TensorDevice), nullptr, "Where the data lives (an ffi.Device).",
     nullptr},
    {"ndim", FFI_PY_ENTRY(TensorNDim), nullptr, "Number of dimensions.", nullptr},
    {"byte_offset", FFI_PY_ENTRY(TensorByteOffset), nullptr,
     "Offset in bytes of the first element.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef tensor_methods[] = {
    {"data_ptr", FFI_PY_ENTRY(TensorDataPtr), METH_NOARGS, "The data pointer as an int."},
    {"is_contiguous", FFI_PY_ENTRY(TensorIsContiguous), METH_NOARGS,
     "Whether the layout is compact row-major."},
    {"numel", FFI_PY_ENTRY(TensorNumel), METH_NOARGS, "Number of elements."},
    {"size", FFI_PY_ENTRY(TensorSize), METH_O,
     "size(dim): the extent of dimension `dim` (negative from the end)."},
    {"__dlpack_device__", FFI_PY_ENTRY(TensorDLPackDevice), METH_NOARGS,
     "(device_type, device_id)."},
    {"__dlpack__", FFI_PY_METHOD(TensorDLPack), METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): a DLPack capsule "
     "sharing this tensor's memory (versioned when max_version >= (1, 0)). The consumer's "
     "`stream` is ordered after this thread's FFI stream for the tensor's device (-1: no "
     "ordering); copy=True gives a copy (CPU tensors)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* WrapTensor(TVMFFIObject* handle, bool read_only) {
  PyObject* t = WrapObject(TensorClass, handle);
  if (t != nullptr) reinterpret_cast<PyTensor*>(t)->read_only = read_only;
  return t;
}

bool InitTensorType(PyObject* module) {
  PyType_Slot tensor_slots[] = {
      {Py_tp_getset, tensor_getset},
      {Py_tp_methods, tensor_methods},
      {Py_tp_repr, FFI_PY_SLOT(TensorRepr)},
      {Py_tp_doc, const_cast<char*>("An n-dimensional array shared through DLPack (zero-copy).")},
      {0, nullptr}};
  PyType_Spec tensor_spec = {"ffi.Tensor", sizeof(PyTensor), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, tensor_slots};
  PyObject* bases = PyTuple_Pack(1, ObjectType);
  TensorType = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&tensor_spec, bases));
  Py_DECREF(bases);
  if (TensorType == nullptr) return false;
  TensorClass = reinterpret_cast<PyTypeObject*>(NewRef(reinterpret_cast<PyObject*>(TensorType)));
  RegisterClass(kTVMFFITensor, TensorType);
  return InitDLPackExport(module) && AddType(module, "Tensor", TensorType);
}

}  // namespace tvm::ffi::python
