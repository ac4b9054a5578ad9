/*
 * Compiled as C99: <ffi/c_api.h> must be valid C, and the sizes and offsets the ABI fixes must
 * hold there too. Every assertion fails the build when broken. The C headers at the reference's
 * paths are valid C too, as the reference's are.
 */
#include <ffi/c_api.h>
#include <ffi/c_env_api.h>
#include <stddef.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define LAYOUT(name, cond) typedef char layout_##name[(cond) ? 1 : -1]

LAYOUT(any_size, sizeof(TVMFFIAny) == 16);
LAYOUT(any_type_index, offsetof(TVMFFIAny, type_index) == 0);
LAYOUT(any_small_len, offsetof(TVMFFIAny, small_str_len) == 4);
LAYOUT(any_payload, offsetof(TVMFFIAny, v_int64) == 8);
LAYOUT(object_size, sizeof(TVMFFIObject) == 24);
LAYOUT(object_ref, offsetof(TVMFFIObject, combined_ref_count) == 0);
LAYOUT(object_type_index, offsetof(TVMFFIObject, type_index) == 8);
LAYOUT(object_deleter, offsetof(TVMFFIObject, deleter) == 16);
LAYOUT(byte_array, sizeof(TVMFFIByteArray) == 16);
LAYOUT(error_cell, sizeof(TVMFFIErrorCell) == 72);
LAYOUT(error_update, offsetof(TVMFFIErrorCell, update_backtrace) == 48);
LAYOUT(function_cell, sizeof(TVMFFIFunctionCell) == 16);
LAYOUT(dltensor, sizeof(DLTensor) == 48);
LAYOUT(dltensor_shape, offsetof(DLTensor, shape) == 24);
LAYOUT(dltensor_offset, offsetof(DLTensor, byte_offset) == 40);
LAYOUT(managed_versioned_tensor, offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
LAYOUT(type_info_key, offsetof(TVMFFITypeInfo, type_key) == 8);
LAYOUT(type_info_ancestors, offsetof(TVMFFITypeInfo, type_ancestors) == 24);
LAYOUT(type_info_size, sizeof(TVMFFITypeInfo) == 72);
LAYOUT(tensor_enum, kTVMFFITensor == 70 && kTVMFFIDLTensorPtr == 7 && kTVMFFIDynObjectBegin == 128);

/* Called from the C++ test so this translation unit is linked and run, not only compiled. */
int ffi_test_c_any_roundtrip(void) {
  TVMFFIAny v;
  v.type_index = kTVMFFIInt;
  v.zero_padding = 0;
  v.v_int64 = 42;
  return (int)v.v_int64;
}
