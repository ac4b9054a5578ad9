/*
 * ffi/call_context.h - what the host environment provides during a call: the current stream per
 * device and the tensor allocator (declared in c_api.h), with C++ conveniences.
 */
#ifndef FFI_CALL_CONTEXT_H_
#define FFI_CALL_CONTEXT_H_

#include "error.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief Sets this thread's current stream for a device for the guard's lifetime, then restores
 * the previous one: `{ ffi::StreamGuard g(kDLCUDA, 0, stream); kernel(...); }`.
 */
class StreamGuard {
 public:
  StreamGuard(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream)
      : device_type_(device_type), device_id_(device_id) {
    FFI_CHECK_SAFE_CALL(TVMFFIEnvSetStream(device_type, device_id, stream, &previous_));
  }
  ~StreamGuard() { TVMFFIEnvSetStream(device_type_, device_id_, previous_, nullptr); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  int32_t device_type_;
  int32_t device_id_;
  TVMFFIStreamHandle previous_ = nullptr;
};

/*!
 * \brief Lets the host handle pending signals; when it asks the call to stop (Ctrl-C in Python),
 * throws EnvErrorAlreadySet so the host's own error reaches its caller. Call it in long loops.
 */
inline void EnvCheckSignals() {
  if (TVMFFIEnvCheckSignals() != 0) throw EnvErrorAlreadySet();
}

/*! \brief This thread's current stream for `device` (nullptr: the default stream). */
inline TVMFFIStreamHandle GetCurrentStream(DLDevice device) {
  return TVMFFIEnvGetStream(device.device_type, device.device_id);
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CALL_CONTEXT_H_
