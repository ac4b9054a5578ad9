// A library exporting variables under function names: the loader must refuse to call them.
#include <ffi/container/array.h>
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

// Context slots: the loader writes what a host registered under exactly a slot's name
// (TVMFFIEnvModRegisterContextSymbol), as TVM's generated code declares `__TVMBackend...` ones.
extern "C" {
TVM_FFI_DLL_EXPORT void* __test_context_slot = nullptr;
TVM_FFI_DLL_EXPORT void* test_plain_slot = nullptr;
TVM_FFI_DLL_EXPORT void* __test_plain_slot = nullptr;
}

namespace {
int64_t Ok(int64_t x) { return x + __tvm_ffi_x; }
/*! \brief The three context slots' values, as addresses. */
ffi::Array<int64_t> Slots() {
  return {reinterpret_cast<int64_t>(__test_context_slot),
          reinterpret_cast<int64_t>(test_plain_slot), reinterpret_cast<int64_t>(__test_plain_slot)};
}
}  // namespace

// The real functions: the library still works.
FFI_DLL_EXPORT_TYPED_FUNC(ok, Ok);
FFI_DLL_EXPORT_TYPED_FUNC(slots, Slots);
