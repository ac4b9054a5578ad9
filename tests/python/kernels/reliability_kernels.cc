// Kernels for the reliability tests: long calls, worker threads calling back into Python, signal
// polling, and kernels that keep the tensors they are given.
#include <ffi/ffi.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

namespace {

std::atomic<bool> flag{false};

// Sets the flag wait_for_flag waits on.
void SetFlag() { flag.store(true); }

// Waits up to `timeout_ms` for another thread to call set_flag: returns whether it did. A Python
// thread can call set_flag only if the caller released the GIL.
bool WaitForFlag(int64_t timeout_ms) {
  flag.store(false);
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Calls f(i) for i in [0, n) from a worker thread and returns the sum of the results; an error
// raised by f is rethrown on the calling thread.
int64_t CallbackFromWorker(ffi::Function f, int64_t n) {
  int64_t sum = 0;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      for (int64_t i = 0; i < n; ++i) sum += f(i).cast<int64_t>();
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
  return sum;
}

// Polls the host's signal check from a worker thread; returns what it answered.
int64_t CheckSignalsFromWorker() {
  int rc = -1;
  std::thread worker([&] { rc = TVMFFIEnvCheckSignals(); });
  worker.join();
  return rc;
}

// Loops for up to `max_ms`, polling for signals every millisecond; returns the iterations done.
int64_t PollSignals(int64_t max_ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_ms);
  int64_t n = 0;
  while (std::chrono::steady_clock::now() < end) {
    ffi::EnvCheckSignals();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++n;
  }
  return n;
}

ffi::Optional<ffi::Tensor> kept;

// Keeps `t` beyond the call.
void Keep(ffi::Tensor t) { kept = t; }
// The kept tensor's shape.
ffi::Shape KeptShape() { return ffi::Shape(kept.value().shape()); }
// The sum of the kept float32 tensor's elements.
double KeptSum() {
  ffi::Tensor t = kept.value();
  double s = 0;
  const float* p = static_cast<const float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) s += p[i * (t.ndim() ? t.stride(-1) : 1)];
  return s;
}
void DropKept() { kept = ffi::Optional<ffi::Tensor>(); }
// Returns its argument: a kernel handing the caller's tensor back.
ffi::Tensor Identity(ffi::Tensor t) { return t; }

// Passes a DLTensor* describing a local buffer to `f`; the buffer is gone when this returns.
ffi::Any CallWithView(ffi::Function f) {
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  DLTensor t{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  return f(&t);
}

// Whether a callback kept the view it was given (the kept tensor is empty, with no data).
ffi::String DescribeTensor(ffi::TensorView t) {
  return std::string("ndim=") + std::to_string(t.ndim()) + " numel=" + std::to_string(t.numel()) +
         " data=" + (t.data_ptr() == nullptr ? "null" : "set");
}

// Statics that outlive the interpreter: an error carrying a Python exception, and a callback.
ffi::Optional<ffi::Error> stashed_error;
ffi::Optional<ffi::Function> stashed_function;

// Calls f, keeps the error it raises (if any) in a static; returns whether it raised.
bool StashError(ffi::Function f) {
  try {
    f();
  } catch (const ffi::Error& e) {
    stashed_error = e;
    return true;
  }
  return false;
}

// Keeps f in a static.
void StashFunction(ffi::Function f) { stashed_function = f; }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(stash_error, StashError);
FFI_DLL_EXPORT_TYPED_FUNC(stash_function, StashFunction);
FFI_DLL_EXPORT_TYPED_FUNC(set_flag, SetFlag);
FFI_DLL_EXPORT_TYPED_FUNC(wait_for_flag, WaitForFlag);
FFI_DLL_EXPORT_TYPED_FUNC(callback_from_worker, CallbackFromWorker);
FFI_DLL_EXPORT_TYPED_FUNC(check_signals_from_worker, CheckSignalsFromWorker);
FFI_DLL_EXPORT_TYPED_FUNC(poll_signals, PollSignals);
FFI_DLL_EXPORT_TYPED_FUNC(keep, Keep);
FFI_DLL_EXPORT_TYPED_FUNC(kept_shape, KeptShape);
FFI_DLL_EXPORT_TYPED_FUNC(kept_sum, KeptSum);
FFI_DLL_EXPORT_TYPED_FUNC(drop_kept, DropKept);
FFI_DLL_EXPORT_TYPED_FUNC(identity, Identity);
FFI_DLL_EXPORT_TYPED_FUNC(call_with_view, CallWithView);
FFI_DLL_EXPORT_TYPED_FUNC(describe_tensor, DescribeTensor);

// ---- malformed DLPack producers (called through ctypes): every tensor counts its deleter runs --
namespace {
std::atomic<int> deleter_runs{0};
struct Malformed {
  DLManagedTensorVersioned managed;
  int64_t shape[2];
  float data[4];
};
void DeleteMalformed(DLManagedTensorVersioned* self) {
  deleter_runs.fetch_add(1);
  delete static_cast<Malformed*>(self->manager_ctx);
}
}  // namespace

// A new versioned managed tensor, well formed for kind 0, broken in one way for the others.
extern "C" __attribute__((visibility("default"))) void* make_managed_tensor(int kind) {
  auto* m = new Malformed();
  m->shape[0] = 2;
  m->shape[1] = 2;
  DLTensor& t = m->managed.dl_tensor;
  t = DLTensor{m->data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, m->shape, nullptr, 0};
  m->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m->managed.manager_ctx = m;
  m->managed.deleter = DeleteMalformed;
  m->managed.flags = 0;
  switch (kind) {
    case 1:  // negative ndim
      t.ndim = -1;
      break;
    case 2:  // no shape
      t.shape = nullptr;
      break;
    case 3:  // a negative extent
      m->shape[1] = -5;
      break;
    case 4:  // an unknown major version
      m->managed.version.major = DLPACK_MAJOR_VERSION + 1;
      break;
    case 5:  // a shape whose byte size overflows
      m->shape[0] = int64_t{1} << 62;
      m->shape[1] = 16;
      break;
    default:
      break;
  }
  return &m->managed;
}

// Runs a managed tensor's deleter, as the destructor of a capsule nobody consumed does.
extern "C" __attribute__((visibility("default"))) void delete_managed_tensor(void* m) {
  auto* managed = static_cast<DLManagedTensorVersioned*>(m);
  managed->deleter(managed);
}

// How many managed tensors' deleters have run.
extern "C" __attribute__((visibility("default"))) int managed_deleter_runs() {
  return deleter_runs.load();
}
