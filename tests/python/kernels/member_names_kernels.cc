// A library whose exports are named like members of ffi.Module (test_loading.py): loading it must
// work, the members keep their meaning, and mod["name"] reaches each export.
#include <ffi/ffi.h>

#include <cstdint>

namespace {
int64_t PlusOne(int64_t a) { return a + 1; }
int64_t PlusTwo(int64_t a) { return a + 2; }
int64_t PlusThree(int64_t a) { return a + 3; }
int64_t PlusFour(int64_t a) { return a + 4; }
int64_t Twice(int64_t a) { return 2 * a; }
}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(get_function, PlusFour);
FFI_DLL_EXPORT_TYPED_FUNC(path, PlusOne);
FFI_DLL_EXPORT_TYPED_FUNC(same_as, PlusThree);
FFI_DLL_EXPORT_TYPED_FUNC(implements_function, PlusTwo);
FFI_DLL_EXPORT_TYPED_FUNC(twice, Twice);
// Named like members our Module has and the reference's lacks: there these are the functions.
FFI_DLL_EXPORT_TYPED_FUNC(type_key, PlusOne);
FFI_DLL_EXPORT_TYPED_FUNC(type_index, PlusTwo);
