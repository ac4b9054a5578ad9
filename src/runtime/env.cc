// The environment a host provides to kernels: current streams, the tensor allocator, signals.
#include <ffi/function.h>
#include <ffi/optional.h>
#include <ffi/tensor.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "loading.h"
#include "platform/platform.h"
#include "tensor_import.h"

namespace tvm {
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
    // aligned_alloc wants a multiple of the alignment; rounding up must not wrap to a tiny size.
    if (bytes > SIZE_MAX - kCPUAlignment) {
      FFI_THROW(MemoryError) << "cannot allocate a tensor of " << bytes << " bytes";
    }
    size_t rounded = (bytes + kCPUAlignment - 1) / kCPUAlignment * kCPUAlignment;
    t->data = platform::AlignedAlloc(kCPUAlignment, rounded == 0 ? kCPUAlignment : rounded);
    if (t->data == nullptr) FFI_THROW(MemoryError) << "out of memory allocating a tensor";
  }
  void FreeData(DLTensor* t) { platform::AlignedFree(t->data); }
};

/*!
 * \brief The host's signal check (TVMFFIEnvRegisterCAPI "TVMFFIPyErrCheckSignals"), the one host
 * function the runtime calls. Kernels poll it in long loops, so reading it is a single load.
 */
std::atomic<int (*)()> signal_check{nullptr};

/*! \brief The allocator's error callback; `ctx` is a bool set once an error was raised. */
void SetErrorFromAllocator(void* ctx, const char* kind, const char* message) {
  TVMFFIErrorSetRaisedFromCStr(kind != nullptr ? kind : "RuntimeError",
                               message != nullptr ? message : "tensor allocation failed");
  *static_cast<bool*>(ctx) = true;
}

/*!
 * \brief Refuses a prototype TVMFFIEnvTensorAlloc cannot allocate: ValueError when malformed
 * (see GetDataSize), OverflowError when its byte size does not fit in 64 bits.
 */
void CheckPrototype(const DLTensor& t) {
  if (t.ndim < 0 || t.ndim > ffi::kMaxTensorNDim) {
    FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: ndim " << t.ndim << " is outside [0, "
                          << ffi::kMaxTensorNDim << "]";
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: shape is NULL with ndim " << t.ndim;
  }
  bool is_void = t.dtype.code == kDLOpaqueHandle && t.dtype.bits == 0 && t.dtype.lanes == 0;
  if (t.dtype.lanes == 0 && !is_void) {
    FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: dtype has zero lanes";
  }
  ffi::detail::CheckNewTensorShape(ffi::ShapeView(t.shape, static_cast<size_t>(t.ndim)), t.dtype,
                                   "TVMFFIEnvTensorAlloc");
}

/*!
 * \brief Refuses a tensor a host allocator returned that differs from the prototype: a kernel
 * would write past a smaller one.
 */
void CheckAllocated(const DLTensor& want, const DLTensor& got) {
  if (got.ndim < 0 || got.ndim > ffi::kMaxTensorNDim || (got.ndim > 0 && got.shape == nullptr)) {
    FFI_THROW(RuntimeError) << "The tensor allocator returned a malformed tensor (ndim " << got.ndim
                            << (got.shape == nullptr ? ", no shape)" : ")");
  }
  bool same = got.ndim == want.ndim && got.dtype == want.dtype &&
              got.device.device_type == want.device.device_type &&
              got.device.device_id == want.device.device_id;
  for (int32_t i = 0; same && i < want.ndim; ++i) same = got.shape[i] == want.shape[i];
  if (!same) {
    FFI_THROW(RuntimeError) << "The tensor allocator returned a tensor of shape "
                            << ffi::ShapeView(got.shape, static_cast<size_t>(got.ndim)) << ", "
                            << got.dtype << " on " << got.device << "; asked for "
                            << ffi::ShapeView(want.shape, static_cast<size_t>(want.ndim)) << ", "
                            << want.dtype << " on " << want.device;
  }
}

/*!
 * \brief The built-in object allocator's layout: [padding | base pointer | alloc header | body].
 * delete_space gets only the body, so the allocation's start is stored just before the header.
 */
constexpr size_t kPrefixWords = 2;

void BuiltinDeleteSpace(void* body) {
  platform::AlignedFree(static_cast<void**>(body)[-static_cast<std::ptrdiff_t>(kPrefixWords)]);
}

void* BuiltinAllocate(size_t size, size_t alignment, int32_t /*type_index*/, void* /*context*/) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "object alignment must be a power of two");
    return nullptr;
  }
  if (alignment < alignof(std::max_align_t)) alignment = alignof(std::max_align_t);
  // The prefix is rounded up to the alignment so the body that follows it stays aligned.
  size_t prefix = (kPrefixWords * sizeof(void*) + alignment - 1) / alignment * alignment;
  size_t total = 0;
  if (__builtin_add_overflow(prefix, size, &total) ||
      __builtin_add_overflow(total, alignment - 1, &total)) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "object size overflows");
    return nullptr;
  }
  void* base = platform::AlignedAlloc(alignment, total / alignment * alignment);
  if (base == nullptr) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "out of memory allocating an object");
    return nullptr;
  }
  char* body = static_cast<char*>(base) + prefix;
  reinterpret_cast<void**>(body)[-static_cast<std::ptrdiff_t>(kPrefixWords)] = base;
  reinterpret_cast<TVMFFIObjectAllocHeader*>(body)[-1].delete_space = BuiltinDeleteSpace;
  return body;
}
static_assert(sizeof(TVMFFIObjectAllocHeader) == sizeof(void*), "the header is one pointer");

TVMFFICustomAllocator builtin_allocator{BuiltinAllocate, nullptr};
/*! \brief The installed object allocator; atomic so a late install is at least not a data race. */
std::atomic<TVMFFICustomAllocator*> custom_allocator{&builtin_allocator};

/*!
 * \brief Symbols of statically linked libraries (TVMFFIEnvModRegisterSystemLibSymbol), by name.
 * Leaked on purpose: static initializers of other libraries may register before ours runs and
 * lookups may happen during exit.
 */
struct SystemLibSymbols {
  std::mutex mutex;
  std::unordered_map<std::string, void*> table;
  static SystemLibSymbols* Get() {
    static SystemLibSymbols* symbols = new SystemLibSymbols();
    return symbols;
  }
};

}  // namespace

void* SystemLibGetSymbol(const std::string& name) {
  SystemLibSymbols* symbols = SystemLibSymbols::Get();
  std::lock_guard<std::mutex> lock(symbols->mutex);
  auto it = symbols->table.find(name);
  return it == symbols->table.end() ? nullptr : it->second;
}

std::vector<std::string> SystemLibSymbolNames() {
  SystemLibSymbols* symbols = SystemLibSymbols::Get();
  std::lock_guard<std::mutex> lock(symbols->mutex);
  std::vector<std::string> names;
  names.reserve(symbols->table.size());
  for (const auto& kv : symbols->table) names.push_back(kv.first);
  return names;
}
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using namespace ffi::runtime;

extern "C" {

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  FFI_SAFE_CALL_BEGIN();
  if (device_type < 0 || device_id < 0) {
    FFI_THROW(ValueError) << "TVMFFIEnvSetStream: negative device (" << device_type << ", "
                          << device_id << ")";
  }
  for (size_t i = 0; i < current_streams.size(); ++i) {
    StreamEntry& e = current_streams[i];
    if (e.device_type == device_type && e.device_id == device_id) {
      if (opt_out_original_stream != nullptr) *opt_out_original_stream = e.stream;
      // Setting null restores the default; the entry goes, so the list only holds live streams.
      if (stream == nullptr) {
        current_streams[i] = current_streams.back();
        current_streams.pop_back();
      } else {
        e.stream = stream;
      }
      return 0;
    }
  }
  if (opt_out_original_stream != nullptr) *opt_out_original_stream = nullptr;
  if (stream != nullptr) current_streams.push_back({device_type, device_id, stream});
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
  // Nothing here can fail: the slots are plain pointers and the out pointer is optional.
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
  if (prototype == nullptr || out == nullptr) {
    FFI_THROW(ValueError) << "TVMFFIEnvTensorAlloc: " << (prototype ? "out" : "prototype")
                          << " is NULL";
  }
  CheckPrototype(*prototype);
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
  bool raised = false;
  if (alloc(prototype, &managed, &raised, SetErrorFromAllocator) != 0) {
    if (!raised) FFI_THROW(RuntimeError) << "The tensor allocator failed without an error";
    return -1;
  }
  if (managed == nullptr) FFI_THROW(RuntimeError) << "The tensor allocator returned no tensor";
  try {
    CheckAllocated(*prototype, managed->dl_tensor);
    *out = ffi::runtime::ImportAllocatedTensor(managed);
  } catch (...) {
    if (managed->deleter != nullptr) managed->deleter(managed);  // refused: still ours
    throw;
  }
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

TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void) {
  return custom_allocator.load(std::memory_order_acquire);
}

int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator) {
  custom_allocator.store(allocator != nullptr ? allocator : &builtin_allocator,
                         std::memory_order_release);
  return 0;
}

int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol) {
  FFI_SAFE_CALL_BEGIN();
  if (name == nullptr) FFI_THROW(ValueError) << "TVMFFIEnvModRegisterSystemLibSymbol: name is NULL";
  if (symbol == nullptr) {
    FFI_THROW(ValueError) << "TVMFFIEnvModRegisterSystemLibSymbol: symbol `" << name << "` is NULL";
  }
  SystemLibSymbols* symbols = SystemLibSymbols::Get();
  std::lock_guard<std::mutex> lock(symbols->mutex);
  symbols->table[name] = symbol;
  FFI_SAFE_CALL_END();
}

}  // extern "C"
