// duplicate_global.cc built against the reference implementation's headers (apache-tvm-ffi): its
// static registration throws when TVMFFIFunctionSetGlobal fails, which would terminate the process.
// Inside our loader the failure is recorded and raised by the loader instead.
#include <tvm/ffi/function.h>

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::Function::SetGlobal("ffi_loader_test.reference_dup",
                                tvm::ffi::Function::FromTyped([]() { return 2; }));
}
