/*
 * A kernel written directly against the C ABI, as a DSL compiler would emit it: it decodes its
 * TVMFFIAny arguments by hand and reports errors through the thread-local error.
 * Exported as `add_one_c`: y[i] = x[i] + 1 for float32 vectors.
 */
#include <ffi/c_api.h>

TVM_FFI_DLL_EXPORT int __tvm_ffi_add_one_c(void* handle, const TVMFFIAny* args, int32_t num_args,
                                           TVMFFIAny* result) {
  DLTensor* x;
  DLTensor* y;
  int64_t i;
  (void)handle;
  (void)result;
  if (num_args != 2) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one_c expects 2 arguments");
    return -1;
  }
  /* Step 1: extract x and y, either borrowed DLTensor* or Tensor objects. */
  if (args[0].type_index == kTVMFFIDLTensorPtr) {
    x = (DLTensor*)(args[0].v_ptr);
  } else if (args[0].type_index == kTVMFFITensor) {
    x = (DLTensor*)((char*)args[0].v_obj + sizeof(TVMFFIObject));
  } else {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "Expects a Tensor input");
    return -1;
  }
  if (args[1].type_index == kTVMFFIDLTensorPtr) {
    y = (DLTensor*)(args[1].v_ptr);
  } else if (args[1].type_index == kTVMFFITensor) {
    y = (DLTensor*)((char*)args[1].v_obj + sizeof(TVMFFIObject));
  } else {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "Expects a Tensor output");
    return -1;
  }
  if (x->dtype.code != kDLFloat || x->dtype.bits != 32 || x->ndim != 1) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one_c expects 1-d float32 tensors");
    return -1;
  }
  /* Step 2: compute. */
  for (i = 0; i < x->shape[0]; ++i) {
    ((float*)y->data)[i] = ((float*)x->data)[i] + 1.0f;
  }
  /* Step 3: success. */
  return 0;
}
