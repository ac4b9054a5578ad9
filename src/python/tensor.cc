// ffi.Tensor: an FFI tensor object seen from Python, and its DLPack export.
#include <sstream>
#include <string>
#include <vector>

#include "core.h"

namespace tvm {
namespace ffi {
namespace python {

PyTypeObject* TensorType = nullptr;

namespace {

// ---- Tensor ----------------------------------------------------------------------------------

DLTensor* DL(PyObject* self) {
  return TVMFFITensorGetDLTensorPtr(reinterpret_cast<PyObj*>(self)->handle);
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
  PyObject* shape = PyObject_CallOneArg(reinterpret_cast<PyObject*>(cls), tuple);
  Py_DECREF(tuple);
  return shape;
}

namespace {

PyObject* TensorShape(PyObject* self, void*) {
  DLTensor* t = DL(self);
  return NewShape(t->shape, static_cast<size_t>(t->ndim));
}

PyObject* TensorStrides(PyObject* self, void*) {
  DLTensor* t = DL(self);
  if (t->strides != nullptr) return IntTuple(t->strides, t->ndim);
  std::vector<int64_t> s(static_cast<size_t>(t->ndim));
  detail::FillCompactStrides(t->shape, t->ndim, s.data());
  return IntTuple(s.data(), t->ndim);
}

PyObject* TensorDType(PyObject* self, void*) { return NewDType(DL(self)->dtype); }
PyObject* TensorDevice(PyObject* self, void*) { return NewDevice(DL(self)->device); }
PyObject* TensorNDim(PyObject* self, void*) { return PyLong_FromLong(DL(self)->ndim); }
PyObject* TensorByteOffset(PyObject* self, void*) {
  return PyLong_FromUnsignedLongLong(DL(self)->byte_offset);
}

PyObject* TensorDataPtr(PyObject* self, PyObject*) { return PyLong_FromVoidPtr(DL(self)->data); }
PyObject* TensorIsContiguous(PyObject* self, PyObject*) {
  return PyBool_FromLong(detail::IsContiguous(*DL(self)));
}
PyObject* TensorNumel(PyObject* self, PyObject*) {
  DLTensor* t = DL(self);
  return PyLong_FromLongLong(ShapeView(t->shape, static_cast<size_t>(t->ndim)).Product());
}

PyObject* TensorDLPackDevice(PyObject* self, PyObject*) {
  DLDevice d = DL(self)->device;
  return Py_BuildValue("(ii)", static_cast<int>(d.device_type), d.device_id);
}

void VersionedCapsuleDestructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
  PyErr_Clear();
}

void LegacyCapsuleDestructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
  PyErr_Clear();
}

/*!
 * \brief Whether the tensor's memory is read-only: as imported here, or as the runtime recorded
 * it for a tensor that went through C++ (its versioned export carries the flag).
 */
bool IsReadOnly(PyObject* self) {
  if (reinterpret_cast<PyTensor*>(self)->read_only) return true;
  DLManagedTensorVersioned* m = nullptr;
  if (TVMFFITensorToDLPackVersioned(reinterpret_cast<PyObj*>(self)->handle, &m) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
    return false;
  }
  bool read_only = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  m->deleter(m);
  return read_only;
}

PyObject* TensorDLPack(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kwlist[] = {"stream", "max_version", "dl_device", "copy", nullptr};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO", const_cast<char**>(kwlist), &stream,
                                   &max_version, &dl_device, &copy)) {
    return nullptr;
  }
  DLTensor* t = DL(self);
  if (dl_device != Py_None) {
    int type = 0, id = 0;
    if (!PyArg_ParseTuple(dl_device, "ii", &type, &id)) return nullptr;
    if (type != t->device.device_type || id != t->device.device_id) {
      PyErr_Format(PyExc_BufferError, "ffi.Tensor on %s cannot be exported to device (%d, %d)",
                   DLDeviceToString(t->device).c_str(), type, id);
      return nullptr;
    }
  }
  if (copy == Py_True) {
    PyErr_SetString(PyExc_BufferError, "ffi.Tensor does not copy on export; use copy=None");
    return nullptr;
  }
  long major = 0;
  if (max_version != Py_None) {
    if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) < 1) {
      PyErr_SetString(PyExc_TypeError, "max_version must be a (major, minor) tuple");
      return nullptr;
    }
    major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
    if (major == -1 && PyErr_Occurred()) return nullptr;
  }
  TVMFFIObject* h = reinterpret_cast<PyObj*>(self)->handle;
  if (major >= 1) {
    DLManagedTensorVersioned* m = nullptr;
    if (TVMFFITensorToDLPackVersioned(h, &m) != 0) return RaiseFromFFI(-1);
    PyObject* cap = PyCapsule_New(m, "dltensor_versioned", VersionedCapsuleDestructor);
    if (cap == nullptr) m->deleter(m);
    return cap;
  }
  if (IsReadOnly(self)) {
    PyErr_SetString(PyExc_BufferError,
                    "ffi.Tensor is read-only and the consumer asked for a DLPack version that "
                    "cannot mark it so (pass max_version=(1, 0) or later)");
    return nullptr;
  }
  DLManagedTensor* m = nullptr;
  if (TVMFFITensorToDLPack(h, &m) != 0) return RaiseFromFFI(-1);
  PyObject* cap = PyCapsule_New(m, "dltensor", LegacyCapsuleDestructor);
  if (cap == nullptr) m->deleter(m);
  return cap;
}

PyObject* TensorRepr(PyObject* self) {
  DLTensor* t = DL(self);
  std::ostringstream os;
  os << "ffi.Tensor(shape=" << ShapeView(t->shape, static_cast<size_t>(t->ndim))
     << ", dtype=" << DLDataTypeToString(t->dtype) << ", device=" << DLDeviceToString(t->device)
     << ")";
  std::string s = os.str();
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

PyGetSetDef tensor_getset[] = {
    {"shape", TensorShape, nullptr, "Extents (an ffi.Shape).", nullptr},
    {"strides", TensorStrides, nullptr, "Strides in elements.", nullptr},
    {"dtype", TensorDType, nullptr, "Element type (an ffi.dtype).", nullptr},
    {"device", TensorDevice, nullptr, "Where the data lives (an ffi.Device).", nullptr},
    {"ndim", TensorNDim, nullptr, "Number of dimensions.", nullptr},
    {"byte_offset", TensorByteOffset, nullptr, "Offset in bytes of the first element.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef tensor_methods[] = {
    {"data_ptr", TensorDataPtr, METH_NOARGS, "The data pointer as an int."},
    {"is_contiguous", TensorIsContiguous, METH_NOARGS, "Whether the layout is compact row-major."},
    {"numel", TensorNumel, METH_NOARGS, "Number of elements."},
    {"__dlpack_device__", TensorDLPackDevice, METH_NOARGS, "(device_type, device_id)."},
    {"__dlpack__", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(TensorDLPack)),
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): a DLPack capsule "
     "sharing this tensor's memory (versioned when max_version >= (1, 0))."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* WrapTensor(TVMFFIObject* handle, bool read_only) {
  PyObject* t = WrapObject(TensorType, handle);
  if (t != nullptr) reinterpret_cast<PyTensor*>(t)->read_only = read_only;
  return t;
}

bool InitTensorType(PyObject* module) {
  PyType_Slot tensor_slots[] = {
      {Py_tp_getset, tensor_getset},
      {Py_tp_methods, tensor_methods},
      {Py_tp_repr, reinterpret_cast<void*>(TensorRepr)},
      {Py_tp_doc, const_cast<char*>("An n-dimensional array shared through DLPack (zero-copy).")},
      {0, nullptr}};
  PyType_Spec tensor_spec = {"ffi.Tensor", sizeof(PyTensor), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, tensor_slots};
  PyObject* bases = PyTuple_Pack(1, ObjectType);
  TensorType = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&tensor_spec, bases));
  Py_DECREF(bases);
  if (TensorType == nullptr) return false;
  RegisterClass(kTVMFFITensor, TensorType);

  return AddType(module, "Tensor", TensorType);
}

}  // namespace python
}  // namespace ffi
}  // namespace tvm
