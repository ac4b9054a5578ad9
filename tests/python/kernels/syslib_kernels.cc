// Registers its functions as system-library symbols (TVMFFIEnvModRegisterSystemLibSymbol) when it
// is loaded, as statically linked code does at startup; test_system_lib.py reaches them through
// ffi.SystemLib("pysys.") without looking at this library's own exports.
#include <ffi/ffi.h>

#include <cstdlib>

namespace {
int64_t Triple(int64_t x) { return 3 * x; }
}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(pysys_triple, Triple);

FFI_STATIC_INIT_BLOCK() {
  if (TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_pysys.triple",
                                          reinterpret_cast<void*>(__tvm_ffi_pysys_triple)) != 0 ||
      TVMFFIEnvModRegisterSystemLibSymbol(
          "pysys.__tvm_ffi__metadata_triple",
          reinterpret_cast<void*>(__tvm_ffi__metadata_pysys_triple)) != 0) {
    std::abort();
  }
}
