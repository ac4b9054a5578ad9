// Python <-> TVMFFIAny values. Call arguments (call.cc) borrow where they can and come here for
// everything else; callback results and stored values always come here.
#include "convert.h"

#include <cstring>
#include <string_view>
#include <vector>

#include "arguments.h"
#include "boundary.h"
#include "callback.h"
#include "classify.h"
#include "containers.h"
#include "dlpack_export.h"
#include "dlpack_import.h"
#include "dtype_device.h"
#include "errors.h"
#include "foreign.h"
#include "hooks.h"
#include "objects.h"
#include "py_text.h"
#include "reflection.h"
#include "tensor.h"

namespace tvm::ffi::python {

// ToOwnedAny and ToPython convert the C++ exceptions of what they build (a String too large to
// copy, ...) into the Python error they report: their callers (calls, containers, callbacks the
// runtime makes) release what they hold on a false or NULL return, and never see an exception.

bool ToOwnedAny(PyObject* value, TVMFFIAny* out) { return ToOwnedAny(value, Classify(value), out); }

namespace {
/*!
 * \brief The items of the tuple a protocol method returned, as int64s into `out`; false with a
 * TypeError naming the method when the result is not a tuple of exactly `n` ints.
 */
bool ProtocolInts(PyObject* made, Protocol protocol, Py_ssize_t n, long long* out) {
  if (!PyTuple_Check(made)) {
    PyErr_Format(PyExc_TypeError, "%U() must return a tuple of %zd items, not `%s`",
                 ProtocolMethod(protocol), n, Py_TYPE(made)->tp_name);
    return false;
  }
  if (PyTuple_GET_SIZE(made) != n) {
    const char* items = protocol == Protocol::kDevice     ? "a (device_type, device_id) pair"
                        : protocol == Protocol::kDataType ? "a (type_code, bits, lanes) triple"
                                                          : "a (version, handle) pair";
    PyErr_Format(PyExc_TypeError, "%U() must return a tuple of %zd items, %s, not %zd items",
                 ProtocolMethod(protocol), n, items, PyTuple_GET_SIZE(made));
    return false;
  }
  // __cuda_stream__'s first item is a version (or a name): only its handle, the last, is read.
  for (Py_ssize_t i = protocol == Protocol::kCudaStream ? n - 1 : 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(made, i);
    if (!PyIndex_Check(item)) {
      PyErr_Format(PyExc_TypeError, "%U() must return ints, not `%s`", ProtocolMethod(protocol),
                   Py_TYPE(item)->tp_name);
      return false;
    }
    PyObject* index = PyNumber_Index(item);
    if (index == nullptr) return false;
    out[i] = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (out[i] == -1 && PyErr_Occurred()) return false;
  }
  return true;
}

/*! \brief A value with a conversion protocol method (see Protocol), converted through it. */
bool ProtocolToAny(PyObject* value, TVMFFIAny* out) {
  Protocol protocol = ProtocolOf(Py_TYPE(value));
  PyObject* made = PyObject_CallMethodNoArgs(value, ProtocolMethod(protocol));
  if (made == nullptr) return false;
  bool ok = false;
  long long v[3] = {0, 0, 0};
  switch (protocol) {
    case Protocol::kCudaStream:
      if ((ok = ProtocolInts(made, protocol, 2, v))) {
        out->type_index = kTVMFFIOpaquePtr;
        out->v_ptr = reinterpret_cast<void*>(static_cast<intptr_t>(v[1]));
      }
      break;
    case Protocol::kOpaquePtr: {
      void* p = PyIndex_Check(made) ? PyLong_AsVoidPtr(made) : nullptr;
      if ((ok = PyIndex_Check(made) && !PyErr_Occurred())) {
        out->type_index = kTVMFFIOpaquePtr;
        out->v_ptr = p;
      } else if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "__tvm_ffi_opaque_ptr__() must return an int, not `%s`",
                     Py_TYPE(made)->tp_name);
      }
      break;
    }
    case Protocol::kDataType:
      if ((ok = ProtocolInts(made, protocol, 3, v))) {
        out->type_index = kTVMFFIDataType;
        out->v_dtype = DLDataType{static_cast<uint8_t>(v[0]), static_cast<uint8_t>(v[1]),
                                  static_cast<uint16_t>(v[2])};
      }
      break;
    case Protocol::kDevice:
      if ((ok = ProtocolInts(made, protocol, 2, v))) {
        out->type_index = kTVMFFIDevice;
        out->v_device = DLDevice{static_cast<DLDeviceType>(v[0]), static_cast<int32_t>(v[1])};
      }
      break;
    case Protocol::kInt: {
      // An int whatever number the method returns, as the reference converts it.
      PyObject* index = PyNumber_Index(made);
      long long i = index != nullptr ? PyLong_AsLongLong(index) : -1;
      Py_XDECREF(index);
      if ((ok = !(i == -1 && PyErr_Occurred()))) {
        out->type_index = kTVMFFIInt;
        out->v_int64 = i;
      }
      break;
    }
    case Protocol::kFloat: {
      double d = PyFloat_AsDouble(made);  // a float whatever number the method returns
      if ((ok = !(d == -1.0 && PyErr_Occurred()))) {
        out->type_index = kTVMFFIFloat;
        out->v_float64 = d;
      }
      break;
    }
    default:
      // The value stands for what the method returns, converted in its turn.
      if (Py_EnterRecursiveCall(" converting what a __tvm_ffi_value__ method returned") == 0) {
        ok = ToOwnedAny(made, out);
        Py_LeaveRecursiveCall();
      }
  }
  Py_DECREF(made);
  return ok;
}
}  // namespace

bool IntToAnySlow(PyObject* value, TVMFFIAny* out) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) return false;
    out->type_index = kTVMFFIInt;
    out->v_int64 = v;
    return true;
  }
  // Beyond int64: the value's two's-complement bytes (room for the sign bit, whole 64-bit words)
  // become a BigInt object. Rare, so Python's own methods do the work, on every version alike.
  PyObject* bits = PyObject_CallMethod(value, "bit_length", nullptr);
  size_t nbits = bits != nullptr ? PyLong_AsSize_t(bits) : static_cast<size_t>(-1);
  Py_XDECREF(bits);
  if (nbits == static_cast<size_t>(-1) && PyErr_Occurred()) return false;
  PyObject* args = Py_BuildValue("(ns)", static_cast<Py_ssize_t>((nbits / 64 + 1) * 8), "little");
  PyObject* kwargs = args != nullptr ? Py_BuildValue("{sO}", "signed", Py_True) : nullptr;
  PyObject* to_bytes = kwargs != nullptr ? PyObject_GetAttrString(value, "to_bytes") : nullptr;
  PyObject* bytes = to_bytes != nullptr ? PyObject_Call(to_bytes, args, kwargs) : nullptr;
  Py_XDECREF(to_bytes);
  Py_XDECREF(kwargs);
  Py_XDECREF(args);
  if (bytes == nullptr) return false;
  TVMFFIByteArray words{PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes))};
  int rc = TVMFFIBigIntFromByteArray(&words, out);
  Py_DECREF(bytes);
  if (rc != 0) {
    RaiseFromFFI(rc);
    return false;
  }
  return true;
}

namespace {

/*! \brief The BufferError of a read-only tensor inside a call's container argument. */
bool RefuseReadOnly(PyObject* value) {
  PyErr_Format(PyExc_BufferError,
               "a read-only `%s` inside an argument: kernels receive writable tensors (pass a "
               "writable copy)",
               Py_TYPE(value)->tp_name);
  return false;
}

[[gnu::always_inline]] inline bool ToOwnedAnyImpl(PyObject* value, Classified c, TVMFFIAny* out) {
  switch (c.kind) {
    case PyKind::kNone:
      return true;
    case PyKind::kBool:
      out->type_index = kTVMFFIBool;
      out->v_int64 = value == Py_True;
      return true;
    case PyKind::kInt:
      return IntToAny(value, out);
    case PyKind::kFloat:
      out->type_index = kTVMFFIFloat;
      out->v_float64 = PyFloat_AsDouble(value);
      return !(out->v_float64 == -1.0 && PyErr_Occurred());
    case PyKind::kObject: {
      TVMFFIObject* h = LoadHandle(reinterpret_cast<PyObj*>(value));
      if (IsReadOnlyTensor(value, h) && container_argument.in_call) return RefuseReadOnly(value);
      TVMFFIObjectIncRef(h);
      out->type_index = h->type_index;
      out->v_obj = h;
      return true;
    }
    case PyKind::kMoved: {
      // Stored somewhere (a container being built): the object moves there.
      auto* target = reinterpret_cast<PyObj*>(reinterpret_cast<PyRValueRef*>(value)->target);
      // Taken in one step: another thread may be moving the same object (free-threaded Python).
      TVMFFIObject* h = __atomic_exchange_n(&target->handle, nullptr, __ATOMIC_ACQ_REL);
      if (h == nullptr) {
        PyErr_SetString(PyExc_TypeError, "the object was moved already: it holds no FFI object");
        return false;
      }
      out->type_index = h->type_index;
      out->v_obj = h;
      return true;
    }
    case PyKind::kForeign:
    case PyKind::kException: {
      // The object a tvm_ffi value holds, or an Error made for an exception.
      TVMFFIObject* h = c.kind == PyKind::kForeign ? ForeignObjectHandle(value)
                                                   : ErrorFromException(value, false);
      if (h == nullptr) return false;
      out->type_index = h->type_index;
      out->v_obj = h;
      return true;
    }
    case PyKind::kProtocol:
      return ProtocolToAny(value, out);
    case PyKind::kStr: {
      Py_ssize_t n = 0;
      const char* s = Utf8(value, &n);
      if (s == nullptr) return false;
      detail::BytesToAny<StringObj>(std::string_view(s, static_cast<size_t>(n)), kTVMFFISmallStr,
                                    out);
      return true;
    }
    case PyKind::kBytes: {
      char* data = PyBytes_Check(value) ? PyBytes_AS_STRING(value) : PyByteArray_AS_STRING(value);
      Py_ssize_t n = PyBytes_Check(value) ? PyBytes_GET_SIZE(value) : PyByteArray_GET_SIZE(value);
      detail::BytesToAny<BytesObj>(std::string_view(data, static_cast<size_t>(n)),
                                   kTVMFFISmallBytes, out);
      return true;
    }
    case PyKind::kDType:
      out->type_index = kTVMFFIDataType;
      out->v_dtype = reinterpret_cast<PyDType*>(value)->dtype;
      return true;
    case PyKind::kDTypeLike: {
      DLDataType dtype;
      if (!DTypeFromPython(value, &dtype)) return false;
      out->type_index = kTVMFFIDataType;
      out->v_dtype = dtype;
      return true;
    }
    case PyKind::kDevice:
      out->type_index = kTVMFFIDevice;
      out->v_device = reinterpret_cast<PyDevice*>(value)->device;
      return true;
    case PyKind::kExchange:
    case PyKind::kNumpy:
    case PyKind::kDLPack: {
      bool read_only = false;
      TVMFFIObject* t = TensorFromDLPackProducer(value, c, 0, false, &read_only);
      if (t == nullptr) return false;
      if (read_only && container_argument.in_call) {
        TVMFFIObjectDecRef(t);
        return RefuseReadOnly(value);
      }
      if (c.kind == PyKind::kExchange && container_argument.api == nullptr) {
        container_argument.api = c.api;
        container_argument.device = TVMFFITensorGetDLTensorPtr(t)->device;
      }
      out->type_index = kTVMFFITensor;
      out->v_obj = t;
      return true;
    }
    case PyKind::kVoidPtr: {
      PyObject* v = PyObject_GetAttrString(value, "value");
      if (v == nullptr) return false;
      void* p = v == Py_None ? nullptr : PyLong_AsVoidPtr(v);
      Py_DECREF(v);
      if (PyErr_Occurred()) return false;
      out->type_index = kTVMFFIOpaquePtr;  // null too, as the reference passes it
      out->v_ptr = p;
      return true;
    }
    case PyKind::kShape: {
      std::vector<int64_t> dims(static_cast<size_t>(PyTuple_GET_SIZE(value)));
      for (size_t i = 0; i < dims.size(); ++i) {
        long long d = 0;
        if (!IntInRange(PyTuple_GET_ITEM(value, static_cast<Py_ssize_t>(i)), INT64_MIN, INT64_MAX,
                        "a Shape extent", &d)) {
          return false;
        }
        dims[i] = d;
      }
      *out = Any(Shape(dims)).release();
      return true;
    }
    case PyKind::kSequence:
      return SequenceToAny(value, kTVMFFIArray, out);
    case PyKind::kMapping:
      return MappingToAny(value, kTVMFFIMap, out);
    case PyKind::kIndex: {
      PyObject* index = PyNumber_Index(value);
      if (index == nullptr) return false;
      bool ok = ToOwnedAny(index, {PyKind::kInt}, out);
      Py_DECREF(index);
      return ok;
    }
    case PyKind::kFloatLike: {
      double v = PyFloat_AsDouble(value);
      if (v == -1.0 && PyErr_Occurred()) return false;
      out->type_index = kTVMFFIFloat;
      out->v_float64 = v;
      return true;
    }
    case PyKind::kBoolLike: {
      int truth = PyObject_IsTrue(value);
      if (truth < 0) return false;
      out->type_index = kTVMFFIBool;
      out->v_int64 = truth;
      return true;
    }
    case PyKind::kCallable: {
      TVMFFIObject* f = FunctionFromCallable(value);
      if (f == nullptr) return false;
      out->type_index = kTVMFFIFunction;
      out->v_obj = f;
      return true;
    }
    case PyKind::kOpaque: {
      TVMFFIObject* o = NewOpaquePyObject(value);
      if (o == nullptr) return false;
      out->type_index = kTVMFFIOpaquePyObject;
      out->v_obj = o;
      return true;
    }
    case PyKind::kUnsupported:  // an ffi.Object holding no FFI object
      PyErr_Format(PyExc_TypeError,
                   "cannot convert a value of type `%s` to an FFI value: it holds no FFI object: "
                   "%s",
                   Py_TYPE(value)->tp_name, kNoObjectReason);
      return false;
  }
  PyErr_Format(PyExc_TypeError, "cannot convert a value of type `%s` to an FFI value",
               Py_TYPE(value)->tp_name);
  return false;
}

}  // namespace

bool ToOwnedAny(PyObject* value, Classified c, TVMFFIAny* out) {
  out->type_index = kTVMFFINone;
  out->zero_padding = 0;
  out->v_int64 = 0;
  try {
    return ToOwnedAnyImpl(value, c, out);
  }
  FFI_PY_CATCH(return false)
}

namespace {

/*! \brief A ctypes.c_void_p holding `p`. */
PyObject* VoidPtr(void* p) {
  PyObject* ctypes = PyImport_ImportModule("ctypes");
  if (ctypes == nullptr) return nullptr;
  PyObject* r = PyObject_CallMethod(
      ctypes, "c_void_p", "K", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
  Py_DECREF(ctypes);
  return r;
}

/*! \brief Converts an object value, consuming the reference (see ToPython for `tensor_api`). */
PyObject* ObjectToPython(int32_t type_index, TVMFFIObject* obj,
                         const DLPackExchangeAPI* tensor_api) {
  switch (type_index) {
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      const TVMFFIByteArray* a = TVMFFIBytesGetByteArrayPtr(obj);
      PyObject* r =
          type_index == kTVMFFIStr
              ? PyUnicode_DecodeUTF8(a->data, static_cast<Py_ssize_t>(a->size), "surrogateescape")
              : PyBytes_FromStringAndSize(a->data, static_cast<Py_ssize_t>(a->size));
      TVMFFIObjectDecRef(obj);
      return r;
    }
    case kTVMFFIBigInt: {
      TVMFFIAny view{};
      view.type_index = kTVMFFIBigInt;
      view.v_obj = obj;
      TVMFFIByteArray words = TVMFFIBigIntGetContentByteArray(&view);
      PyObject* r = words.data == nullptr
                        ? RaiseFromFFI(-1)
                        : _PyLong_FromByteArray(reinterpret_cast<const unsigned char*>(words.data),
                                                words.size, /*little_endian=*/1, /*is_signed=*/1);
      TVMFFIObjectDecRef(obj);
      return r;
    }
    case kTVMFFIShape: {
      const TVMFFIShapeCell* cell = TVMFFIShapeGetCellPtr(obj);
      PyObject* shape = NewShape(cell->data, cell->size);
      TVMFFIObjectDecRef(obj);
      return shape;
    }
    case kTVMFFIOpaquePyObject: {
      auto* h = static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(obj)->handle);
      Py_INCREF(h);
      TVMFFIObjectDecRef(obj);
      return h;
    }
    case kTVMFFITensor:
      return tensor_api ? TensorToFramework(obj, tensor_api) : WrapTensor(obj, false);
    case kTVMFFIArray:
    case kTVMFFIList:
    case kTVMFFIMap:
    case kTVMFFIDict: {
      // Elements convert when read: the container remembers the framework for its tensors.
      PyObject* c = WrapObject(ClassForTypeIndex(type_index), obj);
      if (c != nullptr) reinterpret_cast<PyObj*>(c)->tensor_api = tensor_api;
      return c;
    }
    case kTVMFFIModule: {
      PyObject* mod = WrapObject(ClassForTypeIndex(kTVMFFIModule), obj);
      PyObject* hook = GetHooks().module_loaded;
      if (mod == nullptr || hook == nullptr) return mod;
      // The package lists the module's functions as attributes up front.
      PyObject* r = PyObject_CallOneArg(hook, mod);
      if (r == nullptr) Py_CLEAR(mod);
      Py_XDECREF(r);
      return mod;
    }
    default:
      return WrapObject(ClassForTypeIndex(type_index), obj);
  }
}

}  // namespace

PyObject* ToPython(TVMFFIAny* v) { return ToPython(v, nullptr); }

namespace {

[[gnu::always_inline]] inline PyObject* ToPythonImpl(TVMFFIAny* v,
                                                     const DLPackExchangeAPI* tensor_api) {
  switch (v->type_index) {
    case kTVMFFINone:
      Py_RETURN_NONE;
    case kTVMFFIInt:
      return PyLong_FromLongLong(v->v_int64);
    case kTVMFFIBool:
      return PyBool_FromLong(static_cast<long>(v->v_int64));
    case kTVMFFIFloat:
      return PyFloat_FromDouble(v->v_float64);
    case kTVMFFIDataType:
      return NewDType(v->v_dtype);
    case kTVMFFIDevice:
      return NewDevice(v->v_device);
    case kTVMFFIOpaquePtr:
      return VoidPtr(v->v_ptr);
    case kTVMFFISmallStr:
      return PyUnicode_DecodeUTF8(v->v_bytes, v->small_str_len, "surrogateescape");
    case kTVMFFISmallBytes:
      return PyBytes_FromStringAndSize(v->v_bytes, v->small_str_len);
    case kTVMFFIRawStr:
      return PyUnicode_DecodeUTF8(v->v_c_str, static_cast<Py_ssize_t>(std::strlen(v->v_c_str)),
                                  "surrogateescape");
    case kTVMFFIDLTensorPtr:
      PyErr_SetString(PyExc_TypeError, "a borrowed DLTensor* cannot be returned to Python");
      return nullptr;
    default:
      break;
  }
  if (v->type_index < kTVMFFIStaticObjectBegin) {
    PyErr_Format(PyExc_TypeError, "cannot convert FFI value of type index %d to Python",
                 v->type_index);
    return nullptr;
  }
  return ObjectToPython(v->type_index, v->v_obj, tensor_api);
}

}  // namespace

PyObject* ToPython(TVMFFIAny* v, const DLPackExchangeAPI* tensor_api) {
  try {
    return ToPythonImpl(v, tensor_api);
  }
  FFI_PY_CATCH(return nullptr)
}

namespace {

/*! \brief convert(value) (METH_FASTCALL | METH_KEYWORDS). */
PyObject* Convert(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  static const char* const kNames[] = {"value"};
  PyObject* value = nullptr;
  if (!BindArguments("convert", args, nargsf, kwnames, kNames, 1, 1, 1, &value)) return nullptr;
  TVMFFIAny owned;
  if (!ToOwnedAny(value, &owned)) return nullptr;
  if (owned.type_index == kTVMFFIOpaquePyObject) {  // shown as the FFI object it became
    return WrapObject(ClassForTypeIndex(kTVMFFIOpaquePyObject), owned.v_obj);
  }
  return ToPython(&owned);
}

// Text signature ("name($module, ...)\n--\n\n"), so that inspect.signature reads it, with the
// reference's parameter names.
PyMethodDef convert_functions[] = {
    {"convert", FFI_PY_METHOD(Convert), METH_FASTCALL | METH_KEYWORDS,
     "convert($module, value)\n--\n\nConverts a Python value to its FFI form: callables become "
     "ffi.Function, DLPack producers ffi.Tensor, lists and tuples ffi.Array, dicts ffi.Map, other "
     "objects ffi.core.OpaquePyObject; plain values round-trip."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool AddConvertFunctions(PyObject* module) {
  return PyModule_AddFunctions(module, convert_functions) == 0;
}

}  // namespace tvm::ffi::python
