// A kernel library that keeps an error and a host callback in its own statics until the process
// exits: their destructors run during the exit, after the host's thread-locals are gone.
#include <ffi/ffi.h>

namespace {

/*! \brief Keeps `error` and `callback` for the life of the process. */
void Keep(ffi::Error error, ffi::Function callback) {
  static ffi::Error kept_error = error;
  static ffi::Function kept_callback = callback;
  (void)kept_error;
  (void)kept_callback;
}

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(keep, Keep);
