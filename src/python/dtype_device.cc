// ffi.dtype and ffi.Device: DLDataType and DLDevice as small immutable Python values.
#include "dtype_device.h"

#include <new>
#include <string>
#include <unordered_map>

#include "arguments.h"
#include "boundary.h"
#include "free_threading.h"
#include "objects.h"
#include "py_text.h"

namespace tvm::ffi::python {

PyTypeObject* DTypeType = nullptr;
PyTypeObject* DeviceType = nullptr;
std::atomic<PyTypeObject*> DTypeClass{nullptr};
std::atomic<PyTypeObject*> DeviceClass{nullptr};

namespace {

/*! \brief At most this many canonical dtype objects are kept for reuse (NewDType). */
constexpr size_t kMaxSharedDTypes = 256;

// ---- dtype -------------------------------------------------------------------------------------

/*!
 * \brief A new `cls` (ffi.dtype or a subclass) naming `dtype` with `text` (a str; NULL: the
 * canonical name). Plain str.__new__ makes the text part, as for any str subclass.
 */
PyObject* MakeDType(PyTypeObject* cls, DLDataType dtype, PyObject* text) {
  PyObject* owned = nullptr;
  if (text == nullptr) {
    // An unknown type code is the runtime's ValueError (as the class registered for its kind).
    try {
      text = owned = PyUnicode_FromString(DLDataTypeToString(dtype).c_str());
    }
    FFI_PY_CATCH(return nullptr)
    if (text == nullptr) return nullptr;
  }
  PyObject* args = PyTuple_Pack(1, text);
  Py_XDECREF(owned);
  if (args == nullptr) return nullptr;
  PyObject* o = PyUnicode_Type.tp_new(cls, args, nullptr);
  Py_DECREF(args);
  if (o != nullptr) reinterpret_cast<PyDType*>(o)->dtype = dtype;
  return o;
}

PyObject* DTypeNew(PyTypeObject* cls, PyObject* args, PyObject* kwargs) {
  // dtype(content): the reference's parameter name; `dtype=`, this package's earlier name, too.
  PyObject* spec = nullptr;
  static const char* kwlist[] = {"content", nullptr};
  static const char* legacy_kwlist[] = {"dtype", nullptr};
  bool legacy = kwargs != nullptr && PyDict_GET_SIZE(kwargs) == 1 &&
                PyDict_GetItemString(kwargs, "dtype") != nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:dtype",
                                   const_cast<char**>(legacy ? legacy_kwlist : kwlist), &spec)) {
    return nullptr;
  }
  if (Py_TYPE(spec) == cls) {
    Py_INCREF(spec);
    return spec;
  }
  DLDataType dtype;
  if (!DTypeFromPython(spec, &dtype)) return nullptr;
  // Text keeps the spelling it was given ("i8" stays "i8"); the canonical spelling, or anything
  // but a str, gets the shared dtype of that name.
  if (PyUnicode_Check(spec)) {
    std::string canonical;
    bool named = true;
    try {
      canonical = DLDataTypeToString(dtype);
    } catch (const Error&) {
      named = false;
    }
    if (!named || PyUnicode_CompareWithASCIIString(spec, canonical.c_str()) != 0) {
      return MakeDType(cls, dtype, spec);
    }
  }
  return cls == DTypeClass ? NewDType(dtype) : MakeDType(cls, dtype, nullptr);
}

DLDataType DT(PyObject* self) { return reinterpret_cast<PyDType*>(self)->dtype; }

PyObject* DTypeRepr(PyObject* self) { return PyUnicode_FromFormat("dtype('%U')", self); }
PyObject* DTypeCode(PyObject* self, void*) { return PyLong_FromLong(DT(self).code); }
PyObject* DTypeBits(PyObject* self, void*) { return PyLong_FromLong(DT(self).bits); }
// Lanes past INT16_MAX encode scalable vectors: -4 is "x vscale x 4", as the reference reads them.
PyObject* DTypeLanes(PyObject* self, void*) {
  return PyLong_FromLong(static_cast<int16_t>(DT(self).lanes));
}
PyObject* DTypeItemsize(PyObject* self, void*) {
  if (static_cast<int16_t>(DT(self).lanes) < 0) {
    return PyErr_Format(PyExc_ValueError, "%R is a scalable vector: its size is known at run time",
                        self);
  }
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
    {"type_code", FFI_PY_ENTRY(DTypeCode), nullptr, "The DLDataTypeCode.", nullptr},
    {"bits", FFI_PY_ENTRY(DTypeBits), nullptr, "Bits per lane.", nullptr},
    {"lanes", FFI_PY_ENTRY(DTypeLanes), nullptr,
     "Vector lanes (negative for a scalable vector: -4 is \"x vscale x 4\").", nullptr},
    {"itemsize", FFI_PY_ENTRY(DTypeItemsize), nullptr,
     "Bytes per element (rounded up); ValueError for a scalable vector.", nullptr},
    {"is_bool", FFI_PY_ENTRY(DTypeIsBool), nullptr, "Whether this is bool.", nullptr},
    {"is_integer", FFI_PY_ENTRY(DTypeIsInteger), nullptr,
     "Whether this is a signed or unsigned int.", nullptr},
    {"is_float", FFI_PY_ENTRY(DTypeIsFloat), nullptr,
     "Whether this is a float (bfloat16, fp8/6/4 included).", nullptr},
    {"is_handle", FFI_PY_ENTRY(DTypeIsHandle), nullptr, "Whether this is an opaque handle.",
     nullptr},
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
  // At most 32767: the lanes field reads signed, negative values being scalable vectors.
  if (!TakeField(arg, "lanes", 1, 0x7FFF, &lanes)) return nullptr;
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
  DLDataType dtype;
  if (DTypeFromPython(arg, &dtype)) Py_RETURN_TRUE;
  if (!PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_TypeError)) {
    return nullptr;
  }
  PyErr_Clear();
  Py_RETURN_FALSE;
}

/*! \brief Pickling: ffi.dtype(text), the spelling kept. */
PyObject* DTypeReduce(PyObject* self, PyObject*) {
  PyObject* text = PyUnicode_FromObject(self);  // a plain str copy
  if (text == nullptr) return nullptr;
  return Py_BuildValue("O(N)", reinterpret_cast<PyObject*>(Py_TYPE(self)), text);
}

PyMethodDef dtype_methods[] = {
    {"with_lanes", FFI_PY_ENTRY(DTypeWithLanes), METH_O,
     "The same element type with `lanes` lanes."},
    {"__reduce__", FFI_PY_ENTRY(DTypeReduce), METH_NOARGS, "Pickling support."},
    {"from_dlpack_data_type", FFI_PY_ENTRY(DTypeFromDLPackDataType), METH_O | METH_STATIC,
     "The dtype of a DLPack (type_code, bits, lanes) tuple."},
    {"is_dtype", FFI_PY_ENTRY(DTypeIsDType), METH_O | METH_STATIC,
     "Whether ffi.dtype() accepts the argument."},
    {nullptr, nullptr, 0, nullptr}};

// ---- Device ------------------------------------------------------------------------------------

DLDevice DV(PyObject* self) { return reinterpret_cast<PyDevice*>(self)->device; }

/*! \brief A new `cls` (ffi.Device or a subclass) for `device`. */
PyObject* MakeDevice(PyTypeObject* cls, DLDevice device) {
  PyObject* o = cls->tp_alloc(cls, 0);
  if (o != nullptr) reinterpret_cast<PyDevice*>(o)->device = device;
  return o;
}

PyObject* DeviceNew(PyTypeObject* cls, PyObject* args, PyObject* kwargs) {
  PyObject* type = nullptr;
  PyObject* index = Py_None;
  static const char* kwlist[] = {"type", "index", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kwlist), &type,
                                   &index)) {
    return nullptr;
  }
  if (Py_TYPE(type) == cls && index == Py_None) {
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
      if (!detail::TryParseDevice(str, &d) && str.find(':') == std::string::npos) {
        // A bare name that is no device type ("llvm", "nvptx"), worded as the reference does.
        PyErr_Format(PyExc_ValueError, "Unknown device: %s", str.c_str());
        return nullptr;
      }
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
  return MakeDevice(cls, d);
}

PyObject* DeviceStr(PyObject* self) {
  // Always "<type>:<index>" ("cpu:0" too), as the reference's str() of a device.
  DLDevice d = DV(self);
  return PyUnicode_FromFormat("%s:%d", DLDeviceTypeToString(d.device_type).c_str(), d.device_id);
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
  if (!PyObject_TypeCheck(other, DeviceType)) Py_RETURN_NOTIMPLEMENTED;
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
    {"type", FFI_PY_ENTRY(DeviceType_), nullptr, "Device type name, e.g. \"cuda\".", nullptr},
    {"index", FFI_PY_ENTRY(DeviceIndex), nullptr, "Device ordinal.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
/*! \brief Pickling: Device(device_type, index). */
PyObject* DeviceReduce(PyObject* self, PyObject*) {
  return Py_BuildValue("O(ii)", reinterpret_cast<PyObject*>(Py_TYPE(self)),
                       static_cast<int>(DV(self).device_type), DV(self).device_id);
}

PyMethodDef device_methods[] = {
    {"dlpack_device_type", FFI_PY_ENTRY(DeviceDLPackType), METH_NOARGS, "The DLDeviceType number."},
    {"__reduce__", FFI_PY_ENTRY(DeviceReduce), METH_NOARGS, "Pickling support."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* NewDType(DLDataType dtype) {
  // dtypes are immutable: the few a program meets are made once and shared. A subclass set by
  // the package (ffi.core._set_class_dtype) gets new objects, which keeps the shared ones intact.
  PyTypeObject* cls = DTypeClass.load(std::memory_order_acquire);
  if (cls != DTypeType) return MakeDType(cls, dtype, nullptr);
  static auto* made = new std::unordered_map<uint32_t, PyObject*>();
  static TableLock lock;  // calls on other threads read and fill it (free-threaded Python)
  uint32_t key = static_cast<uint32_t>(dtype.code) | static_cast<uint32_t>(dtype.bits) << 8 |
                 static_cast<uint32_t>(dtype.lanes) << 16;
  {
    TableGuard guard(lock);
    auto it = made->find(key);
    if (it != made->end()) return NewRef(it->second);
  }
  PyObject* o = MakeDType(DTypeType, dtype, nullptr);  // Python code: outside the lock
  if (o == nullptr) return nullptr;
  TableGuard guard(lock);
  auto it = made->find(key);
  if (it != made->end()) {  // made meanwhile by another thread: share that one
    Py_DECREF(o);
    return NewRef(it->second);
  }
  if (made->size() < kMaxSharedDTypes) {
    try {
      made->emplace(key, o);
      Py_INCREF(o);  // the table's reference
    } catch (const std::bad_alloc&) {
      // Not shared: the next one is made anew.
    }
  }
  return o;
}

bool DTypeFromPython(PyObject* spec, DLDataType* out) {
  if (PyObject_TypeCheck(spec, DTypeType)) {
    *out = DT(spec);
    return true;
  }
  // str, numpy.dtype ("float32"), torch.dtype ("torch.float32") or a scalar type (np.float32).
  std::string str;
  if (!TakeText(PyType_Check(spec) ? PyObject_GetAttrString(spec, "__name__") : PyObject_Str(spec),
                &str)) {
    return false;
  }
  if (str.rfind("torch.", 0) == 0) str = str.substr(6);
  try {
    *out = DLDataTypeFromString(str);
    return true;
  } catch (const Error& e) {
    PyErr_SetString(PyExc_ValueError, e.message().c_str());
    return false;
  }
}

PyObject* NewDevice(DLDevice device) { return MakeDevice(DeviceClass, device); }

bool InitDTypeDeviceTypes(PyObject* module) {
  static const char dtype_doc[] =
      "dtype(content)\n--\n\nAn element type: ffi.dtype(\"float32\"), also from NumPy and PyTorch "
      "dtypes. A str: the text it was made from (compared and hashed as that text).";
  PyType_Slot dtype_slots[] = {
      {Py_tp_new, FFI_PY_SLOT(DTypeNew)},
      {Py_tp_repr, FFI_PY_SLOT(DTypeRepr)},
      {Py_tp_getset, dtype_getset},
      {Py_tp_methods, dtype_methods},
      // "dtype(content)\n--\n\n": the signature inspect.signature(ffi.dtype) reads (kept on 3.9
      // by KeepTextSignature).
      {Py_tp_doc, const_cast<char*>(dtype_doc)},
      {0, nullptr}};
  PyType_Spec dtype_spec = {"ffi.dtype", sizeof(PyDType), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, dtype_slots};
  PyObject* dtype_bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&PyUnicode_Type));
  if (dtype_bases == nullptr) return false;
  DTypeType = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&dtype_spec, dtype_bases));
  Py_DECREF(dtype_bases);
  if (DTypeType == nullptr || !KeepTextSignature(DTypeType, dtype_doc)) return false;

  PyType_Slot device_slots[] = {
      {Py_tp_new, FFI_PY_SLOT(DeviceNew)},
      {Py_tp_str, FFI_PY_SLOT(DeviceStr)},
      {Py_tp_repr, FFI_PY_SLOT(DeviceRepr)},
      {Py_tp_hash, FFI_PY_SLOT(DeviceHash)},
      {Py_tp_richcompare, FFI_PY_SLOT(DeviceRichCompare)},
      {Py_tp_getset, device_getset},
      {Py_tp_methods, device_methods},
      {Py_tp_doc, const_cast<char*>("A device: ffi.Device(\"cuda:1\"), ffi.Device(\"cuda\", 1), "
                                    "also from torch.device.")},
      {0, nullptr}};
  PyType_Spec device_spec = {"ffi.Device", sizeof(PyDevice), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, device_slots};
  DeviceType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&device_spec));
  if (DeviceType == nullptr) return false;
  DTypeClass = reinterpret_cast<PyTypeObject*>(NewRef(reinterpret_cast<PyObject*>(DTypeType)));
  DeviceClass = reinterpret_cast<PyTypeObject*>(NewRef(reinterpret_cast<PyObject*>(DeviceType)));
  return AddType(module, "dtype", DTypeType) && AddType(module, "Device", DeviceType);
}

}  // namespace tvm::ffi::python
