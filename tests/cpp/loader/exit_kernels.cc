// A kernel library that keeps an error and a host callback in its own statics until the process
// exits: their destructors run during the exit, after the host's thread-locals are gone.
#include <ffi/ffi.h>

namespace {

/*! \brief Keeps an error and `callback` for the life of the process. */
void Keep(ffi::Function callback) {
  static ffi::Error kept_error("ValueError", "kept by a library");
  static ffi::Function kept_callback = callback;
  (void)kept_error;
  (void)kept_callback;
}

/*!
 * \brief Calls `callback`, which must fail, and keeps its error in a static and in this thread's
 * raised-error slot, both alive until the process exits (a host's error may hold host objects).
 */
void KeepCallbackError(ffi::Function callback) {
  try {
    callback();
  } catch (const ffi::Error& e) {
    static ffi::Error kept = e;
    TVMFFIErrorSetRaised(ffi::detail::ObjectUnsafe::Header(kept.get()));
    return;
  }
  FFI_THROW(ValueError) << "the callback was expected to fail";
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(keep, Keep);
FFI_DLL_EXPORT_TYPED_FUNC(keep_callback_error, KeepCallbackError);
