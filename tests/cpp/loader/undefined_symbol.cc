// A library calling a function nobody defines: loading it must fail, naming the symbol, instead of
// the process exiting at the first call.
#include <ffi/ffi.h>

extern "C" int64_t ffi_loader_test_never_defined(int64_t);

namespace {
int64_t CallsMissing(int64_t x) { return ffi_loader_test_never_defined(x); }
}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(calls_missing, CallsMissing);
