// Python -> C++ calls: packs arguments without copies, releases the GIL around the call, and
// converts the result.
#include "call.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "boundary.h"
#include "classify.h"
#include "containers.h"
#include "convert.h"
#include "dlpack_export.h"
#include "dlpack_import.h"
#include "dtype_device.h"
#include "errors.h"
#include "objects.h"
#include "py_text.h"
#include "tensor.h"

namespace tvm::ffi::python {
namespace {

/*!
 * \brief A Tensor object describing a framework tensor passed as an argument, without copying
 * its data or allocating. It has the ABI's tensor layout ({TVMFFIObject, DLTensor}), so a callee
 * can take it as TensorView, as Tensor, or keep it. Shape and strides are copied into the object,
 * so what a callee sees never changes when Python reshapes the array during or after the call.
 * Objects come from a per-thread pool: after the call, an object nobody else references goes back
 * to the pool; one the callee kept is handed over to its holders together with a reference to the
 * Python object that owns the memory.
 */
struct BorrowedTensor {
  /*! \brief Tensors with more dimensions are imported as ordinary Tensor objects instead. */
  static constexpr int32_t kMaxDims = 16;
  TVMFFIObject header;
  DLTensor dl;
  PyObject* owner;       // set when handed over
  BorrowedTensor* next;  // pool link
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];

  /*! \brief Points `dl` at this object's own copies of `src`'s shape and strides. */
  bool OwnMetadata(const DLTensor& src) {
    if (src.ndim < 0 || src.ndim > kMaxDims || (src.ndim > 0 && src.shape == nullptr)) {
      return false;
    }
    dl = src;
    for (int32_t i = 0; i < src.ndim; ++i) shape[i] = src.shape[i];
    dl.shape = shape;
    if (src.strides != nullptr) {
      for (int32_t i = 0; i < src.ndim; ++i) strides[i] = src.strides[i];
    } else {
      FillCompactStrides(shape, src.ndim, strides);
    }
    dl.strides = strides;
    return true;
  }

  static void HandedOverDeleter(void* self, int flags) {
    auto* t = static_cast<BorrowedTensor*>(self);
    if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
      DecRefFromAnyThread(t->owner);
      t->owner = nullptr;
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

BorrowedTensor* AcquireBorrowedTensor(TensorPool* pool) {
  BorrowedTensor* t = pool->head;
  if (t != nullptr) {
    // Pooled objects come back with the header they had: the pool's reference only, and the
    // pooled deleter (objects handed over never come back).
    pool->head = t->next;
    return t;
  }
  t = new BorrowedTensor();
  InitObjectHeader(&t->header, kTVMFFITensor, BorrowedTensor::PooledDeleter);
  t->owner = nullptr;
  return t;
}

void PoolBorrowedTensor(TensorPool* pool, BorrowedTensor* t) {
  t->next = pool->head;
  pool->head = t;
}

/*! \brief Returns `t` to the pool, or hands it over to whoever kept it after the call. */
void ReleaseBorrowedTensor(TensorPool* pool, BorrowedTensor* t, PyObject* owner) {
  if (detail::HasSoleReference(&t->header)) {  // the pool's, and nobody else's
    return PoolBorrowedTensor(pool, t);
  }
  Py_INCREF(owner);
  t->owner = owner;
  t->header.deleter = BorrowedTensor::HandedOverDeleter;
  TVMFFIObjectDecRef(&t->header);
}

/*!
 * \brief Arrays made for small list and tuple arguments, kept per thread for the next call: a
 * call with `[1, 2, 3]` then allocates nothing. An array the callee kept is not taken back.
 */
struct ArrayPool {
  /*! \brief Room in each pooled array; longer lists get an array of their own. */
  static constexpr int64_t kCapacity = 8;
  /*! \brief At most this many arrays wait in the pool. */
  static constexpr size_t kMaxPooled = 8;
  std::vector<TVMFFIObject*> free;
  ArrayPool() { free.reserve(kMaxPooled); }  // pooling again never allocates (nor throws)
  ~ArrayPool() {
    for (TVMFFIObject* a : free) TVMFFIObjectDecRef(a);
  }
};

/*!
 * \brief This thread's pools, in one thread-local object: a call looks it up once (each lookup
 * of a thread_local in a shared library is a __tls_get_addr call and an initialisation check).
 */
struct ThreadPools {
  TensorPool tensors;
  ArrayPool arrays;
};
thread_local ThreadPools thread_pools;

/*!
 * \brief Arguments of one call and the temporaries they borrow from: DLTensor descriptions of
 * framework tensors, objects created for the call, and the environment changes to undo.
 * Small calls use inline storage only.
 */
class CallArgs {
 public:
  explicit CallArgs(Py_ssize_t n) : num_args_(n) {
    if (n > kInline) {
      heap_values_.reset(new TVMFFIAny[n]);
      // Every argument may borrow: one slot each, so no tensor falls back to an import.
      heap_borrowed_.reset(new Borrowed[n]);
      borrowed_ = heap_borrowed_.get();
      borrowed_capacity_ = static_cast<int>(n);
    }
  }
  ~CallArgs() {
    for (int i = 0; i < num_borrowed_; ++i) {
      ReleaseBorrowedTensor(&pools_->tensors, borrowed_[i].tensor, borrowed_[i].owner);
    }
    if (num_moved_ != 0) ReleaseKeepingError([this] { RestoreMoved(); });
    if (num_arrays_ != 0 || num_owned_ != 0) ReleaseMade();
    if (allocator_set_) TVMFFIEnvSetDLPackManagedTensorAllocator(saved_allocator_, 0, nullptr);
    for (int i = 0; i < num_streams_; ++i) {
      const DLDevice& d = i < kInline ? inline_streams_[i] : more_streams_[i - kInline];
      TVMFFIEnvSetStream(d.device_type, d.device_id, nullptr, nullptr);
    }
  }
  TVMFFIAny* values() { return heap_values_ ? heap_values_.get() : inline_values_; }
  /*!
   * \brief Leaves the call's temporaries unreleased (leaked), for a thread that is ending while
   * the interpreter shuts down and can no longer run Python code; the environment is restored.
   */
  void Abandon() { num_borrowed_ = num_arrays_ = num_owned_ = num_moved_ = 0; }
  /*! \brief The exchange API of the first framework tensor argument, or NULL. */
  const DLPackExchangeAPI* framework_api() const { return framework_api_; }

  /*! \brief Converts argument `i`; false with a Python error naming it. */
  bool Set(Py_ssize_t i, PyObject* arg, PyObject* func_name) {
    TVMFFIAny* out = &values()[i];
    out->zero_padding = 0;
    out->v_int64 = 0;
    long long small = 0;
    if (Py_TYPE(arg) == &PyLong_Type && SmallIntValue(arg, &small)) {
      out->type_index = kTVMFFIInt;
      out->v_int64 = small;
      return true;
    }
    Classified c = ClassifyFast(arg);
    switch (c.kind) {
      case PyKind::kInt: {
        long long v = 0;
        if (!Int64Of(arg, &v)) {
          if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return false;
          PyErr_Clear();  // beyond int64: a BigInt object, owned for the call
          return SetOwned(i, arg, c, func_name);
        }
        out->type_index = kTVMFFIInt;
        out->v_int64 = v;
        return true;
      }
      case PyKind::kFloat:
        out->type_index = kTVMFFIFloat;
        out->v_float64 = PyFloat_AS_DOUBLE(arg);
        return true;
      case PyKind::kNone:
        out->type_index = kTVMFFINone;
        return true;
      case PyKind::kBool:
        out->type_index = kTVMFFIBool;
        out->v_int64 = arg == Py_True;
        return true;
      case PyKind::kStr:
        return SetString(out, arg);
      case PyKind::kObject: {
        TVMFFIObject* h = LoadHandle(reinterpret_cast<PyObj*>(arg));
        if (IsReadOnlyTensor(arg, h)) return ReadOnly(i, arg, func_name);
        out->type_index = h->type_index;
        out->v_obj = h;
        // A container a framework call returned hands out that framework's tensors: passing it
        // back makes this call's results that framework's too.
        if (const DLPackExchangeAPI* api = reinterpret_cast<PyObj*>(arg)->tensor_api) {
          if (framework_api_ == nullptr) framework_api_ = api;
        }
        return true;
      }
      case PyKind::kMoved: {
        // The callee may take the reference out of the object's slot (then it owns it alone).
        auto* target = reinterpret_cast<PyObj*>(reinterpret_cast<PyRValueRef*>(arg)->target);
        // Taken out of the object in one step, for the call: another thread handing the same
        // object over at once (free-threaded Python) finds it moved, never a handle two callees
        // both take. Put back after the call unless the callee took it.
        TVMFFIObject* h = __atomic_exchange_n(&target->handle, nullptr, __ATOMIC_ACQ_REL);
        if (h == nullptr) {
          return Fail(i, arg, func_name, "the object was moved already (it holds no FFI object)");
        }
        Moved* slot = AddMoved(target, h);
        out->type_index = kTVMFFIObjectRValueRef;
        out->v_ptr = &slot->handle;
        return true;
      }
      case PyKind::kDType:
        out->type_index = kTVMFFIDataType;
        out->v_dtype = reinterpret_cast<PyDType*>(arg)->dtype;
        return true;
      case PyKind::kDevice:
        out->type_index = kTVMFFIDevice;
        out->v_device = reinterpret_cast<PyDevice*>(arg)->device;
        return true;
      case PyKind::kNumpy:
        if (!NumpyArrayWriteable(arg)) return ReadOnly(i, arg, func_name);
        if (num_borrowed_ < borrowed_capacity_) {
          DLTensor view;
          int64_t dims[2 * BorrowedTensor::kMaxDims];
          if (NumpyArrayView(arg, &view, dims, 2 * BorrowedTensor::kMaxDims)) {
            return Borrow(out, arg, view);
          }
        }
        return SetImported(i, arg, c, func_name);
      case PyKind::kExchange:
        return SetExchangeTensor(i, arg, c, func_name);
      case PyKind::kDLPack:
        return SetImported(i, arg, c, func_name);
      case PyKind::kSequence:
        if (num_arrays_ < kInline &&
            (Py_TYPE(arg) == &PyList_Type || Py_TYPE(arg) == &PyTuple_Type) &&
            PySequence_Fast_GET_SIZE(arg) <= ArrayPool::kCapacity) {
          return SetPooledArray(i, arg, c, func_name);
        }
        return SetOwned(i, arg, c, func_name);
      case PyKind::kUnsupported: {  // an ffi.Object holding no FFI object
        static const std::string why = std::string("it holds no FFI object: ") + kNoObjectReason;
        return Fail(i, arg, func_name, why.c_str());
      }
      default:
        return SetOwned(i, arg, c, func_name);
    }
  }

 private:
  static constexpr Py_ssize_t kInline = 8;

  /*!
   * \brief Releases the arrays and objects made for the call. Their deleters may run Python code
   * (a producer's DLPack deleter through ctypes, a Python object an element held), so they run
   * with the exception the call failed with, if any, set aside: it reaches the caller intact.
   */
  void ReleaseMade() {
    ReleaseKeepingError([this] {
      for (int i = 0; i < num_arrays_; ++i) ReleasePooledArray(&pools_->arrays, arrays_[i]);
      for (int i = 0; i < num_owned_; ++i) TVMFFIObjectDecRef(owned(i));
    });
  }

  /*! \brief Passes a pooled tensor object describing `view` (metadata copied) of `owner`. */
  bool Borrow(TVMFFIAny* out, PyObject* owner, const DLTensor& view) {
    TensorPool* pool = &Pools()->tensors;
    BorrowedTensor* t = AcquireBorrowedTensor(pool);
    if (!t->OwnMetadata(view)) {
      PoolBorrowedTensor(pool, t);
      PyErr_SetString(PyExc_BufferError, "the tensor's DLPack description is malformed");
      return false;
    }
    borrowed_[num_borrowed_++] = {t, owner};
    out->type_index = kTVMFFITensor;
    out->v_obj = &t->header;
    return true;
  }

  ThreadPools* Pools() {
    if (pools_ == nullptr) pools_ = &thread_pools;
    return pools_;
  }

  /*! \brief An object handed over with _move(): its handle, out of the Python object. */
  struct Moved {
    PyObj* target;
    TVMFFIObject* handle;  // the callee may take it: then NULL
  };
  /*! \brief Records a moved argument; the slots never move, as the callee holds their address. */
  Moved* AddMoved(PyObj* target, TVMFFIObject* handle) {
    if (moved_ == nullptr) moved_.reset(new Moved[num_args_]);
    Moved* slot = &moved_[num_moved_++];
    *slot = {target, handle};
    return slot;
  }
  /*! \brief Puts back the handles the callee did not take (dropped if the object has another). */
  void RestoreMoved() {
    for (int i = 0; i < num_moved_; ++i) {
      Moved& m = moved_[i];
      if (m.handle == nullptr) continue;
      TVMFFIObject* empty = nullptr;
      if (!__atomic_compare_exchange_n(&m.target->handle, &empty, m.handle, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE)) {
        TVMFFIObjectDecRef(m.handle);
      }
    }
    num_moved_ = 0;
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
    // Short text inline, longer text as a String object, as the reference passes them: a
    // kernel taking ObjectRef (or Any it keeps) gets an object either way, whichever headers
    // built it. (A borrowed `const char*` would be cheaper, but reference-built kernels refuse
    // it where they expect an object.)
    detail::BytesToAny<StringObj>(std::string_view(s, static_cast<size_t>(size)), kTVMFFISmallStr,
                                  out);
    if (out->type_index >= kTVMFFIStaticObjectBegin) Own(out->v_obj);
    return true;
  }

  bool SetExchangeTensor(Py_ssize_t i, PyObject* arg, Classified c, PyObject* func_name) {
    const DLPackExchangeAPI* api = c.api;
    if (framework_api_ == nullptr) framework_api_ = api;
    TVMFFIAny* out = &values()[i];
    DLTensor view;
    if (api->dltensor_from_py_object_no_sync != nullptr && num_borrowed_ < borrowed_capacity_) {
      if (api->dltensor_from_py_object_no_sync(arg, &view) != 0) {
        if (!PyErr_Occurred()) {
          PyErr_SetString(PyExc_BufferError, "the tensor has no DLPack view");
        }
        return false;
      }
      if (view.ndim <= BorrowedTensor::kMaxDims) {
        if (!Borrow(out, arg, view)) return false;
        UseFrameworkEnvironment(api, view.device);
        return true;
      }
    }
    // Past the pooled slots, past kMaxDims, or without a view function: an imported Tensor.
    if (!SetImported(i, arg, c, func_name)) return false;
    UseFrameworkEnvironment(api, TVMFFITensorGetDLTensorPtr(out->v_obj)->device);
    return true;
  }

  /*! \brief Passes an imported Tensor object owned for the call; read-only ones are refused. */
  bool SetImported(Py_ssize_t i, PyObject* arg, Classified c, PyObject* func_name) {
    TVMFFIAny* out = &values()[i];
    bool read_only = false;
    TVMFFIObject* t = TensorFromDLPackProducer(arg, c, 0, false, &read_only);
    if (t == nullptr) return false;
    Own(t);
    if (read_only) return ReadOnly(i, arg, func_name);
    out->type_index = kTVMFFITensor;
    out->v_obj = t;
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
    if (device.device_type == kDLCPU || api->current_work_stream == nullptr) return;
    // Tensors of one call usually share a device: look its stream up once, not per tensor.
    if (device.device_type == env_device_.device_type &&
        device.device_id == env_device_.device_id) {
      return;
    }
    env_device_ = device;
    if (TVMFFIEnvGetStream(device.device_type, device.device_id) != nullptr) return;
    void* stream = nullptr;
    if (api->current_work_stream(device.device_type, device.device_id, &stream) == 0 &&
        stream != nullptr) {
      TVMFFIEnvSetStream(device.device_type, device.device_id, stream, nullptr);
      if (num_streams_ < kInline) {
        inline_streams_[num_streams_] = device;
      } else {
        more_streams_.push_back(device);
      }
      ++num_streams_;
    }
  }

  /*! \brief Any other convertible value, owned for the duration of the call. */
  bool SetOwned(Py_ssize_t i, PyObject* arg, Classified c, PyObject* func_name) {
    TVMFFIAny* out = &values()[i];
    ContainerArgumentScope scope;
    if (!ToOwnedAny(arg, c, out)) return FailConversion(i, arg, c, func_name);
    if (out->type_index >= kTVMFFIStaticObjectBegin) Own(out->v_obj);
    UseNestedFrameworkTensor(scope.state);
    return true;
  }

  /*! \brief Converting one container argument: this thread's record, set up and cleared. */
  struct ContainerArgumentScope {
    ContainerArgument& state = container_argument;
    bool outer = state.in_call;  // a conversion may call Python, which may make calls
    ContainerArgumentScope() {
      state.api = nullptr;
      state.in_call = true;
    }
    ~ContainerArgumentScope() { state.in_call = outer; }
  };

  /*! \brief A framework tensor met inside a container argument counts as a tensor argument. */
  void UseNestedFrameworkTensor(const ContainerArgument& nested) {
    if (const DLPackExchangeAPI* api = nested.api) {
      if (framework_api_ == nullptr) framework_api_ = api;
      UseFrameworkEnvironment(api, nested.device);
    }
  }

  /*! \brief A small list or tuple, converted into an array from this thread's pool. */
  bool SetPooledArray(Py_ssize_t i, PyObject* arg, Classified c, PyObject* func_name) {
    TVMFFIObject* array;
    ArrayPool* pool = &Pools()->arrays;
    if (!pool->free.empty()) {
      array = pool->free.back();
      pool->free.pop_back();
    } else {
      try {
        array = detail::ObjectUnsafe::Header(ArrayObj::Empty(ArrayPool::kCapacity).release());
      }
      FFI_PY_CATCH(return false)
    }
    arrays_[num_arrays_++] = array;  // released (or pooled again) with the call's temporaries
    ContainerArgumentScope scope;
    if (!ListIntoArray(arg, static_cast<ArrayObj*>(detail::ObjectUnsafe::FromHeader(array)))) {
      return FailConversion(i, arg, c, func_name);
    }
    TVMFFIAny* out = &values()[i];
    out->type_index = kTVMFFIArray;
    out->v_obj = array;
    UseNestedFrameworkTensor(scope.state);
    return true;
  }

  /*!
   * \brief After the call: an array nobody else holds is emptied (its values released) and pooled
   * again; one the callee kept is left to its holders.
   */
  static void ReleasePooledArray(ArrayPool* pool, TVMFFIObject* array) {
    if (detail::HasSoleReference(array) && pool->free.size() < ArrayPool::kMaxPooled) {
      static_cast<ArrayObj*>(detail::ObjectUnsafe::FromHeader(array))->clear();
      pool->free.push_back(array);
      return;
    }
    TVMFFIObjectDecRef(array);
  }

  /*! \brief The TypeError of an argument that did not convert, keeping the inner message where it
   * names an element (or the object protocol) that failed. */
  bool FailConversion(Py_ssize_t i, PyObject* arg, Classified c, PyObject* func_name) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return false;
    if (c.kind == PyKind::kSequence || c.kind == PyKind::kMapping || c.kind == PyKind::kForeign ||
        c.kind == PyKind::kProtocol) {
      PyObject *type, *value, *tb;
      PyErr_Fetch(&type, &value, &tb);
      PyErr_NormalizeException(&type, &value, &tb);
      PyObject* why = value ? PyObject_Str(value) : nullptr;
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(tb);
      const char* text = why ? PyUnicode_AsUTF8(why) : nullptr;
      bool r = text ? Fail(i, arg, func_name, text) : false;
      Py_XDECREF(why);
      return r;
    }
    PyErr_Clear();
    return Fail(i, arg, func_name, nullptr);
  }

  /*! \brief The callee as messages name it: its name, or "an anonymous function". */
  static PyObject* Callee(PyObject* func_name) {
    if (func_name != nullptr && func_name != Py_None)
      return PyUnicode_FromFormat("`%S`", func_name);
    return PyUnicode_FromString("an anonymous function");
  }

  bool Fail(Py_ssize_t i, PyObject* arg, PyObject* func_name, const char* why) {
    PyObject* callee = Callee(func_name);
    if (callee == nullptr) return false;
    PyErr_Format(PyExc_TypeError, "Cannot convert argument #%zd of type `%s` when calling %U: %s",
                 i, Py_TYPE(arg)->tp_name, callee, why ? why : "no conversion to an FFI value");
    Py_DECREF(callee);
    return false;
  }

  bool ReadOnly(Py_ssize_t i, PyObject* arg, PyObject* func_name) {
    PyObject* callee = Callee(func_name);
    if (callee == nullptr) return false;
    PyErr_Format(PyExc_BufferError,
                 "Argument #%zd of type `%s` when calling %U is read-only; kernels receive "
                 "writable tensors (pass a writable copy)",
                 i, Py_TYPE(arg)->tp_name, callee);
    Py_DECREF(callee);
    return false;
  }

  TVMFFIAny inline_values_[kInline];
  std::unique_ptr<TVMFFIAny[]> heap_values_;
  struct Borrowed {
    BorrowedTensor* tensor;
    PyObject* owner;
  };
  Borrowed inline_borrowed_[kInline];
  std::unique_ptr<Borrowed[]> heap_borrowed_;
  Borrowed* borrowed_ = inline_borrowed_;
  int borrowed_capacity_ = kInline;
  int num_borrowed_ = 0;
  ThreadPools* pools_ = nullptr;   // this thread's, looked up by the first argument that pools
  TVMFFIObject* arrays_[kInline];  // pooled arrays of list arguments
  int num_arrays_ = 0;
  TVMFFIObject* inline_owned_[kInline];
  std::vector<TVMFFIObject*> heap_owned_;
  int num_owned_ = 0;
  bool allocator_set_ = false;
  DLPackManagedTensorAllocator saved_allocator_ = nullptr;
  // Devices whose stream this call set (none on the CPU); no allocation for the usual few.
  DLDevice inline_streams_[kInline];
  std::vector<DLDevice> more_streams_;
  int num_streams_ = 0;
  DLDevice env_device_{kDLCPU, -1};  // the last device whose stream this call settled
  const DLPackExchangeAPI* framework_api_ = nullptr;
  Py_ssize_t num_args_;
  std::unique_ptr<Moved[]> moved_;  // one slot per argument, made by the first moved one
  int num_moved_ = 0;
};

/*!
 * \brief Runs `call` (the call proper). CPython 3.12+ ends a thread that takes the GIL back during
 * its shutdown with pthread_exit (in a callback, or on return from the call): the thread unwinds
 * with abi::__forced_unwind and without a Python thread state, so `packed`'s temporaries are left
 * unreleased (their deleters may run Python code) and the unwind goes on.
 */
template <typename F>
[[gnu::always_inline]] inline int RunAbandoningOnThreadExit(CallArgs* packed, F&& call) {
#if defined(__GLIBCXX__)
  try {
    return call();
  } catch (abi::__forced_unwind&) {
    packed->Abandon();
    throw;
  }
#else
  return call();
#endif
}

/*!
 * \brief CallFunction, throwing what packing and converting may throw (std::bad_alloc, ...);
 * inlined there, so that the call path pays no extra call for the guard.
 */
[[gnu::always_inline]] inline PyObject* CallFunctionImpl(TVMFFIObject* func, PyObject* name,
                                                         PyObject* const* args, Py_ssize_t n,
                                                         bool keep_gil) {
  CallArgs packed(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!packed.Set(i, args[i], name)) return nullptr;
  }
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  TVMFFISafeCallType call = TVMFFIFunctionGetCellPtr(func)->safe_call;
  int rc = RunAbandoningOnThreadExit(&packed, [&] {
    if (keep_gil) return call(func, packed.values(), static_cast<int32_t>(n), &result);
    // Other Python threads run during the call; callbacks and signal checks take the GIL back.
    PyThreadState* ts = PyEval_SaveThread();
    int call_rc = call(func, packed.values(), static_cast<int32_t>(n), &result);
    PyEval_RestoreThread(ts);
    return call_rc;
  });
  if (rc != 0) {
    ReleaseAny(&result);
    return RaiseFromFFI(rc);
  }
  // Tensors in the result go to the caller's framework (see set_tensor_results).
  return ToPython(&result, framework_tensor_results.load(std::memory_order_relaxed)
                               ? packed.framework_api()
                               : nullptr);
}

}  // namespace

PyObject* CallFunction(TVMFFIObject* func, PyObject* name, PyObject* const* args, Py_ssize_t n,
                       bool keep_gil) {
  if (n > INT32_MAX) return PyErr_SetString(PyExc_OverflowError, "too many arguments"), nullptr;
  // A C++ exception (a text argument too large to copy, say) is the caller's Python exception;
  // the call's temporaries are released on the way out (CallArgs' destructor).
  try {
    return CallFunctionImpl(func, name, args, n, keep_gil);
  }
  FFI_PY_CATCH(return nullptr)
}

}  // namespace tvm::ffi::python
