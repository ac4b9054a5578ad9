// ffi.Tensor's DLPack exchange API (the C table consumers use instead of `__dlpack__`), and the
// other direction: tensor results handed to the caller's framework through its exchange API.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core.h"

namespace tvm {
namespace ffi {
namespace python {

bool framework_tensor_results = true;

namespace {

// ---- the exchange API of ffi.Tensor ---------------------------------------------------------

/*!
 * \brief `py_object` as an ffi.Tensor that holds a tensor, or NULL with a TypeError (RuntimeError
 * for one that holds none, see HandleOf).
 */
PyTensor* AsTensor(void* py_object, const char* what) {
  auto* obj = static_cast<PyObject*>(py_object);
  if (obj != nullptr && PyObject_TypeCheck(obj, TensorType)) {
    return HandleOf(obj) != nullptr ? reinterpret_cast<PyTensor*>(obj) : nullptr;
  }
  PyErr_Format(PyExc_TypeError, "%s expects an ffi.Tensor, not `%s`", what,
               obj ? Py_TYPE(obj)->tp_name : "NULL");
  return nullptr;
}

int ManagedFromPy(void* py_object, DLManagedTensorVersioned** out) {
  PyTensor* t = AsTensor(py_object, "managed_tensor_from_py_object_no_sync");
  if (t == nullptr) return -1;
  if (TVMFFITensorToDLPackVersioned(t->base.handle, out) != 0) return RaiseFromFFI(-1), -1;
  if (t->read_only) (*out)->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  return 0;
}

int ManagedToPy(DLManagedTensorVersioned* tensor, void** out) {
  if (tensor == nullptr) {
    PyErr_SetString(PyExc_TypeError, "managed_tensor_to_py_object_no_sync: the tensor is NULL");
    return -1;
  }
  bool read_only = (tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  TVMFFIObjectHandle handle = nullptr;
  // On refusal the tensor stays the caller's, as the exchange API's callers expect (they free it).
  if (TVMFFITensorFromDLPackVersioned(tensor, 0, 0, &handle) != 0) return RaiseFromFFI(-1), -1;
  PyObject* obj = WrapTensor(static_cast<TVMFFIObject*>(handle), read_only);
  if (obj == nullptr) return -1;
  *out = obj;
  return 0;
}

int ViewFromPy(void* py_object, DLTensor* out) {
  PyTensor* t = AsTensor(py_object, "dltensor_from_py_object_no_sync");
  if (t == nullptr) return -1;
  if (t->read_only) {
    // A bare DLTensor cannot say read-only; the managed export carries the flag.
    PyErr_SetString(PyExc_BufferError,
                    "ffi.Tensor is read-only; a DLTensor view cannot mark it so (use "
                    "managed_tensor_from_py_object_no_sync)");
    return -1;
  }
  *out = *TVMFFITensorGetDLTensorPtr(t->base.handle);
  return 0;
}

int CurrentStream(DLDeviceType device_type, int32_t device_id, void** out) noexcept {
  *out = TVMFFIEnvGetStream(device_type, device_id);
  return 0;
}

/*! \brief A CPU tensor allocated here: the DLPack header, its shape, and 64-byte aligned data. */
struct CPUAllocation {
  DLManagedTensorVersioned managed;
  int64_t shape[1];  // really `ndim` entries (allocated with the header)

  static void Delete(DLManagedTensorVersioned* self) {
    std::free(self->dl_tensor.data);
    std::free(self->manager_ctx);
  }
};

/*!
 * \brief Allocates CPU tensors only: a consumer may install this table's allocator for a whole
 * call, and a device allocator here would need that device's runtime.
 */
int AllocateCPU(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                void (*set_error)(void* error_ctx, const char* kind, const char* message)) {
  if (prototype->device.device_type != kDLCPU) {
    set_error(error_ctx, "RuntimeError", "ffi.Tensor's exchange API allocates CPU tensors only");
    return -1;
  }
  if (prototype->ndim < 0 || (prototype->ndim > 0 && prototype->shape == nullptr)) {
    set_error(error_ctx, "ValueError", "the prototype tensor has a malformed shape");
    return -1;
  }
  size_t bytes = (static_cast<size_t>(prototype->dtype.bits) * prototype->dtype.lanes + 7) / 8;
  for (int32_t i = 0; i < prototype->ndim; ++i) {
    if (prototype->shape[i] < 0) {
      set_error(error_ctx, "ValueError", "the prototype tensor has a negative extent");
      return -1;
    }
    if (__builtin_mul_overflow(bytes, static_cast<size_t>(prototype->shape[i]), &bytes) ||
        bytes > (SIZE_MAX >> 1)) {
      set_error(error_ctx, "ValueError", "the prototype tensor is too large to allocate");
      return -1;
    }
  }
  size_t header = sizeof(CPUAllocation) + sizeof(int64_t) * static_cast<size_t>(prototype->ndim);
  auto* a = static_cast<CPUAllocation*>(std::calloc(1, header));
  void* data = a ? std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64) : nullptr;
  if (data == nullptr) {
    std::free(a);
    set_error(error_ctx, "MemoryError", "out of memory allocating a CPU tensor");
    return -1;
  }
  a->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  a->managed.manager_ctx = a;
  a->managed.deleter = CPUAllocation::Delete;
  DLTensor& dl = a->managed.dl_tensor;
  dl.data = data;
  dl.device = prototype->device;
  dl.ndim = prototype->ndim;
  dl.dtype = prototype->dtype;
  dl.shape = a->shape;
  std::memcpy(a->shape, prototype->shape, sizeof(int64_t) * static_cast<size_t>(dl.ndim));
  *out = &a->managed;
  return 0;
}

// Consumers call these as C functions. The three taking Python objects run with the GIL and
// report failures as Python errors, so a C++ exception becomes one (FFI_PY_ENTRY); the allocator
// and the stream query may run without the GIL and throw nothing.
const DLPackExchangeAPI kTensorExchangeAPI = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr},
    AllocateCPU,
    FFI_PY_ENTRY(ManagedFromPy),
    FFI_PY_ENTRY(ManagedToPy),
    FFI_PY_ENTRY(ViewFromPy),
    CurrentStream,
};

// ---- tensor results to the caller's framework ------------------------------------------------

using ManagedDeleter = void (*)(DLManagedTensorVersioned*);

/*!
 * \brief The runtime's deleter of exported tensors, learned from the first export (the runtime
 * exports every tensor with the same one).
 */
std::atomic<ManagedDeleter> export_deleter{nullptr};

/*! \brief The export a framework is converting on this thread, and whether it released it. */
struct Conversion {
  DLManagedTensorVersioned* tensor;
  bool released;
};
thread_local Conversion* conversion = nullptr;

/*!
 * \brief The deleter an export carries while a framework converts it: notes that the framework
 * released it (frameworks differ in whether a failed conversion already did), then frees it. A
 * framework that kept this pointer rather than reading the field later still frees correctly.
 */
void DeleteDuringConversion(DLManagedTensorVersioned* self) {
  Conversion* c = conversion;
  if (c != nullptr && c->tensor == self) c->released = true;
  export_deleter.load(std::memory_order_relaxed)(self);
}

PyObject* SetTensorResults(PyObject*, PyObject* mode) {
  PyObject* previous = PyUnicode_FromString(framework_tensor_results ? "framework" : "ffi");
  if (previous == nullptr) return nullptr;
  if (PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "framework") == 0) {
    framework_tensor_results = true;
  } else if (PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "ffi") == 0) {
    framework_tensor_results = false;
  } else {
    Py_DECREF(previous);
    return PyErr_Format(PyExc_ValueError,
                        "set_tensor_results() takes \"framework\" or \"ffi\", not %R", mode),
           nullptr;
  }
  return previous;
}

PyMethodDef export_functions[] = {
    {"set_tensor_results", FFI_PY_ENTRY(SetTensorResults), METH_O,
     "set_tensor_results($module, mode, /)\n--\n\nChooses what tensors returned by calls that "
     "received framework tensors (torch.Tensor, ...) arrive as: \"framework\" (the default: that "
     "framework's tensor type, zero-copy) or \"ffi\" (ffi.Tensor). Process-wide; returns the "
     "previous mode."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

const DLPackExchangeAPI* TensorExchangeAPI() { return &kTensorExchangeAPI; }

PyObject* TensorToFramework(TVMFFIObject* handle, const DLPackExchangeAPI* api) {
  if (api->managed_tensor_to_py_object_no_sync == nullptr) return WrapTensor(handle, false);
  DLManagedTensorVersioned* inner = nullptr;
  if (TVMFFITensorToDLPackVersioned(handle, &inner) != 0) {
    ClearRaisedFFIError();
    return WrapTensor(handle, false);
  }
  ManagedDeleter deleter = inner->deleter;
  // Learned once; afterwards a plain load (no read-modify-write on every result).
  ManagedDeleter known = export_deleter.load(std::memory_order_relaxed);
  if (known == nullptr && export_deleter.compare_exchange_strong(known, deleter)) known = deleter;
  if (known != deleter) {
    inner->deleter(inner);  // not expected: one runtime, one export deleter
    return WrapTensor(handle, false);
  }
  // The deleter runs exactly once whatever the framework does: while it converts, the export
  // carries one that notes a release; the runtime's own is back in place before anyone else sees
  // the export.
  Conversion c{inner, false};
  Conversion* outer = conversion;
  conversion = &c;
  inner->deleter = DeleteDuringConversion;
  void* out = nullptr;
  int rc = api->managed_tensor_to_py_object_no_sync(inner, &out);
  conversion = outer;
  if (!c.released) inner->deleter = deleter;
  if (rc == 0 && out != nullptr) {
    TVMFFIObjectDecRef(handle);
    return static_cast<PyObject*>(out);
  }
  // The framework refused (a dtype it lacks, ...): the caller gets an ffi.Tensor instead.
  Py_XDECREF(static_cast<PyObject*>(out));
  PyErr_Clear();
  if (!c.released) deleter(inner);
  return WrapTensor(handle, false);
}

bool InitDLPackExport(PyObject* module) {
  PyObject* cap = PyCapsule_New(const_cast<DLPackExchangeAPI*>(&kTensorExchangeAPI),
                                "dlpack_exchange_api", nullptr);
  if (cap == nullptr) return false;
  int rc = PyObject_SetAttrString(reinterpret_cast<PyObject*>(TensorType),
                                  "__dlpack_c_exchange_api__", cap);
  Py_DECREF(cap);
  return rc == 0 && PyModule_AddFunctions(module, export_functions) == 0;
}

}  // namespace python
}  // namespace ffi
}  // namespace tvm
