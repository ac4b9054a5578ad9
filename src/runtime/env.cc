// The environment a host provides to kernels: current streams, the tensor allocator, signals.
#include <ffi/tensor.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
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

/*! \brief The built-in allocator: aligned host memory, CPU only. */
int CPUAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                 void (*set_error)(void*, const char*, const char*)) {
  if (prototype->device.device_type != kDLCPU) {
    std::string msg = "No tensor allocator is installed for device " +
                      DLDeviceToString(prototype->device) +
                      "; the built-in one allocates CPU memory only";
    set_error(error_ctx, "RuntimeError", msg.c_str());
    return -1;
  }
  struct Holder {
    DLManagedTensorVersioned managed;
    std::vector<int64_t> dims;
  };
  auto* h = new (std::nothrow) Holder();
  if (h == nullptr) {
    set_error(error_ctx, "MemoryError", "out of memory allocating a tensor");
    return -1;
  }
  int32_t nd = prototype->ndim;
  h->dims.assign(prototype->shape, prototype->shape + nd);
  size_t bytes = GetDataSize(*prototype);
  size_t rounded = (bytes + kCPUAlignment - 1) / kCPUAlignment * kCPUAlignment;
  void* data = std::aligned_alloc(kCPUAlignment, rounded == 0 ? kCPUAlignment : rounded);
  if (data == nullptr) {
    delete h;
    set_error(error_ctx, "MemoryError", "out of memory allocating a tensor");
    return -1;
  }
  DLManagedTensorVersioned& m = h->managed;
  m.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m.manager_ctx = h;
  m.flags = 0;
  m.deleter = [](DLManagedTensorVersioned* self) {
    auto* holder = static_cast<Holder*>(self->manager_ctx);
    std::free(holder->managed.dl_tensor.data);
    delete holder;
  };
  m.dl_tensor = *prototype;
  m.dl_tensor.data = data;
  m.dl_tensor.shape = h->dims.data();
  m.dl_tensor.strides = nullptr;
  m.dl_tensor.byte_offset = 0;
  *out = &m;
  return 0;
}

/*! \brief Host C functions registered by name (TVMFFIEnvRegisterCAPI). */
struct CAPITable {
  std::mutex mutex;
  std::unordered_map<std::string, void*> table;
  static CAPITable* Get() {
    static CAPITable* t = new CAPITable();
    return t;
  }
  void* Find(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = table.find(name);
    return it == table.end() ? nullptr : it->second;
  }
};

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
  if (alloc == nullptr) alloc = CPUAllocator;
  DLManagedTensorVersioned* managed = nullptr;
  if (alloc(prototype, &managed, nullptr, SetErrorFromAllocator) != 0) return -1;
  if (managed == nullptr) FFI_THROW(RuntimeError) << "The tensor allocator returned no tensor";
  if (TVMFFITensorFromDLPackVersioned(managed, 0, 0, out) != 0) return -1;
  FFI_SAFE_CALL_END();
}

int TVMFFIEnvCheckSignals(void) {
  // A host (Python) registers its signal check; without one there is nothing to check.
  auto check = reinterpret_cast<int (*)()>(CAPITable::Get()->Find("TVMFFIPyErrCheckSignals"));
  return check != nullptr ? check() : 0;
}

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  FFI_SAFE_CALL_BEGIN();
  if (name == nullptr) FFI_THROW(ValueError) << "TVMFFIEnvRegisterCAPI: name is NULL";
  CAPITable* t = CAPITable::Get();
  std::lock_guard<std::mutex> lock(t->mutex);
  t->table[name] = symbol;
  FFI_SAFE_CALL_END();
}

}  // extern "C"
