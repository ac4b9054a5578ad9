// Python <-> TVMFFIAny: packing call arguments, converting results, translating errors.
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core.h"

namespace ffi {
namespace python {
namespace {

/*!
 * \brief A Tensor object describing a framework tensor passed as an argument, without copying
 * or allocating. It has the ABI's tensor layout ({TVMFFIObject, DLTensor}), so a callee can take
 * it as TensorView, as Tensor, or keep it. Objects come from a per-thread pool: after the call, an
 * object nobody else references goes back to the pool; one the callee kept is handed over to its
 * holders together with a reference to the Python tensor that owns the memory.
 */
struct BorrowedTensor {
  TVMFFIObject header;
  DLTensor dl;
  PyObject* owner;       // set when handed over
  BorrowedTensor* next;  // pool link
  int64_t strides[16];   // element strides when the producer gave byte strides (NumPy)

  static constexpr uint64_t kOneOfEach = (uint64_t{1} << 32) | 1;

  static void HandedOverDeleter(void* self, int flags) {
    auto* t = static_cast<BorrowedTensor*>(self);
    if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && Py_IsInitialized()) {
      PyGILState_STATE g = PyGILState_Ensure();
      Py_CLEAR(t->owner);
      PyGILState_Release(g);
    }
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) delete t;
  }
  static void PooledDeleter(void*, int) {
    // Unreachable: the pool's reference keeps pooled objects alive.
  }
};
static_assert(offsetof(BorrowedTensor, dl) == sizeof(TVMFFIObject));

/*! \brief The pooled objects not in use by a call on this thread; freed when the thread ends. */
struct TensorPool {
  BorrowedTensor* head = nullptr;
  ~TensorPool() {
    while (head != nullptr) delete std::exchange(head, head->next);
  }
};
thread_local TensorPool tensor_pool;

BorrowedTensor* AcquireBorrowedTensor() {
  BorrowedTensor* t = tensor_pool.head;
  if (t != nullptr) {
    tensor_pool.head = t->next;
  } else {
    t = new BorrowedTensor();
  }
  t->header.combined_ref_count = BorrowedTensor::kOneOfEach;
  t->header.type_index = kTVMFFITensor;
  t->header.__padding = 0;
  t->header.deleter = BorrowedTensor::PooledDeleter;
  t->owner = nullptr;
  return t;
}

/*! \brief Returns `t` to the pool, or hands it over to whoever kept it after the call. */
void ReleaseBorrowedTensor(BorrowedTensor* t, PyObject* owner) {
  if (__atomic_load_n(&t->header.combined_ref_count, __ATOMIC_ACQUIRE) ==
      BorrowedTensor::kOneOfEach) {
    t->next = tensor_pool.head;
    tensor_pool.head = t;
    return;
  }
  Py_INCREF(owner);
  t->owner = owner;
  t->header.deleter = BorrowedTensor::HandedOverDeleter;
  TVMFFIObjectDecRef(&t->header);
}

/*!
 * \brief Arguments of one call and the temporaries they borrow from: DLTensor descriptions of
 * framework tensors, objects created for the call, and the environment changes to undo.
 * Small calls use inline storage only.
 */
class CallArgs {
 public:
  explicit CallArgs(Py_ssize_t n) {
    if (n > kInline) heap_values_.reset(new TVMFFIAny[n]);
  }
  ~CallArgs() {
    for (int i = 0; i < num_borrowed_; ++i) ReleaseBorrowedTensor(borrowed_[i], borrowed_owner_[i]);
    for (int i = 0; i < num_owned_; ++i) TVMFFIObjectDecRef(owned(i));
    if (allocator_set_) TVMFFIEnvSetDLPackManagedTensorAllocator(saved_allocator_, 0, nullptr);
    for (const DLDevice& d : streams_)
      TVMFFIEnvSetStream(d.device_type, d.device_id, nullptr, nullptr);
  }
  TVMFFIAny* values() { return heap_values_ ? heap_values_.get() : inline_values_; }

  /*! \brief Converts argument `i`; false with a Python error naming it. */
  bool Set(Py_ssize_t i, PyObject* arg, PyObject* func_name) {
    TVMFFIAny* out = &values()[i];
    out->zero_padding = 0;
    out->v_int64 = 0;
    PyTypeObject* type = Py_TYPE(arg);
    if (type == &PyLong_Type) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
      if (overflow != 0) return Fail(i, arg, func_name, "the integer does not fit in 64 bits");
      out->type_index = kTVMFFIInt;
      out->v_int64 = v;
      return true;
    }
    if (PyObject_TypeCheck(arg, ObjectType)) {
      TVMFFIObject* h = reinterpret_cast<PyObj*>(arg)->handle;
      out->type_index = h->type_index;
      out->v_obj = h;
      return true;
    }
    if (type == &PyFloat_Type) {
      out->type_index = kTVMFFIFloat;
      out->v_float64 = PyFloat_AS_DOUBLE(arg);
      return true;
    }
    if (arg == Py_None) {
      out->type_index = kTVMFFINone;
      return true;
    }
    if (type == &PyBool_Type) {
      out->type_index = kTVMFFIBool;
      out->v_int64 = arg == Py_True;
      return true;
    }
    if (type == &PyUnicode_Type) return SetString(out, arg);
    if (type == DTypeType) {
      out->type_index = kTVMFFIDataType;
      out->v_dtype = reinterpret_cast<PyDType*>(arg)->dtype;
      return true;
    }
    if (type == DeviceType) {
      out->type_index = kTVMFFIDevice;
      out->v_device = reinterpret_cast<PyDevice*>(arg)->device;
      return true;
    }
    if (const DLPackExchangeAPI* api = ExchangeAPIOf(type)) return SetExchangeTensor(i, arg, api);
    if (num_borrowed_ < kInline) {
      BorrowedTensor* t = Borrow(arg);
      if (NumpyArrayView(arg, &t->dl, t->strides, 16)) return SetBorrowed(out, t);
      Unborrow();
    }
    if (PyLong_Check(arg) || PyFloat_Check(arg) || PyUnicode_Check(arg)) {
      // Subclasses of int/float/str (enums and the like): convert as their base.
      return SetOwned(i, arg, func_name);
    }
    if (PyBytes_Check(arg) || PyByteArray_Check(arg)) return SetOwned(i, arg, func_name);
    if (PyObject_HasAttrString(arg, "__dlpack__")) {
      TVMFFIObject* t = TensorFromDLPackProducer(arg, 0, false);
      if (t == nullptr) return false;
      Own(t);
      out->type_index = kTVMFFITensor;
      out->v_obj = t;
      return true;
    }
    return SetOwned(i, arg, func_name);
  }

 private:
  static constexpr Py_ssize_t kInline = 8;

  BorrowedTensor* Borrow(PyObject* owner) {
    BorrowedTensor* t = AcquireBorrowedTensor();
    borrowed_[num_borrowed_] = t;
    borrowed_owner_[num_borrowed_++] = owner;
    return t;
  }
  void Unborrow() {
    BorrowedTensor* t = borrowed_[--num_borrowed_];
    t->next = tensor_pool.head;
    tensor_pool.head = t;
  }
  bool SetBorrowed(TVMFFIAny* out, BorrowedTensor* t) {
    out->type_index = kTVMFFITensor;
    out->v_obj = &t->header;
    return true;
  }
  TVMFFIObject* owned(int i) { return i < kInline ? inline_owned_[i] : heap_owned_[i - kInline]; }
  void Own(TVMFFIObject* obj) {
    if (num_owned_ < kInline) {
      inline_owned_[num_owned_++] = obj;
    } else {
      heap_owned_.push_back(obj);
      ++num_owned_;
    }
  }

  bool SetString(TVMFFIAny* out, PyObject* arg) {
    Py_ssize_t size = 0;
    const char* s = Utf8(arg, &size);
    if (s == nullptr) return false;
    if (size <= 7) {
      out->type_index = kTVMFFISmallStr;
      out->small_str_len = static_cast<uint32_t>(size);
      std::memcpy(out->v_bytes, s, static_cast<size_t>(size));
      return true;
    }
    if (std::memchr(s, 0, static_cast<size_t>(size)) != nullptr) {
      TVMFFIByteArray bytes{s, static_cast<size_t>(size)};
      if (TVMFFIStringFromByteArray(&bytes, out) != 0) return RaiseFromFFI(-1), false;
      Own(out->v_obj);
      return true;
    }
    out->type_index = kTVMFFIRawStr;
    out->v_c_str = s;  // the str object caches its UTF-8 form for its lifetime
    return true;
  }

  bool SetExchangeTensor(Py_ssize_t i, PyObject* arg, const DLPackExchangeAPI* api) {
    TVMFFIAny* out = &values()[i];
    const DLTensor* dl;
    if (api->dltensor_from_py_object_no_sync != nullptr && num_borrowed_ < kInline) {
      BorrowedTensor* t = Borrow(arg);
      if (api->dltensor_from_py_object_no_sync(arg, &t->dl) != 0) {
        Unborrow();
        if (!PyErr_Occurred())
          PyErr_SetString(PyExc_TypeError, "cannot view the tensor via DLPack");
        return false;
      }
      SetBorrowed(out, t);
      dl = &t->dl;
    } else {
      // Past the pooled slots (or without a view function): an imported Tensor object.
      TVMFFIObject* obj = TensorFromDLPackProducer(arg, 0, false);
      if (obj == nullptr) return false;
      Own(obj);
      out->type_index = kTVMFFITensor;
      out->v_obj = obj;
      dl = TVMFFITensorGetDLTensorPtr(obj);
    }
    UseFrameworkEnvironment(api, dl->device);
    return true;
  }

  /*!
   * \brief Inside the call, allocations go to the framework's allocator, and kernels on a device
   * see the framework's current stream for it (unless a stream was set explicitly).
   */
  void UseFrameworkEnvironment(const DLPackExchangeAPI* api, DLDevice device) {
    if (!allocator_set_ && api->managed_tensor_allocator != nullptr) {
      TVMFFIEnvSetDLPackManagedTensorAllocator(api->managed_tensor_allocator, 0, &saved_allocator_);
      allocator_set_ = true;
    }
    if (device.device_type == kDLCPU || api->current_work_stream == nullptr ||
        TVMFFIEnvGetStream(device.device_type, device.device_id) != nullptr) {
      return;
    }
    void* stream = nullptr;
    if (api->current_work_stream(device.device_type, device.device_id, &stream) == 0 &&
        stream != nullptr) {
      TVMFFIEnvSetStream(device.device_type, device.device_id, stream, nullptr);
      streams_.push_back(device);
    }
  }

  /*! \brief Slow path: any other convertible value, owned for the duration of the call. */
  bool SetOwned(Py_ssize_t i, PyObject* arg, PyObject* func_name) {
    TVMFFIAny* out = &values()[i];
    if (!ToOwnedAny(arg, out)) {
      if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        return Fail(i, arg, func_name, nullptr);
      }
      return false;
    }
    if (out->type_index >= kTVMFFIStaticObjectBegin) Own(out->v_obj);
    return true;
  }

  bool Fail(Py_ssize_t i, PyObject* arg, PyObject* func_name, const char* why) {
    PyErr_Format(PyExc_TypeError, "Cannot convert argument #%zd of type `%s` when calling `%S`: %s",
                 i, Py_TYPE(arg)->tp_name, func_name ? func_name : Py_None,
                 why ? why : "no conversion to an FFI value");
    return false;
  }

  TVMFFIAny inline_values_[kInline];
  std::unique_ptr<TVMFFIAny[]> heap_values_;
  BorrowedTensor* borrowed_[kInline];
  PyObject* borrowed_owner_[kInline];
  int num_borrowed_ = 0;
  TVMFFIObject* inline_owned_[kInline];
  std::vector<TVMFFIObject*> heap_owned_;
  int num_owned_ = 0;
  bool allocator_set_ = false;
  DLPackManagedTensorAllocator saved_allocator_ = nullptr;
  std::vector<DLDevice> streams_;  // devices whose stream this call set (empty on the CPU)
};

/*! \brief Exception classes by error kind; builtins by name, plus registered ones. */
struct ErrorClasses {
  std::unordered_map<std::string, PyObject*> by_kind;
  static ErrorClasses* Get() {
    static ErrorClasses* t = new ErrorClasses();
    return t;
  }
  PyObject* Find(const std::string& kind) {
    auto it = by_kind.find(kind);
    if (it != by_kind.end()) return it->second;
    PyObject* builtins = PyEval_GetBuiltins();
    PyObject* cls = builtins ? PyDict_GetItemString(builtins, kind.c_str()) : nullptr;
    if (cls != nullptr && PyExceptionClass_Check(cls)) return cls;
    return PyExc_RuntimeError;
  }
};

/*! \brief The Python exception an OpaquePyObject extra context carries, if any (borrowed). */
PyObject* CarriedPythonException(const TVMFFIErrorCell* cell) {
  auto* ctx = static_cast<TVMFFIObject*>(cell->extra_context);
  if (ctx == nullptr || ctx->type_index != kTVMFFIOpaquePyObject) return nullptr;
  auto* exc = static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(ctx)->handle);
  return PyExceptionInstance_Check(exc) ? exc : nullptr;
}

/*! \brief Adds a note to an exception (shown under its traceback). */
void AddNote(PyObject* exc, const std::string& note) {
  PyObject* text = PyUnicode_FromStringAndSize(note.data(), static_cast<Py_ssize_t>(note.size()));
  if (text == nullptr) return PyErr_Clear();
  PyObject* notes = PyObject_GetAttrString(exc, "__notes__");
  if (notes == nullptr) {
    PyErr_Clear();
    notes = PyList_New(0);
    if (notes == nullptr || PyObject_SetAttrString(exc, "__notes__", notes) != 0) PyErr_Clear();
  }
  if (notes != nullptr && PyList_Check(notes)) PyList_Append(notes, text);
  Py_XDECREF(notes);
  Py_DECREF(text);
}

}  // namespace

void RegisterErrorClass(const std::string& kind, PyObject* cls) {
  Py_INCREF(cls);
  ErrorClasses::Get()->by_kind[kind] = cls;
}

PyObject* RaiseFromFFI(int rc) {
  if (rc == -2) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError,
                      "an FFI call failed with a pending host error, but none is set");
    }
    return nullptr;
  }
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    PyErr_Format(PyExc_RuntimeError, "an FFI call failed with code %d but raised no error", rc);
    return nullptr;
  }
  ffi::Error error(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)));
  if (PyObject* exc = CarriedPythonException(error.cell())) {
    // A Python exception that crossed C++: raise the very same object.
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
    return nullptr;
  }
  std::string message = error.message();
  std::string frames = error.TracebackMostRecentCallLast();
  PyObject* cls = ErrorClasses::Get()->Find(error.kind());
  PyObject* msg =
      PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (msg == nullptr) return nullptr;
  PyObject* exc = PyObject_CallOneArg(cls, msg);
  Py_DECREF(msg);
  if (exc == nullptr) return nullptr;
  if (!frames.empty()) AddNote(exc, "C++ traceback (most recent call last):\n" + frames);
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return nullptr;
}

int SetFFIErrorFromPython() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != nullptr) PyException_SetTraceback(value, tb);
  std::string kind = reinterpret_cast<PyTypeObject*>(type)->tp_name;
  if (size_t dot = kind.rfind('.'); dot != std::string::npos) kind = kind.substr(dot + 1);
  std::string message;
  TakeText(PyObject_Str(value), &message);
  PyErr_Clear();
  // The exception rides along as an opaque object so the Python caller gets it back unchanged.
  TVMFFIObjectHandle carried = nullptr;
  Py_INCREF(value);
  TVMFFIObjectCreateOpaque(
      value, kTVMFFIOpaquePyObject,
      [](void* h) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(static_cast<PyObject*>(h));
        PyGILState_Release(g);
      },
      &carried);
  TVMFFIByteArray k{kind.data(), kind.size()}, m{message.data(), message.size()}, b{"", 0};
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, &b, nullptr, carried, &err);
  TVMFFIObjectDecRef(carried);
  TVMFFIErrorSetRaised(err);
  TVMFFIObjectDecRef(err);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return -1;
}

PyObject* CallFunction(TVMFFIObject* func, PyObject* name, PyObject* const* args, Py_ssize_t n) {
  CallArgs packed(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!packed.Set(i, args[i], name)) return nullptr;
  }
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  int rc = TVMFFIFunctionGetCellPtr(func)->safe_call(func, packed.values(), static_cast<int32_t>(n),
                                                     &result);
  if (rc != 0) return RaiseFromFFI(rc);
  return ToPython(&result);
}

PyObject* ToPython(TVMFFIAny* v) {
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
    case kTVMFFIOpaquePtr: {
      PyObject* ctypes = PyImport_ImportModule("ctypes");
      if (ctypes == nullptr) return nullptr;
      PyObject* r = PyObject_CallMethod(
          ctypes, "c_void_p", "K",
          static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(v->v_ptr)));
      Py_DECREF(ctypes);
      return r;
    }
    case kTVMFFISmallStr:
      return PyUnicode_DecodeUTF8(v->v_bytes, v->small_str_len, "surrogateescape");
    case kTVMFFISmallBytes:
      return PyBytes_FromStringAndSize(v->v_bytes, v->small_str_len);
    case kTVMFFIRawStr:
      return PyUnicode_FromString(v->v_c_str);
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
  TVMFFIObject* obj = v->v_obj;
  switch (v->type_index) {
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      const TVMFFIByteArray* a = TVMFFIBytesGetByteArrayPtr(obj);
      PyObject* r =
          v->type_index == kTVMFFIStr
              ? PyUnicode_DecodeUTF8(a->data, static_cast<Py_ssize_t>(a->size), "surrogateescape")
              : PyBytes_FromStringAndSize(a->data, static_cast<Py_ssize_t>(a->size));
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
    case kTVMFFIModule: {
      // A module's functions become attributes up front, so lookups are plain attribute reads.
      PyObject* mod = WrapObject(ClassForTypeIndex(kTVMFFIModule), obj);
      if (mod == nullptr || !PyObject_HasAttrString(mod, "_populate")) return mod;
      PyObject* r = PyObject_CallMethod(mod, "_populate", nullptr);
      if (r == nullptr) Py_CLEAR(mod);
      Py_XDECREF(r);
      return mod;
    }
    default:
      return WrapObject(ClassForTypeIndex(v->type_index), obj);
  }
}

PyObject* ViewToPython(const TVMFFIAny* view) {
  TVMFFIAny owned;
  if (view->type_index == kTVMFFIDLTensorPtr) {
    // A borrowed tensor becomes a Tensor object describing the same memory, valid during the call.
    DLTensor* t = static_cast<DLTensor*>(view->v_ptr);
    auto* managed = new DLManagedTensorVersioned();
    managed->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    managed->manager_ctx = nullptr;
    managed->deleter = [](DLManagedTensorVersioned* self) { delete self; };
    managed->flags = 0;
    managed->dl_tensor = *t;
    TVMFFIObjectHandle obj = nullptr;
    if (TVMFFITensorFromDLPackVersioned(managed, 0, 0, &obj) != 0) return RaiseFromFFI(-1);
    owned.type_index = kTVMFFITensor;
    owned.zero_padding = 0;
    owned.v_obj = static_cast<TVMFFIObject*>(obj);
    return ToPython(&owned);
  }
  if (TVMFFIAnyViewToOwnedAny(view, &owned) != 0) return RaiseFromFFI(-1);
  return ToPython(&owned);
}

bool ToOwnedAny(PyObject* value, TVMFFIAny* out) {
  out->zero_padding = 0;
  out->v_int64 = 0;
  if (value == Py_None) {
    out->type_index = kTVMFFINone;
    return true;
  }
  if (PyBool_Check(value)) {
    out->type_index = kTVMFFIBool;
    out->v_int64 = value == Py_True;
    return true;
  }
  if (PyLong_Check(value)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow != 0) {
      PyErr_SetString(PyExc_OverflowError, "the integer does not fit in 64 bits");
      return false;
    }
    if (v == -1 && PyErr_Occurred()) return false;
    out->type_index = kTVMFFIInt;
    out->v_int64 = v;
    return true;
  }
  if (PyFloat_Check(value)) {
    out->type_index = kTVMFFIFloat;
    out->v_float64 = PyFloat_AsDouble(value);
    return true;
  }
  if (PyObject_TypeCheck(value, ObjectType)) {
    TVMFFIObject* h = reinterpret_cast<PyObj*>(value)->handle;
    TVMFFIObjectIncRef(h);
    out->type_index = h->type_index;
    out->v_obj = h;
    return true;
  }
  if (PyUnicode_Check(value)) {
    Py_ssize_t n = 0;
    const char* s = Utf8(value, &n);
    if (s == nullptr) return false;
    TVMFFIByteArray a{s, static_cast<size_t>(n)};
    return TVMFFIStringFromByteArray(&a, out) == 0 || (RaiseFromFFI(-1), false);
  }
  if (PyBytes_Check(value) || PyByteArray_Check(value)) {
    char* data = PyBytes_Check(value) ? PyBytes_AS_STRING(value) : PyByteArray_AS_STRING(value);
    Py_ssize_t n = PyBytes_Check(value) ? PyBytes_GET_SIZE(value) : PyByteArray_GET_SIZE(value);
    TVMFFIByteArray a{data, static_cast<size_t>(n)};
    return TVMFFIBytesFromByteArray(&a, out) == 0 || (RaiseFromFFI(-1), false);
  }
  if (Py_TYPE(value) == DTypeType) {
    out->type_index = kTVMFFIDataType;
    out->v_dtype = reinterpret_cast<PyDType*>(value)->dtype;
    return true;
  }
  if (Py_TYPE(value) == DeviceType) {
    out->type_index = kTVMFFIDevice;
    out->v_device = reinterpret_cast<PyDevice*>(value)->device;
    return true;
  }
  if (ExchangeAPIOf(Py_TYPE(value)) != nullptr || PyObject_HasAttrString(value, "__dlpack__")) {
    TVMFFIObject* t = TensorFromDLPackProducer(value, 0, false);
    if (t == nullptr) return false;
    out->type_index = kTVMFFITensor;
    out->v_obj = t;
    return true;
  }
  // ctypes.c_void_p (by name, so ctypes need not be imported to check).
  if (std::strcmp(Py_TYPE(value)->tp_name, "c_void_p") == 0) {
    PyObject* v = PyObject_GetAttrString(value, "value");
    if (v == nullptr) return false;
    void* p = v == Py_None ? nullptr : PyLong_AsVoidPtr(v);
    Py_DECREF(v);
    if (PyErr_Occurred()) return false;
    out->type_index = p ? kTVMFFIOpaquePtr : kTVMFFINone;
    out->v_ptr = p;
    return true;
  }
  if (PyTuple_Check(value) && Py_TYPE(value) == ClassForTypeIndex(kTVMFFIShape)) {
    std::vector<int64_t> dims(static_cast<size_t>(PyTuple_GET_SIZE(value)));
    for (size_t i = 0; i < dims.size(); ++i) {
      dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(value, static_cast<Py_ssize_t>(i)));
      if (dims[i] == -1 && PyErr_Occurred()) return false;
    }
    *out = Any(Shape(dims)).release();
    return true;
  }
  // Other numbers (NumPy scalars, ...) through the number protocols.
  if (PyIndex_Check(value)) {
    PyObject* index = PyNumber_Index(value);
    if (index == nullptr) return false;
    bool ok = ToOwnedAny(index, out);
    Py_DECREF(index);
    return ok;
  }
  if (Py_TYPE(value)->tp_as_number != nullptr && Py_TYPE(value)->tp_as_number->nb_float) {
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) return false;
    out->type_index = kTVMFFIFloat;
    out->v_float64 = v;
    return true;
  }
  if (PyCallable_Check(value)) {
    TVMFFIObject* f = FunctionFromCallable(value);
    if (f == nullptr) return false;
    out->type_index = kTVMFFIFunction;
    out->v_obj = f;
    return true;
  }
  PyErr_Format(PyExc_TypeError, "cannot convert a value of type `%s` to an FFI value",
               Py_TYPE(value)->tp_name);
  return false;
}

}  // namespace python
}  // namespace ffi
