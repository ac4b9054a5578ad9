// The environment a host provides to kernels: current streams, the tensor allocator, signals.
#include <ffi/tensor.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ffi {
namespace runtime {
namespace {

/*! \brief This thread's current stream per device; a handful of devices, so a flat list. */
struct StreamEntry {
  int32_t device_type;
  int32_t device_id;
  TVMFFIStreamHandle stream;
};
thread_local std::vector<StreamEntry> current_streams;

/*! \brief Allocator overrides: per thread first, then process-wide, then the built-in one. */
thread_local DLPackManagedTensorAllocator thread_allocator = nullptr;
std::atomic<DLPackManagedTensorAllocator> global_allocator{nullptr};

/*! \brief Alignment of the built-in CPU allocator (enough for any SIMD width in use). */
constexpr size_t kCPUAlignment = 64;

/*! \brief The built-in allocator's memory (for Tensor::FromNDAlloc): aligned host memory. */
struct AlignedCPUAlloc {
  void AllocData(DLTensor* t) {
    size_t bytes = GetDataSize(*t);
    size_t rounded = (bytes + kCPUAlignment - 1) / kCPUAlignment * kCPUAlignment;
    t->data = std::aligned_alloc(kCPUAlignment, rounded == 0 ? kCPUAlignment : rounded);
    if (t->data == nullptr) FFI_THROW(MemoryError) << "out of memory allocating a tensor";
  }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

/*!
 * \brief The host's signal check (TVMFFIEnvRegisterCAPI "TVMFFIPyErrCheckSignals"), the one host
 * function the runtime calls. Kernels poll it in long loops, so reading it is a single load.
 */
std::atomic<int (*)()> signal_check{nullptr};

void SetErrorFromAllocator(void*, const char* kind, const char* message) {
  TVMFFIErrorSetRaisedFromCStr(kind, message);
}

}  // namespace
}  // namespace runtime
}  // namespace ffi

using namespace ffi::runtime;  // NOLINT(*)

extern "C" {

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  FFI_SAFE_CALL_BEGIN();
  for (StreamEntry& e : current_streams) {
    if (e.device_type == device_type && e.device_id == device_id) {
      if (opt_out_original_stream != nullptr) *opt_out_original_stream = e.stream;
      e.stream = stream;
      return 0;
    }
  }
  if (opt_out_original_stream != nullptr) *opt_out_original_stream = nullptr;
  current_streams.push_back({device_type, device_id, stream});
  FFI_SAFE_CALL_END();
}

TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  for (const StreamEntry& e : current_streams) {
    if (e.device_type == device_type && e.device_id == device_id) return e.stream;
  }
  return nullptr;
}

int TVMFFIEnvSetDLPackManagedTensorAllocator(DLPackManagedTensorAllocator allocator,
                                             int write_to_global_context,
                                             DLPackManagedTensorAllocator* opt_out_original) {
  if (write_to_global_context != 0) {
    DLPackManagedTensorAllocator old = global_allocator.exchange(allocator);
    if (opt_out_original != nullptr) *opt_out_original = old;
  } else {
    if (opt_out_original != nullptr) *opt_out_original = thread_allocator;
    thread_allocator = allocator;
  }
  return 0;
}

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) {
  return thread_allocator != nullptr ? thread_allocator : global_allocator.load();
}

int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (prototype == nullptr) FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: prototype is NULL";
  if (prototype->ndim < 0 || (prototype->ndim > 0 && prototype->shape == nullptr)) {
    FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: malformed prototype (ndim " << prototype->ndim
                          << ")";
  }
  for (int32_t i = 0; i < prototype->ndim; ++i) {
    if (prototype->shape[i] < 0) {
      FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: negative extent " << prototype->shape[i];
    }
  }
  DLPackManagedTensorAllocator alloc = TVMFFIEnvGetDLPackManagedTensorAllocator();
  if (alloc == nullptr) {
    if (prototype->device.device_type != kDLCPU) {
      FFI_THROW(RuntimeError) << "No tensor allocator is installed for device " << prototype->device
                              << "; the built-in one allocates CPU memory only";
    }
    ffi::Tensor t = ffi::Tensor::FromNDAlloc(
        ffi::runtime::AlignedCPUAlloc{},
        ffi::ShapeView(prototype->shape, static_cast<size_t>(prototype->ndim)), prototype->dtype,
        prototype->device);
    *out = ffi::detail::ObjectUnsafe::MoveToHeader(std::move(t));
    return 0;
  }
  DLManagedTensorVersioned* managed = nullptr;
  if (alloc(prototype, &managed, nullptr, SetErrorFromAllocator) != 0) return -1;
  if (managed == nullptr) FFI_THROW(RuntimeError) << "The tensor allocator returned no tensor";
  if (TVMFFITensorFromDLPackVersioned(managed, 0, 0, out) != 0) return -1;
  FFI_SAFE_CALL_END();
}

int TVMFFIEnvCheckSignals(void) {
  // A host (Python) registers its signal check; without one there is nothing to check.
  int (*check)() = signal_check.load(std::memory_order_acquire);
  return check != nullptr ? check() : 0;
}

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  FFI_SAFE_CALL_BEGIN();
  if (name == nullptr) FFI_THROW(ValueError) << "TVMFFIEnvRegisterCAPI: name is NULL";
  // Other names are accepted and unused: nothing in the runtime calls them.
  if (std::strcmp(name, "TVMFFIPyErrCheckSignals") == 0) {
    signal_check.store(reinterpret_cast<int (*)()>(symbol), std::memory_order_release);
  }
  FFI_SAFE_CALL_END();
}

}  // extern "C"
