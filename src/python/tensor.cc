// ffi.Tensor, ffi.dtype, ffi.Device, and tensors from any DLPack producer.
#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "core.h"

namespace ffi {
namespace python {

PyTypeObject* TensorType = nullptr;
PyTypeObject* DTypeType = nullptr;
PyTypeObject* DeviceType = nullptr;

namespace {

// ---- DLPack exchange API (e.g. torch.Tensor.__dlpack_c_exchange_api__) ----------------------

/*! \brief Exchange APIs by Python type; types are kept alive so their addresses stay unique. */
struct ExchangeAPICache {
  PyTypeObject* last_type = nullptr;
  const DLPackExchangeAPI* last_api = nullptr;
  std::unordered_map<PyTypeObject*, const DLPackExchangeAPI*> by_type;
};
ExchangeAPICache& APICache() {
  static auto* cache = new ExchangeAPICache();
  return *cache;
}

const DLPackExchangeAPI* LookupExchangeAPI(PyTypeObject* type) {
  PyObject* cap =
      PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack_c_exchange_api__");
  if (cap == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  const DLPackExchangeAPI* api = nullptr;
  if (PyCapsule_IsValid(cap, "dlpack_exchange_api")) {
    api = static_cast<const DLPackExchangeAPI*>(PyCapsule_GetPointer(cap, "dlpack_exchange_api"));
    // Only a table whose layout we know is usable.
    if (api != nullptr && api->header.version.major != DLPACK_MAJOR_VERSION) api = nullptr;
  }
  // The capsule belongs to the (immortal) type; the table outlives our use.
  Py_DECREF(cap);
  PyErr_Clear();
  return api;
}

// ---- NumPy arrays read directly (their object layout is stable across NumPy 1.x and 2.x) ------

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
struct NumpyDescrFields {
  PyObject_HEAD PyTypeObject* typeobj;
  char kind;
  char type;
  char byteorder;
  char flags;
  int type_num;
};
PyTypeObject* numpy_array_type = nullptr;

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

// ---- dtype -------------------------------------------------------------------------------------

PyObject* DTypeNew(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  PyObject* spec = nullptr;
  static const char* kwlist[] = {"dtype", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", const_cast<char**>(kwlist), &spec)) {
    return nullptr;
  }
  if (Py_TYPE(spec) == DTypeType) {
    Py_INCREF(spec);
    return spec;
  }
  // str, numpy.dtype ("float32"), torch.dtype ("torch.float32") or a scalar type (np.float32).
  std::string str;
  if (!TakeText(PyType_Check(spec) ? PyObject_GetAttrString(spec, "__name__") : PyObject_Str(spec),
                &str)) {
    return nullptr;
  }
  if (str.rfind("torch.", 0) == 0) str = str.substr(6);
  try {
    return NewDType(DLDataTypeFromString(str));
  } catch (const Error& e) {
    PyErr_SetString(PyExc_ValueError, e.message().c_str());
    return nullptr;
  }
}

DLDataType DT(PyObject* self) { return reinterpret_cast<PyDType*>(self)->dtype; }

PyObject* DTypeStr(PyObject* self) {
  return PyUnicode_FromString(DLDataTypeToString(DT(self)).c_str());
}
PyObject* DTypeRepr(PyObject* self) {
  return PyUnicode_FromFormat("dtype('%s')", DLDataTypeToString(DT(self)).c_str());
}
Py_hash_t DTypeHash(PyObject* self) {
  DLDataType d = DT(self);
  Py_hash_t h = (static_cast<Py_hash_t>(d.code) << 24) ^ (d.bits << 16) ^ d.lanes;
  return h == -1 ? -2 : h;
}
PyObject* DTypeRichCompare(PyObject* self, PyObject* other, int op) {
  if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
  bool eq;
  if (Py_TYPE(other) == DTypeType) {
    eq = DT(self) == DT(other);
  } else if (PyUnicode_Check(other)) {
    eq = PyUnicode_CompareWithASCIIString(other, DLDataTypeToString(DT(self)).c_str()) == 0;
  } else {
    Py_RETURN_NOTIMPLEMENTED;
  }
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
PyObject* DTypeCode(PyObject* self, void*) { return PyLong_FromLong(DT(self).code); }
PyObject* DTypeBits(PyObject* self, void*) { return PyLong_FromLong(DT(self).bits); }
PyObject* DTypeLanes(PyObject* self, void*) { return PyLong_FromLong(DT(self).lanes); }
PyObject* DTypeItemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(GetDataSize(1, DT(self)));
}

PyGetSetDef dtype_getset[] = {
    {"type_code", DTypeCode, nullptr, "The DLDataTypeCode.", nullptr},
    {"bits", DTypeBits, nullptr, "Bits per lane.", nullptr},
    {"lanes", DTypeLanes, nullptr, "Vector lanes.", nullptr},
    {"itemsize", DTypeItemsize, nullptr, "Bytes per element (rounded up).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- Device ------------------------------------------------------------------------------------

DLDevice DV(PyObject* self) { return reinterpret_cast<PyDevice*>(self)->device; }

PyObject* DeviceNew(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  PyObject* type = nullptr;
  PyObject* index = Py_None;
  static const char* kwlist[] = {"type", "index", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kwlist), &type,
                                   &index)) {
    return nullptr;
  }
  if (Py_TYPE(type) == DeviceType && index == Py_None) {
    Py_INCREF(type);
    return type;
  }
  DLDevice d{kDLCPU, 0};
  try {
    if (PyLong_Check(type)) {
      d.device_type = static_cast<DLDeviceType>(PyLong_AsLong(type));
    } else {
      std::string str;
      if (!TakeText(PyObject_Str(type), &str)) return nullptr;  // also torch.device("cuda:1")
      d = DLDeviceFromString(str);
    }
  } catch (const Error& e) {
    PyErr_SetString(PyExc_ValueError, e.message().c_str());
    return nullptr;
  }
  if (index != Py_None) {
    long id = PyLong_AsLong(index);
    if (id == -1 && PyErr_Occurred()) return nullptr;
    d.device_id = static_cast<int32_t>(id);
  }
  return NewDevice(d);
}

PyObject* DeviceStr(PyObject* self) {
  return PyUnicode_FromString(DLDeviceToString(DV(self)).c_str());
}
PyObject* DeviceRepr(PyObject* self) {
  DLDevice d = DV(self);
  return PyUnicode_FromFormat("device(type='%s', index=%d)",
                              DLDeviceTypeToString(d.device_type).c_str(), d.device_id);
}
Py_hash_t DeviceHash(PyObject* self) {
  DLDevice d = DV(self);
  Py_hash_t h = (static_cast<Py_hash_t>(d.device_type) << 20) ^ d.device_id;
  return h == -1 ? -2 : h;
}
PyObject* DeviceRichCompare(PyObject* self, PyObject* other, int op) {
  if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
  if (Py_TYPE(other) != DeviceType) Py_RETURN_NOTIMPLEMENTED;
  bool eq = DV(self) == DV(other);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
PyObject* DeviceType_(PyObject* self, void*) {
  return PyUnicode_FromString(DLDeviceTypeToString(DV(self).device_type).c_str());
}
PyObject* DeviceIndex(PyObject* self, void*) { return PyLong_FromLong(DV(self).device_id); }
PyObject* DeviceDLPackType(PyObject* self, PyObject*) {
  return PyLong_FromLong(DV(self).device_type);
}

PyGetSetDef device_getset[] = {
    {"type", DeviceType_, nullptr, "Device type name, e.g. \"cuda\".", nullptr},
    {"index", DeviceIndex, nullptr, "Device ordinal.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef device_methods[] = {
    {"dlpack_device_type", DeviceDLPackType, METH_NOARGS, "The DLDeviceType number."},
    {nullptr, nullptr, 0, nullptr}};

/*!
 * \brief Keeps the Python object that owns a tensor's memory alive for as long as the imported
 * tensor lives. The import copies shape and strides, so only the data must stay valid: holding
 * the owner is what a framework's own DLPack export does (it too references the same tensor).
 */
struct PyOwnerHolder {
  DLManagedTensorVersioned managed;
  PyObject* owner;
  static void Delete(DLManagedTensorVersioned* self) {
    auto* h = static_cast<PyOwnerHolder*>(self->manager_ctx);
    if (Py_IsInitialized()) {
      PyGILState_STATE g = PyGILState_Ensure();
      Py_DECREF(h->owner);
      PyGILState_Release(g);
    }
    delete h;
  }
};

/*! \brief Imports a borrowed view of `owner`'s memory as an owning Tensor object. */
TVMFFIObject* ImportView(PyObject* owner, const DLTensor& view, int32_t require_alignment,
                         bool require_contiguous, uint64_t flags = 0) {
  auto* h = new PyOwnerHolder();
  h->owner = owner;
  Py_INCREF(owner);
  h->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  h->managed.manager_ctx = h;
  h->managed.deleter = PyOwnerHolder::Delete;
  h->managed.flags = flags;
  h->managed.dl_tensor = view;
  TVMFFIObjectHandle out = nullptr;
  // On refusal the runtime has already run the deleter.
  if (TVMFFITensorFromDLPackVersioned(&h->managed, require_alignment, require_contiguous, &out) !=
      0) {
    return RaiseFromFFI(-1), nullptr;
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
  PyObject* cap = PyObject_Call(method, empty, kwargs);
  if (cap == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();  // a producer from before max_version
    cap = PyObject_Call(method, empty, nullptr);
  }
  Py_DECREF(empty);
  Py_XDECREF(kwargs);
  Py_DECREF(method);
  return cap;
}

}  // namespace

const DLPackExchangeAPI* ExchangeAPIOf(PyTypeObject* type) {
  ExchangeAPICache& c = APICache();
  if (type == c.last_type) return c.last_api;
  auto it = c.by_type.find(type);
  const DLPackExchangeAPI* api;
  if (it != c.by_type.end()) {
    api = it->second;
  } else {
    api = LookupExchangeAPI(type);
    Py_INCREF(type);
    c.by_type.emplace(type, api);
  }
  c.last_type = type;
  c.last_api = api;
  return api;
}

bool NumpyArrayView(PyObject* obj, DLTensor* out, int64_t* strides_buf, int32_t strides_cap) {
  PyTypeObject* type = Py_TYPE(obj);
  if (type != numpy_array_type) {
    if (numpy_array_type != nullptr || std::strcmp(type->tp_name, "numpy.ndarray") != 0) {
      return false;
    }
    Py_INCREF(type);
    numpy_array_type = type;
  }
  auto* a = reinterpret_cast<NumpyArrayFields*>(obj);
  auto* d = reinterpret_cast<NumpyDescrFields*>(a->descr);
  if (d->byteorder == '>' || !NumpyDType(d->type_num, &out->dtype)) return false;
  int64_t itemsize = out->dtype.bits / 8;
  out->data = a->data;
  out->device = {kDLCPU, 0};
  out->ndim = a->nd;
  out->shape = reinterpret_cast<int64_t*>(a->dimensions);
  out->byte_offset = 0;
  out->strides = nullptr;
  int64_t expected = itemsize;
  bool compact = true;
  for (int i = a->nd - 1; i >= 0; --i) {
    if (a->dimensions[i] != 1 && a->strides[i] != expected) compact = false;
    expected *= a->dimensions[i];
  }
  if (compact) return true;
  if (a->nd > strides_cap) return false;
  for (int i = 0; i < a->nd; ++i) {
    if (a->strides[i] % itemsize != 0) return false;  // not expressible in elements
    strides_buf[i] = a->strides[i] / itemsize;
  }
  out->strides = strides_buf;
  return true;
}

TVMFFIObject* TensorFromDLPackProducer(PyObject* obj, int32_t require_alignment,
                                       bool require_contiguous) {
  TVMFFIObjectHandle out = nullptr;
  DLTensor view;
  if (const DLPackExchangeAPI* api = ExchangeAPIOf(Py_TYPE(obj))) {
    if (api->dltensor_from_py_object_no_sync != nullptr) {
      // A borrowed view plus a reference to the framework tensor: no export object to build.
      if (api->dltensor_from_py_object_no_sync(obj, &view) != 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack view failed");
        return nullptr;
      }
      return ImportView(obj, view, require_alignment, require_contiguous);
    }
    DLManagedTensorVersioned* m = nullptr;
    if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack export failed");
      return nullptr;
    }
    if (TVMFFITensorFromDLPackVersioned(m, require_alignment, require_contiguous, &out) != 0) {
      return RaiseFromFFI(-1), nullptr;
    }
    return static_cast<TVMFFIObject*>(out);
  }
  int64_t strides[16];
  if (NumpyArrayView(obj, &view, strides, 16)) {
    bool writeable = reinterpret_cast<NumpyArrayFields*>(obj)->flags & kNumpyWriteable;
    return ImportView(obj, view, require_alignment, require_contiguous,
                      writeable ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY);
  }
  PyObject* cap = CallDLPack(obj);
  if (cap == nullptr) return nullptr;
  int rc;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    PyCapsule_SetName(cap, "used_dltensor_versioned");  // consumed: we own it now
    rc = TVMFFITensorFromDLPackVersioned(m, require_alignment, require_contiguous, &out);
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    PyCapsule_SetName(cap, "used_dltensor");
    rc = TVMFFITensorFromDLPack(m, require_alignment, require_contiguous, &out);
  } else {
    Py_DECREF(cap);
    PyErr_Format(PyExc_TypeError, "`%s.__dlpack__()` did not return a DLPack capsule",
                 Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  Py_DECREF(cap);
  if (rc != 0) return RaiseFromFFI(rc), nullptr;
  return static_cast<TVMFFIObject*>(out);
}

PyObject* NewDType(DLDataType dtype) {
  PyObject* o = DTypeType->tp_alloc(DTypeType, 0);
  if (o != nullptr) reinterpret_cast<PyDType*>(o)->dtype = dtype;
  return o;
}

PyObject* NewDevice(DLDevice device) {
  PyObject* o = DeviceType->tp_alloc(DeviceType, 0);
  if (o != nullptr) reinterpret_cast<PyDevice*>(o)->device = device;
  return o;
}

bool InitTensorTypes(PyObject* module) {
  PyType_Slot tensor_slots[] = {
      {Py_tp_getset, tensor_getset},
      {Py_tp_methods, tensor_methods},
      {Py_tp_repr, reinterpret_cast<void*>(TensorRepr)},
      {Py_tp_doc, const_cast<char*>("An n-dimensional array shared through DLPack (zero-copy).")},
      {0, nullptr}};
  PyType_Spec tensor_spec = {"ffi.Tensor", sizeof(PyObj), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, tensor_slots};
  PyObject* bases = PyTuple_Pack(1, ObjectType);
  TensorType = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&tensor_spec, bases));
  Py_DECREF(bases);
  if (TensorType == nullptr) return false;
  RegisterClass(kTVMFFITensor, TensorType);

  PyType_Slot dtype_slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(DTypeNew)},
      {Py_tp_str, reinterpret_cast<void*>(DTypeStr)},
      {Py_tp_repr, reinterpret_cast<void*>(DTypeRepr)},
      {Py_tp_hash, reinterpret_cast<void*>(DTypeHash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(DTypeRichCompare)},
      {Py_tp_getset, dtype_getset},
      {Py_tp_doc, const_cast<char*>("An element type: ffi.dtype(\"float32\"), also from NumPy "
                                    "and PyTorch dtypes.")},
      {0, nullptr}};
  PyType_Spec dtype_spec = {"ffi.dtype", sizeof(PyDType), 0, Py_TPFLAGS_DEFAULT, dtype_slots};
  DTypeType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&dtype_spec));
  if (DTypeType == nullptr) return false;

  PyType_Slot device_slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(DeviceNew)},
      {Py_tp_str, reinterpret_cast<void*>(DeviceStr)},
      {Py_tp_repr, reinterpret_cast<void*>(DeviceRepr)},
      {Py_tp_hash, reinterpret_cast<void*>(DeviceHash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(DeviceRichCompare)},
      {Py_tp_getset, device_getset},
      {Py_tp_methods, device_methods},
      {Py_tp_doc, const_cast<char*>("A device: ffi.Device(\"cuda:1\"), ffi.Device(\"cuda\", 1), "
                                    "also from torch.device.")},
      {0, nullptr}};
  PyType_Spec device_spec = {"ffi.Device", sizeof(PyDevice), 0, Py_TPFLAGS_DEFAULT, device_slots};
  DeviceType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&device_spec));
  if (DeviceType == nullptr) return false;
  return AddType(module, "Tensor", TensorType) && AddType(module, "dtype", DTypeType) &&
         AddType(module, "Device", DeviceType);
}

}  // namespace python
}  // namespace ffi
