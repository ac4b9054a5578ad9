// ffi.Tensor's DLPack exchange API (the C table consumers use instead of `__dlpack__`), and the
// other direction: tensor results handed to the caller's framework through its exchange API.
#include <ffi/detail/runtime_entries.h>
#include <nanobind/nanobind.h>

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "boundary.h"
#include "classify.h"
#include "convert.h"
#include "dlpack_export.h"
#include "errors.h"
#include "nb_check.h"
#include "objects.h"
#include "tensor.h"

namespace nb = nanobind;

namespace tvm::ffi::python {

std::atomic<bool> framework_tensor_results{true};

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
 * \brief Deleters of the tensors handed to frameworks, learned as first seen: the runtime's export
 * deleter, and the producers' own for tensors handed back (DetachSoleImport). A
 * handful exist in a process (one a framework); a slot, once set, never changes.
 */
constexpr int kDeleterSlots = 4;
std::atomic<ManagedDeleter> known_deleters[kDeleterSlots];

/*! \brief The tensor a framework is converting on this thread, and whether it released it. */
struct Conversion {
  DLManagedTensorVersioned* tensor;
  bool released;
};
thread_local Conversion* conversion = nullptr;

/*!
 * \brief The deleter a tensor carries while a framework converts it: notes that the framework
 * released it (frameworks differ in whether a failed conversion already did), then frees it with
 * the deleter of slot `kSlot`. A framework that kept this pointer rather than reading the field
 * later still frees correctly.
 */
template <int kSlot>
void DeleteDuringConversion(DLManagedTensorVersioned* self) {
  Conversion* c = conversion;
  if (c != nullptr && c->tensor == self) c->released = true;
  known_deleters[kSlot].load(std::memory_order_relaxed)(self);
}
constexpr ManagedDeleter kDuringConversion[kDeleterSlots] = {
    DeleteDuringConversion<0>, DeleteDuringConversion<1>, DeleteDuringConversion<2>,
    DeleteDuringConversion<3>};

/*! \brief The slot holding `deleter` (non-null), taking a free one; -1 when all hold others. */
int SlotOf(ManagedDeleter deleter) {
  for (int i = 0; i < kDeleterSlots; ++i) {
    // Learned once; afterwards a plain load (no read-modify-write on every result).
    ManagedDeleter known = known_deleters[i].load(std::memory_order_relaxed);
    if (known == nullptr && known_deleters[i].compare_exchange_strong(known, deleter)) return i;
    if (known == deleter) return i;
  }
  return -1;
}

/*!
 * \brief Hands `m` to the framework (its managed_tensor_to_py_object_no_sync): the new object, or
 * NULL with no Python error set when the framework refused it, `*released` telling whether it
 * freed `m` in doing so. The deleter runs exactly once whatever the framework does (`slot` holds
 * it; -1 for a tensor without one).
 */
PyObject* ConvertGuarded(DLManagedTensorVersioned* m, int slot, const DLPackExchangeAPI* api,
                         bool* released) {
  ManagedDeleter deleter = m->deleter;
  Conversion c{m, false};
  Conversion* outer = conversion;
  conversion = &c;
  if (slot >= 0) m->deleter = kDuringConversion[slot];
  void* out = nullptr;
  int rc = api->managed_tensor_to_py_object_no_sync(m, &out);
  conversion = outer;
  // Back in place before anyone else sees the tensor.
  if (!c.released) m->deleter = deleter;
  *released = c.released;
  if (rc == 0 && out != nullptr) return static_cast<PyObject*>(out);
  // The framework refused (a dtype it lacks, ...).
  Py_XDECREF(static_cast<PyObject*>(out));
  PyErr_Clear();
  return nullptr;
}

/*!
 * \brief The serving runtime's FFIRuntimeTensorDetachDLPackVersioned (looked up once), NULL where
 * it lacks it: the reference's runtime, or a platform without the lookup. The symbol must lie in
 * the library whose TVMFFIGetVersion this extension calls.
 */
FFIRuntimeTensorDetachDLPackVersionedType DetachFunction() {
  static const FFIRuntimeTensorDetachDLPackVersionedType fn = [] {
    FFIRuntimeTensorDetachDLPackVersionedType found = nullptr;
#if defined(__unix__) || defined(__APPLE__)
    Dl_info serving{}, entry{};
    void* symbol = dlsym(RTLD_DEFAULT, FFI_RUNTIME_TENSOR_DETACH_DLPACK_VERSIONED);
    if (symbol != nullptr && dladdr(reinterpret_cast<void*>(&TVMFFIGetVersion), &serving) != 0 &&
        dladdr(symbol, &entry) != 0 && entry.dli_fbase == serving.dli_fbase) {
      found = reinterpret_cast<FFIRuntimeTensorDetachDLPackVersionedType>(symbol);
    }
#endif
    return found;
  }();
  return fn;
}

/*!
 * \brief The producer's tensor `handle` was imported from, when `handle` is its only reference and
 * the runtime can hand it back (`handle` is then consumed); else NULL, nothing changed.
 */
DLManagedTensorVersioned* DetachSoleImport(TVMFFIObject* handle) {
  FFIRuntimeTensorDetachDLPackVersionedType detach = DetachFunction();
  if (detach == nullptr) return nullptr;
  DLManagedTensorVersioned* own = nullptr;
  if (detach(handle, &own) != 0) {
    ClearRaisedFFIError();
    return nullptr;
  }
  return own;  // when set, `handle` is gone
}

PyObject* SetTensorResults(PyObject*, PyObject* mode) {
  PyObject* previous = PyUnicode_FromString(
      framework_tensor_results.load(std::memory_order_relaxed) ? "framework" : "ffi");
  if (previous == nullptr) return nullptr;
  if (PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "framework") == 0) {
    framework_tensor_results.store(true, std::memory_order_relaxed);
  } else if (PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "ffi") == 0) {
    framework_tensor_results.store(false, std::memory_order_relaxed);
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
  // A result nobody else holds, imported from a producer (a kernel's output from the framework's
  // allocator): the producer's own tensor goes to the framework, no export around it.
  if (DLManagedTensorVersioned* own = DetachSoleImport(handle)) {
    int slot = own->deleter != nullptr ? SlotOf(own->deleter) : -1;
    bool guarded = own->deleter == nullptr || slot >= 0;
    bool read_only = (own->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    if (guarded) {
      bool released = false;
      if (PyObject* out = ConvertGuarded(own, slot, api, &released)) return out;
      if (released) {
        return PyErr_Format(PyExc_RuntimeError,
                            "the framework refused a tensor result and released it");
      }
    }
    // Refused (the caller gets an ffi.Tensor), or a producer's deleter past the known ones
    // (exported as any result): imported again.
    TVMFFIObjectHandle again = nullptr;
    if (TVMFFITensorFromDLPackVersioned(own, 0, 0, &again) != 0) {
      if (own->deleter != nullptr) own->deleter(own);
      return RaiseFromFFI(-1), nullptr;
    }
    handle = static_cast<TVMFFIObject*>(again);
    if (guarded) return WrapTensor(handle, read_only);
  }
  DLManagedTensorVersioned* inner = nullptr;
  if (TVMFFITensorToDLPackVersioned(handle, &inner) != 0) {
    ClearRaisedFFIError();
    return WrapTensor(handle, false);
  }
  int slot = SlotOf(inner->deleter);
  if (slot < 0) {
    inner->deleter(inner);  // not expected: one runtime, one export deleter
    return WrapTensor(handle, false);
  }
  bool released = false;
  if (PyObject* out = ConvertGuarded(inner, slot, api, &released)) {
    TVMFFIObjectDecRef(handle);
    return out;
  }
  // The framework refused (a dtype it lacks, ...): the caller gets an ffi.Tensor instead.
  if (!released) inner->deleter(inner);
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

void BindDLPackExportFunctions(nb::module_& m) {
  m.def(
      "_tensor_as",
      [](nb::handle tensor, nb::handle cls) {
        if (!PyType_Check(cls.ptr())) throw nb::type_error("tensor_cls must be a class");
        const DLPackExchangeAPI* api = ExchangeAPIOf(reinterpret_cast<PyTypeObject*>(cls.ptr()));
        if (api == nullptr) {
          throw nb::type_error("tensor_cls must expose __dlpack_c_exchange_api__ (a PyCapsule)");
        }
        if (!PyObject_TypeCheck(tensor.ptr(), TensorType)) {
          throw nb::type_error("expected an ffi.Tensor");
        }
        TVMFFIAny owned;
        if (!ToOwnedAny(tensor.ptr(), &owned)) throw nb::python_error();
        return Check(TensorToFramework(static_cast<TVMFFIObject*>(owned.v_obj), api));
      },
      "The ffi.Tensor `tensor` as a tensor of class `cls` (through its DLPack exchange API), "
      "zero-copy.");
}

}  // namespace tvm::ffi::python
