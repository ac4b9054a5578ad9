// ffi.dtype and ffi.Device: DLDataType and DLDevice as small immutable Python values.
#include <string>

#include "core.h"

namespace tvm {
namespace ffi {
namespace python {

PyTypeObject* DTypeType = nullptr;
PyTypeObject* DeviceType = nullptr;

namespace {

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

// The predicates group codes as the reference does: bfloat16 and the narrow floats are floats.
PyObject* DTypeIsBool(PyObject* self, void*) { return PyBool_FromLong(DT(self).code == kDLBool); }
PyObject* DTypeIsInteger(PyObject* self, void*) {
  return PyBool_FromLong(DT(self).code == kDLInt || DT(self).code == kDLUInt);
}
PyObject* DTypeIsFloat(PyObject* self, void*) {
  uint8_t c = DT(self).code;
  return PyBool_FromLong(c == kDLFloat || c == kDLBfloat ||
                         (c >= kDLFloat8_e3m4 && c <= kDLFloat4_e2m1fn));
}
PyObject* DTypeIsHandle(PyObject* self, void*) {
  return PyBool_FromLong(DT(self).code == kDLOpaqueHandle);
}

PyGetSetDef dtype_getset[] = {
    {"type_code", DTypeCode, nullptr, "The DLDataTypeCode.", nullptr},
    {"bits", DTypeBits, nullptr, "Bits per lane.", nullptr},
    {"lanes", DTypeLanes, nullptr, "Vector lanes.", nullptr},
    {"itemsize", DTypeItemsize, nullptr, "Bytes per element (rounded up).", nullptr},
    {"is_bool", DTypeIsBool, nullptr, "Whether this is bool.", nullptr},
    {"is_integer", DTypeIsInteger, nullptr, "Whether this is a signed or unsigned int.", nullptr},
    {"is_float", DTypeIsFloat, nullptr, "Whether this is a float (bfloat16, fp8/6/4 included).",
     nullptr},
    {"is_handle", DTypeIsHandle, nullptr, "Whether this is an opaque handle.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// Reads a Python int into [lo, hi]; TypeError for a non-int, ValueError outside the range.
bool TakeField(PyObject* obj, const char* what, long lo, long hi, long* out) {
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, got %s", what, Py_TYPE(obj)->tp_name);
    return false;
  }
  int overflow = 0;
  *out = PyLong_AsLongAndOverflow(obj, &overflow);
  if (overflow != 0 || *out < lo || *out > hi) {
    PyErr_Format(PyExc_ValueError, "%s must be in [%ld, %ld], got %S", what, lo, hi, obj);
    return false;
  }
  return true;
}

PyObject* DTypeWithLanes(PyObject* self, PyObject* arg) {
  long lanes = 0;
  if (!TakeField(arg, "lanes", 1, 0xFFFF, &lanes)) return nullptr;
  DLDataType d = DT(self);
  d.lanes = static_cast<uint16_t>(lanes);
  return NewDType(d);
}

PyObject* DTypeFromDLPackDataType(PyObject*, PyObject* arg) {
  if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 3) {
    PyErr_SetString(PyExc_TypeError,
                    "from_dlpack_data_type expects a tuple (type_code, bits, lanes)");
    return nullptr;
  }
  long code = 0, bits = 0, lanes = 0;
  if (!TakeField(PyTuple_GET_ITEM(arg, 0), "type_code", 0, kDLFloat4_e2m1fn, &code) ||
      !TakeField(PyTuple_GET_ITEM(arg, 1), "bits", 0, 0xFF, &bits) ||
      !TakeField(PyTuple_GET_ITEM(arg, 2), "lanes", 0, 0xFFFF, &lanes)) {
    return nullptr;
  }
  return NewDType(DLDataType{static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                             static_cast<uint16_t>(lanes)});
}

PyObject* DTypeIsDType(PyObject*, PyObject* arg) {
  // Whatever ffi.dtype() accepts; its ValueError or TypeError means no.
  PyObject* args = PyTuple_Pack(1, arg);
  if (args == nullptr) return nullptr;
  PyObject* d = DTypeNew(DTypeType, args, nullptr);
  Py_DECREF(args);
  if (d != nullptr) {
    Py_DECREF(d);
    Py_RETURN_TRUE;
  }
  if (!PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_TypeError)) {
    return nullptr;
  }
  PyErr_Clear();
  Py_RETURN_FALSE;
}

/*! \brief Pickling: dtype.from_dlpack_data_type((code, bits, lanes)). */
PyObject* DTypeReduce(PyObject* self, PyObject*) {
  DLDataType d = reinterpret_cast<PyDType*>(self)->dtype;
  PyObject* make =
      PyObject_GetAttrString(reinterpret_cast<PyObject*>(DTypeType), "from_dlpack_data_type");
  if (make == nullptr) return nullptr;
  return Py_BuildValue("N((iii))", make, d.code, d.bits, d.lanes);
}

PyMethodDef dtype_methods[] = {
    {"with_lanes", DTypeWithLanes, METH_O, "The same element type with `lanes` lanes."},
    {"__reduce__", DTypeReduce, METH_NOARGS, "Pickling support."},
    {"from_dlpack_data_type", DTypeFromDLPackDataType, METH_O | METH_STATIC,
     "The dtype of a DLPack (type_code, bits, lanes) tuple."},
    {"is_dtype", DTypeIsDType, METH_O | METH_STATIC, "Whether ffi.dtype() accepts the argument."},
    {nullptr, nullptr, 0, nullptr}};

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
      long long code = 0;
      if (!IntInRange(type, 1, INT32_MAX, "Device type code", &code)) return nullptr;
      d.device_type = static_cast<DLDeviceType>(code);
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
    long long id = 0;
    if (!IntInRange(index, INT32_MIN, INT32_MAX, "Device index", &id)) return nullptr;
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
/*! \brief Pickling: Device(device_type, index). */
PyObject* DeviceReduce(PyObject* self, PyObject*) {
  return Py_BuildValue("O(ii)", reinterpret_cast<PyObject*>(DeviceType),
                       static_cast<int>(DV(self).device_type), DV(self).device_id);
}

PyMethodDef device_methods[] = {
    {"dlpack_device_type", DeviceDLPackType, METH_NOARGS, "The DLDeviceType number."},
    {"__reduce__", DeviceReduce, METH_NOARGS, "Pickling support."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

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

bool InitDTypeDeviceTypes(PyObject* module) {
  PyType_Slot dtype_slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(DTypeNew)},
      {Py_tp_str, reinterpret_cast<void*>(DTypeStr)},
      {Py_tp_repr, reinterpret_cast<void*>(DTypeRepr)},
      {Py_tp_hash, reinterpret_cast<void*>(DTypeHash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(DTypeRichCompare)},
      {Py_tp_getset, dtype_getset},
      {Py_tp_methods, dtype_methods},
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
  return AddType(module, "dtype", DTypeType) && AddType(module, "Device", DeviceType);
}

}  // namespace python
}  // namespace ffi
}  // namespace tvm
