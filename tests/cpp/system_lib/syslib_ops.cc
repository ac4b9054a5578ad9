// A "system library": code linked statically into the host (tests/cpp/CMakeLists.txt builds it as a
// static library linked whole into test_system_lib) that registers its functions with
// TVMFFIEnvModRegisterSystemLibSymbol from a static initializer instead of being dlopen-ed. The
// host finds them through ffi.SystemLib(prefix). Registered under the prefix "syslib_test.",
// plus one function without a prefix, its typed metadata and a library context slot.
#include <ffi/ffi.h>

#include <cstdint>

namespace {

int64_t AddOne(int64_t x) { return x + 1; }
ffi::String Greet(ffi::String who) { return ffi::String("hello " + std::string(who.view())); }
int64_t Plain(int64_t x) { return x * 2; }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(syslib_add_one, AddOne);
FFI_DLL_EXPORT_TYPED_FUNC(syslib_greet, Greet);
FFI_DLL_EXPORT_TYPED_FUNC(syslib_plain, Plain);

/*! \brief The library context slot, which the system library module points at itself. */
extern "C" {
void* syslib_test_library_ctx = nullptr;
}

namespace {

/*! \brief Registers `symbol` under `name`; a failure is fatal here since nothing could report it.
 */
void Register(const char* name, void* symbol) {
  if (TVMFFIEnvModRegisterSystemLibSymbol(name, symbol) != 0) std::abort();
}

FFI_STATIC_INIT_BLOCK() {
  Register("__tvm_ffi_syslib_test.add_one", reinterpret_cast<void*>(__tvm_ffi_syslib_add_one));
  Register("__tvm_ffi_syslib_test.greet", reinterpret_cast<void*>(__tvm_ffi_syslib_greet));
  Register("syslib_test.__tvm_ffi__metadata_add_one",
           reinterpret_cast<void*>(__tvm_ffi__metadata_syslib_add_one));
  Register("__tvm_ffi_syslib_plain", reinterpret_cast<void*>(__tvm_ffi_syslib_plain));
  Register("syslib_test.__tvm_ffi__library_ctx", &syslib_test_library_ctx);
}

}  // namespace
