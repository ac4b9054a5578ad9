// Stream ordering for `__dlpack__(stream=...)`: a consumer on another stream must not read before
// the producer's work is done. The CUDA driver is loaded on first need (dlopen), so the extension
// has no link-time CUDA dependency and CPU-only machines never touch it. Also env_set_stream and
// env_get_stream, the thread's current stream per device.
#include "stream_sync.h"

#include <dlfcn.h>
#include <nanobind/nanobind.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "arguments.h"
#include "errors.h"
#include "nb_check.h"

namespace nb = nanobind;

namespace tvm::ffi::python {
namespace {

// The few driver API declarations used here (cuda.h is not needed to build the extension).
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
constexpr unsigned kEventDisableTiming = 0x2;                  // CU_EVENT_DISABLE_TIMING
const CUstream kLegacyStream = reinterpret_cast<CUstream>(1);  // CU_STREAM_LEGACY

/*! \brief The driver entry points, resolved once; `error` says why when they are not. */
struct CudaDriver {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_ctx_release)(CUdevice) = nullptr;
  CUresult (*ctx_push)(CUcontext) = nullptr;
  CUresult (*ctx_pop)(CUcontext*) = nullptr;
  CUresult (*event_create)(CUevent*, unsigned) = nullptr;
  CUresult (*event_record)(CUevent, CUstream) = nullptr;
  CUresult (*stream_wait_event)(CUstream, CUevent, unsigned) = nullptr;
  CUresult (*event_destroy)(CUevent) = nullptr;
  CUresult (*error_name)(CUresult, const char**) = nullptr;
  std::string error;

  template <typename F>
  bool Bind(void* lib, const char* name, F* fn) {
    *fn = reinterpret_cast<F>(dlsym(lib, name));
    if (*fn == nullptr && error.empty()) error = std::string("libcuda.so.1 has no `") + name + "`";
    return *fn != nullptr;
  }

  CudaDriver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      error = std::string("cannot load the CUDA driver (libcuda.so.1): ") + (why ? why : "");
      return;
    }
    // The _v2 names are the current ABI of these entry points.
    bool ok =
        Bind(lib, "cuInit", &init) && Bind(lib, "cuDeviceGet", &device_get) &&
        Bind(lib, "cuDevicePrimaryCtxRetain", &primary_ctx_retain) &&
        Bind(lib, "cuDevicePrimaryCtxRelease_v2", &primary_ctx_release) &&
        Bind(lib, "cuCtxPushCurrent_v2", &ctx_push) && Bind(lib, "cuCtxPopCurrent_v2", &ctx_pop) &&
        Bind(lib, "cuEventCreate", &event_create) && Bind(lib, "cuEventRecord", &event_record) &&
        Bind(lib, "cuStreamWaitEvent", &stream_wait_event) &&
        Bind(lib, "cuEventDestroy_v2", &event_destroy);
    error_name = reinterpret_cast<decltype(error_name)>(dlsym(lib, "cuGetErrorName"));
    if (ok && init(0) != 0) error = "cuInit failed: no usable CUDA device or driver";
    if (!ok) init = nullptr;
  }
  bool usable() const { return error.empty(); }

  /*! \brief Sets a BufferError for a failed driver call; returns false. */
  bool Fail(const char* call, CUresult rc) const {
    const char* name = nullptr;
    if (error_name == nullptr || error_name(rc, &name) != 0 || name == nullptr) name = "unknown";
    PyErr_Format(PyExc_BufferError,
                 "__dlpack__: synchronizing the consumer's stream failed: %s returned %d (%s)",
                 call, rc, name);
    return false;
  }
};

CudaDriver& Driver() {
  static auto* driver = new CudaDriver();  // leaked: usable until the last export at exit
  return *driver;
}

/*!
 * \brief Primary contexts retained once per device. Atomic: exports on other threads retain at
 * once without the GIL; one context is published per device, a second retain is released.
 */
constexpr int kMaxDevices = 64;
std::atomic<CUcontext> contexts[kMaxDevices] = {};

/*! \brief Makes `consumer` wait for the work enqueued so far on `producer` (device `id`). */
bool WaitOnStream(int id, CUstream producer, CUstream consumer) {
  CudaDriver& d = Driver();
  if (!d.usable()) {
    PyErr_Format(PyExc_BufferError,
                 "__dlpack__: cannot order the consumer's stream after the "
                 "producer's: %s",
                 d.error.c_str());
    return false;
  }
  if (id < 0 || id >= kMaxDevices) {
    PyErr_Format(PyExc_BufferError, "__dlpack__: CUDA device id %d is out of range", id);
    return false;
  }
  CUresult rc = 0;
  CUcontext context = contexts[id].load(std::memory_order_acquire);
  if (context == nullptr) {
    CUdevice dev = 0;
    if ((rc = d.device_get(&dev, id)) != 0) return d.Fail("cuDeviceGet", rc);
    CUcontext retained = nullptr;
    if ((rc = d.primary_ctx_retain(&retained, dev)) != 0) {
      return d.Fail("cuDevicePrimaryCtxRetain", rc);
    }
    if (contexts[id].compare_exchange_strong(context, retained, std::memory_order_acq_rel)) {
      context = retained;
    } else {
      d.primary_ctx_release(dev);  // another thread's retain is kept
    }
  }
  if ((rc = d.ctx_push(context)) != 0) return d.Fail("cuCtxPushCurrent", rc);
  CUevent event = nullptr;
  const char* failed = nullptr;
  if ((rc = d.event_create(&event, kEventDisableTiming)) != 0) {
    failed = "cuEventCreate";
  } else if ((rc = d.event_record(event, producer)) != 0) {
    failed = "cuEventRecord";
  } else if ((rc = d.stream_wait_event(consumer, event, 0)) != 0) {
    failed = "cuStreamWaitEvent";
  }
  // Destroying an event another stream waits on is allowed: the wait keeps what it needs.
  if (event != nullptr) d.event_destroy(event);
  CUcontext popped = nullptr;
  d.ctx_pop(&popped);
  return failed == nullptr || d.Fail(failed, rc);
}

}  // namespace

bool SyncForConsumer(DLDevice device, PyObject* stream) {
  // Managed memory is read and written by kernels on CUDA streams too.
  bool cuda = device.device_type == kDLCUDA || device.device_type == kDLCUDAManaged;
  bool has_streams = cuda || device.device_type == kDLROCM;
  long long value = 0;
  if (stream != Py_None) {
    if (!IntInRange(stream, -1, INT64_MAX, "__dlpack__(): stream", &value)) return false;
    if (value == -1) return true;  // the consumer asked for no synchronization
    if (!has_streams) {
      PyErr_Format(PyExc_BufferError,
                   "__dlpack__(): a tensor on %s has no stream; pass stream=None (got %lld)",
                   DLDeviceToString(device).c_str(), value);
      return false;
    }
  }
  if (!has_streams) return true;
  void* producer = TVMFFIEnvGetStream(cuda ? kDLCUDA : kDLROCM, device.device_id);
  if (device.device_type == kDLROCM) {
    if (value == 1 || value == 2) {
      PyErr_Format(PyExc_ValueError, "__dlpack__(): stream=%lld is not a ROCm stream", value);
      return false;
    }
    if (reinterpret_cast<void*>(value) == producer) return true;
    PyErr_SetString(PyExc_BufferError,
                    "__dlpack__(): ordering ROCm streams is not supported; pass stream=-1 and "
                    "synchronize the producer's stream yourself");
    return false;
  }
  if (stream != Py_None && value == 0) {
    PyErr_SetString(PyExc_ValueError,
                    "__dlpack__(): stream=0 is ambiguous for CUDA and the DLPack protocol "
                    "forbids it; pass 1 for the legacy default stream, 2 for the per-thread one");
    return false;
  }
  // None means the legacy default stream, which is also what an unset FFI stream means.
  auto consumer = stream == Py_None ? kLegacyStream : reinterpret_cast<CUstream>(value);
  auto produced_on = producer == nullptr ? kLegacyStream : static_cast<CUstream>(producer);
  if (consumer == produced_on) return true;
  return WaitOnStream(device.device_id, produced_on, consumer);
}

namespace {

/*!
 * \brief A stream handle given as an int (or anything with __index__) in [0, 2**64): TypeError or
 * ValueError naming the argument otherwise (nanobind's own refusal would list the overloads).
 */
uintptr_t StreamHandle(nb::handle stream) {
  if (!PyIndex_Check(stream.ptr())) {
    PyErr_Format(PyExc_TypeError, "stream must be an int handle, not `%s`",
                 Py_TYPE(stream.ptr())->tp_name);
    throw nb::python_error();
  }
  nb::object index = Check(PyNumber_Index(stream.ptr()));
  unsigned long long value = PyLong_AsUnsignedLongLong(index.ptr());
  if ((value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) || value > UINTPTR_MAX) {
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError)) throw nb::python_error();
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError,
                 "stream must be a handle in [0, 2**%d) (an address, 0 for the default stream), "
                 "not %R",
                 static_cast<int>(8 * sizeof(uintptr_t)), index.ptr());
    throw nb::python_error();
  }
  return static_cast<uintptr_t>(value);
}

}  // namespace

void BindStreamFunctions(nb::module_& m) {
  m.def(
      "env_set_stream",
      [](int32_t device_type, int32_t device_id, nb::handle stream) {
        TVMFFIStreamHandle previous = nullptr;
        void* handle = reinterpret_cast<void*>(StreamHandle(stream));
        if (TVMFFIEnvSetStream(device_type, device_id, handle, &previous) != 0) {
          Check(RaiseFromFFI(-1));
        }
        return reinterpret_cast<uintptr_t>(previous);
      },
      "Sets this thread's current stream for a device; returns the previous one.");

  m.def(
      "env_get_stream",
      [](int32_t device_type, int32_t device_id) {
        return reinterpret_cast<uintptr_t>(TVMFFIEnvGetStream(device_type, device_id));
      },
      "This thread's current stream for a device (0: the default stream).");
}

}  // namespace tvm::ffi::python
