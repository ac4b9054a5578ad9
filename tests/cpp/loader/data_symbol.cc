// A library exporting variables under function names: the loader must refuse to call them.
#include <ffi/ffi.h>

extern "C" {
// `__tvm_ffi_x` looks like an exported function but is an int; calling it would jump into data.
TVM_FFI_DLL_EXPORT int __tvm_ffi_x = 3;
// A thread-local variable under a function name.
TVM_FFI_DLL_EXPORT thread_local int __tvm_ffi_tls = 4;
}
// The module context slot is a variable the loader writes; a function of that name is code the
// loader must not write into.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__library_ctx(void*, const TVMFFIAny*, int32_t,
                                                         TVMFFIAny*) {
  return 0;
}

namespace {
int64_t Ok(int64_t x) { return x + __tvm_ffi_x; }
}  // namespace

// The one real function: the library still works.
FFI_DLL_EXPORT_TYPED_FUNC(ok, Ok);
