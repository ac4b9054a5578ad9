// A library whose static initializer registers a global function the host already registered
// ("ffi_loader_test.dup"), between two fresh ones. Loaded by the loader, it must make loading fail
// with an error naming the function, and the process must live.
#include <ffi/ffi.h>
#include <ffi/reflection/registry.h>

FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef()
      .def("ffi_loader_test.before", []() { return 1; })
      .def("ffi_loader_test.dup", []() { return 2; })
      .def("ffi_loader_test.after", []() { return 3; });
}

namespace {
int64_t Unreachable() { return 0; }
}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(unreachable, Unreachable);
