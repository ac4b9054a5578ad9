// What a Python value is: one classification, by real type, for every conversion path.
#include "classify.h"

#include <cstring>
#include <new>

#include "dtype_device.h"
#include "free_threading.h"
#include "objects.h"
#include "reflection.h"

namespace tvm::ffi::python {
namespace {

/*! \brief The attributes TypeAttribute looks up. */
enum class TypeAttr { kDLPack, kExchangeAPI, kExchangeAPIOld };

/*! \brief An attribute found on `type` or its bases (borrowed), through CPython's type cache. */
PyObject* TypeAttribute(PyTypeObject* type, TypeAttr attr) {
  // Interned once; _PyType_Lookup is the cached MRO lookup attribute access itself uses, and it
  // holds no reference to the type, so classes created and dropped at run time are not kept.
  static PyObject* const names[] = {
      PyUnicode_InternFromString("__dlpack__"),
      PyUnicode_InternFromString("__dlpack_c_exchange_api__"),
      // The spelling before DLPack 1.2 named it (PyTorch's first extension, Paddle).
      PyUnicode_InternFromString("__c_dlpack_exchange_api__"),
  };
  PyObject* key = names[static_cast<int>(attr)];
  return key == nullptr ? nullptr : _PyType_Lookup(type, key);
}

/*!
 * \brief The types that have an exchange API, each with a reference to the type (a handful in a
 * process: one per array framework); types without one are never recorded. Entries are only
 * appended, and published by `size`, so calls read them without a lock; the lock orders appends.
 */
struct ExchangeTypes {
  static constexpr int kCapacity = 64;
  const ExchangeType* entries[kCapacity] = {};
  std::atomic<int> size{0};
  TableLock append;

  const ExchangeType* Find(PyTypeObject* type) const {
    int n = size.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
      if (entries[i]->type == type) return entries[i];
    }
    return nullptr;
  }
};
ExchangeTypes& KnownExchangeTypes() {
  static auto* types = new ExchangeTypes();  // leaked: used until the last call at exit
  return *types;
}

/*!
 * \brief The exchange API in an attribute's `value` (borrowed, or NULL), if its layout is known:
 * a `dlpack_exchange_api` capsule, or with `address_allowed` the table's address as an int.
 */
const DLPackExchangeAPI* APIFromValue(PyObject* value, bool address_allowed) {
  const DLPackExchangeAPI* api = nullptr;
  if (value == nullptr) return nullptr;
  if (PyCapsule_IsValid(value, "dlpack_exchange_api")) {
    api = static_cast<const DLPackExchangeAPI*>(PyCapsule_GetPointer(value, "dlpack_exchange_api"));
  } else if (address_allowed && PyLong_CheckExact(value)) {
    void* address = PyLong_AsVoidPtr(value);
    if (address == nullptr) PyErr_Clear();  // 0, or out of range: no table
    // An address cannot be checked; one that cannot be a table (a small number, misaligned) is
    // refused rather than read.
    auto bits = reinterpret_cast<uintptr_t>(address);
    if (bits >= 65536 && bits % alignof(DLPackExchangeAPI) == 0) {
      api = static_cast<const DLPackExchangeAPI*>(address);
    }
  }
  if (api == nullptr || api->header.version.major != DLPACK_MAJOR_VERSION) return nullptr;
  return api;
}

/*!
 * \brief The exchange API a type carries: as `__dlpack_c_exchange_api__` (a capsule), else under
 * the older name `__c_dlpack_exchange_api__` (a capsule, or the table's address as an int).
 */
const DLPackExchangeAPI* APIOfType(PyTypeObject* type) {
  const DLPackExchangeAPI* api = APIFromValue(TypeAttribute(type, TypeAttr::kExchangeAPI), false);
  if (api != nullptr) return api;
  return APIFromValue(TypeAttribute(type, TypeAttr::kExchangeAPIOld), true);
}

/*!
 * \brief A type from an already imported module, by module and attribute name (new reference,
 * or NULL without an error). Looking at sys.modules imports nothing.
 */
PyTypeObject* ImportedType(const char* module, const char* attr) {
  PyObject* name = PyUnicode_FromString(module);
  PyObject* mod = name != nullptr ? PyImport_GetModule(name) : nullptr;
  Py_XDECREF(name);
  PyObject* t = mod != nullptr ? PyObject_GetAttrString(mod, attr) : nullptr;
  Py_XDECREF(mod);
  if (t == nullptr || !PyType_Check(t)) {
    PyErr_Clear();
    Py_XDECREF(t);
    return nullptr;
  }
  return reinterpret_cast<PyTypeObject*>(t);
}

/*!
 * \brief A library type known by name and identified by identity: the name is only a cheap
 * filter, the type object found in sys.modules decides. A user class that calls itself
 * `numpy.ndarray` is not NumPy's array.
 */
struct KnownType {
  const char* module;
  const char* attr;
  const char* tp_name;
  // Resolved once its module is imported (owned, never released); atomic, as threads resolve it
  // at once without the GIL: one publishes, the others drop their reference.
  std::atomic<PyTypeObject*> type{nullptr};

  /*! \brief The type if resolved, resolving it when `t` or a base carries its name; or NULL. */
  PyTypeObject* Resolve(PyTypeObject* t) {
    PyTypeObject* known = type.load(std::memory_order_acquire);
    if (known != nullptr) return known;
    for (PyTypeObject* base = t; base != nullptr; base = base->tp_base) {
      if (std::strcmp(base->tp_name, tp_name) != 0) continue;
      PyTypeObject* found = ImportedType(module, attr);
      if (found == nullptr) return nullptr;
      if (type.compare_exchange_strong(known, found, std::memory_order_acq_rel)) return found;
      Py_DECREF(found);  // another thread resolved it first
      return known;
    }
    return nullptr;
  }
  bool Is(PyTypeObject* t) {
    PyTypeObject* known = type.load(std::memory_order_acquire);
    if (known != nullptr) return t == known;
    if (std::strcmp(t->tp_name, tp_name) != 0) return false;
    return Resolve(t) == t;
  }
  bool IsSubtype(PyTypeObject* t) {
    PyTypeObject* known = Resolve(t);
    return known != nullptr && PyType_IsSubtype(t, known);
  }
};

KnownType numpy_ndarray{"numpy", "ndarray", "numpy.ndarray"};
KnownType numpy_dtype{"numpy", "dtype", "numpy.dtype"};  // np.dtype("int8") is a subclass's
KnownType torch_dtype{"torch", "dtype", "torch.dtype"};
KnownType ctypes_void_p{"ctypes", "c_void_p", "c_void_p"};
KnownType numpy_bool{"numpy", "bool_", "numpy.bool"};     // NumPy 2
KnownType numpy_bool_1{"numpy", "bool_", "numpy.bool_"};  // NumPy 1
KnownType reference_object{"tvm_ffi.core", "CObject", "tvm_ffi.core.CObject"};
KnownType torch_tensor{"torch", "Tensor", "Tensor"};

/*!
 * \brief Gives PyTorch an exchange API where it has none (releases before 2.10), the first time a
 * call meets one of its tensors without one: `ffi.torch_exchange` provides it (a cached or newly
 * built shim, or torch-c-dlpack-ext) or warns. Asked once per process; the module is imported
 * only then, as it brings the compiler driver. True if it was asked now.
 */
bool ProvideTorchExchangeAPI(PyTypeObject* type) {
  static std::atomic<bool> asked{false};
  if (asked.load(std::memory_order_relaxed) || !torch_tensor.IsSubtype(type)) return false;
  if (asked.exchange(true, std::memory_order_acq_rel)) return false;
  PyObject* module = PyImport_ImportModule("ffi.torch_exchange");
  PyObject* done = module != nullptr ? PyObject_CallMethod(module, "_provide", nullptr) : nullptr;
  // The call goes on either way (the __dlpack__ path); an error here (warnings turned into
  // errors, say) is reported, not raised into a call that has no error of its own.
  if (done == nullptr) PyErr_WriteUnraisable(module);
  Py_XDECREF(done);
  Py_XDECREF(module);
  return true;
}

}  // namespace

namespace {

/*! \brief The recorded ExchangeType of `type`, recording it on first sight; NULL without an API. */
const ExchangeType* ExchangeTypeOf(PyTypeObject* type) {
  const ExchangeType* last = last_exchange.load(std::memory_order_acquire);
  if (last != nullptr && last->type == type) return last;
  ExchangeTypes& known = KnownExchangeTypes();
  if (const ExchangeType* found = known.Find(type)) return found;
  const DLPackExchangeAPI* api = APIOfType(type);  // runs no Python code
  if (api == nullptr) return nullptr;
  TableGuard guard(known.append);
  if (const ExchangeType* found = known.Find(type)) return found;  // appended meanwhile
  int n = known.size.load(std::memory_order_relaxed);
  auto* entry = n < ExchangeTypes::kCapacity ? new (std::nothrow) ExchangeType{type, api} : nullptr;
  if (entry == nullptr) return nullptr;  // not remembered, so not used: it goes through __dlpack__
  Py_INCREF(type);  // a framework's tensor type: its address must stay this type's
  known.entries[n] = entry;
  known.size.store(n + 1, std::memory_order_release);
  return entry;
}

}  // namespace

// Set only in Classify, for a type that failed every check before the exchange API's, so
// answering it before those checks (ClassifyFast) is equivalent.
std::atomic<const ExchangeType*> last_exchange{nullptr};

const DLPackExchangeAPI* ExchangeAPIOf(PyTypeObject* type) {
  const ExchangeType* entry = ExchangeTypeOf(type);
  return entry != nullptr ? entry->api : nullptr;
}

bool IsNumpyArrayType(PyTypeObject* type) { return numpy_ndarray.Is(type); }

bool IsReferenceObjectType(PyTypeObject* type) { return reference_object.IsSubtype(type); }

bool IsForeignObjectType(PyTypeObject* type) {
  static PyObject* protocol = PyUnicode_InternFromString("__tvm_ffi_object__");
  return IsReferenceObjectType(type) ||
         (protocol != nullptr && _PyType_Lookup(type, protocol) != nullptr);
}

PyObject* ProtocolMethod(Protocol protocol) {
  static PyObject* names[] = {
      nullptr,
      PyUnicode_InternFromString("__cuda_stream__"),
      PyUnicode_InternFromString("__tvm_ffi_opaque_ptr__"),
      PyUnicode_InternFromString("__dlpack_data_type__"),
      PyUnicode_InternFromString("__dlpack_device__"),
      PyUnicode_InternFromString("__tvm_ffi_int__"),
      PyUnicode_InternFromString("__tvm_ffi_float__"),
      PyUnicode_InternFromString("__tvm_ffi_value__"),
  };
  return names[static_cast<int>(protocol)];
}

Protocol ProtocolOf(PyTypeObject* type) {
  for (Protocol p : {Protocol::kCudaStream, Protocol::kOpaquePtr, Protocol::kDataType,
                     Protocol::kDevice, Protocol::kInt, Protocol::kFloat, Protocol::kValue}) {
    PyObject* name = ProtocolMethod(p);
    if (name == nullptr || _PyType_Lookup(type, name) == nullptr) continue;
    // A tensor type reports its device too: it is a tensor, not a device.
    if (p == Protocol::kDevice && TypeAttribute(type, TypeAttr::kDLPack) != nullptr) continue;
    return p;
  }
  return Protocol::kNone;
}

Classified Classify(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  // The common exact types first: a call with ints, floats and strings pays one compare each.
  if (type == &PyLong_Type) return {PyKind::kInt};
  if (type == &PyFloat_Type) return {PyKind::kFloat};
  if (obj == Py_None) return {PyKind::kNone};
  if (type == &PyBool_Type) return {PyKind::kBool};
  if (type == &PyUnicode_Type) return {PyKind::kStr};
  if (type == &PyList_Type || type == &PyTuple_Type) return {PyKind::kSequence};
  if (type == &PyDict_Type) return {PyKind::kMapping};
  // A call with PyTorch tensors pays one compare each, not an MRO walk and a name compare.
  const ExchangeType* last = last_exchange.load(std::memory_order_acquire);
  if (last != nullptr && type == last->type) return {PyKind::kExchange, last->api};
  if (type == RValueRefType) return {PyKind::kMoved};
  if (PyObject_TypeCheck(obj, ObjectType)) {
    // A registered class whose __init__ never made its object has nothing to pass.
    return {LoadHandle(reinterpret_cast<PyObj*>(obj)) ? PyKind::kObject : PyKind::kUnsupported};
  }
  if (type == DTypeType) return {PyKind::kDType};
  if (type == DeviceType) return {PyKind::kDevice};
  if (numpy_ndarray.Is(type)) return {PyKind::kNumpy};
  if (torch_dtype.Is(type) || numpy_dtype.IsSubtype(type)) return {PyKind::kDTypeLike};
  if (const ExchangeType* entry = ExchangeTypeOf(type)) {
    last_exchange.store(entry, std::memory_order_release);
    return {PyKind::kExchange, entry->api};
  }
  // Objects of the reference's package (and values standing for one) pass the object itself.
  if (IsForeignObjectType(type)) return {PyKind::kForeign};
  if (ProtocolOf(type) != Protocol::kNone) return {PyKind::kProtocol};
  if (PyExceptionInstance_Check(obj)) return {PyKind::kException};
  // Subclasses of ffi.dtype (a str) and ffi.Device, as the package may make results arrive as.
  if (PyType_IsSubtype(type, DTypeType)) return {PyKind::kDType};
  if (PyType_IsSubtype(type, DeviceType)) return {PyKind::kDevice};
  // Subclasses of the builtins (IntEnum, str enums, ...) convert as their base.
  if (PyLong_Check(obj)) return {PyKind::kInt};
  if (PyFloat_Check(obj)) return {PyKind::kFloat};
  if (PyUnicode_Check(obj)) return {PyKind::kStr};
  if (PyBytes_Check(obj) || PyByteArray_Check(obj)) return {PyKind::kBytes};
  if (PyTuple_Check(obj) && type == ClassForTypeIndex(kTVMFFIShape)) return {PyKind::kShape};
  // Subclasses of list, tuple (named tuples) and dict (OrderedDict, ...) convert as their base.
  if (PyList_Check(obj) || PyTuple_Check(obj)) return {PyKind::kSequence};
  if (PyDict_Check(obj)) return {PyKind::kMapping};
  if (ctypes_void_p.IsSubtype(type)) return {PyKind::kVoidPtr};
  if (TypeAttribute(type, TypeAttr::kDLPack) != nullptr) {
    if (ProvideTorchExchangeAPI(type)) {
      if (const ExchangeType* entry = ExchangeTypeOf(type)) return {PyKind::kExchange, entry->api};
    }
    return {PyKind::kDLPack};
  }
  if (numpy_bool.Is(type) || numpy_bool_1.Is(type)) return {PyKind::kBoolLike};
  if (PyIndex_Check(obj)) return {PyKind::kIndex};
  if (type->tp_as_number != nullptr && type->tp_as_number->nb_float != nullptr) {
    return {PyKind::kFloatLike};
  }
  if (PyCallable_Check(obj)) return {PyKind::kCallable};
  return {PyKind::kOpaque};
}

}  // namespace tvm::ffi::python
