/*
 * A C host: loads a kernel library through the runtime's global functions and calls it, using
 * only the C ABI. Usage: load_and_call <path to add_one_c library>
 */
#include <ffi/c_api.h>
#include <stdio.h>
#include <string.h>

/* Prints and clears the thread's raised error. */
static void PrintError(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    fprintf(stderr, "%.*s: %.*s\n", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
            cell->message.data);
    TVMFFIObjectDecRef(err);
  }
}

static TVMFFIObjectHandle GetGlobal(const char* name) {
  TVMFFIByteArray key;
  TVMFFIObjectHandle out = NULL;
  key.data = name;
  key.size = strlen(name);
  if (TVMFFIFunctionGetGlobal(&key, &out) != 0) return NULL;
  return out;
}

static int Run(const char* path, DLTensor* x, DLTensor* y) {
  int ret_code = 0;
  TVMFFIAny call_args[3];
  TVMFFIAny mod, func, none;
  TVMFFIObjectHandle fn_load_module = GetGlobal("ffi.Module.load_from_file.so");
  TVMFFIObjectHandle fn_get_function = GetGlobal("ffi.ModuleGetFunction");
  memset(call_args, 0, sizeof(call_args));
  memset(&mod, 0, sizeof(mod));
  memset(&func, 0, sizeof(func));
  memset(&none, 0, sizeof(none));
  if (fn_load_module == NULL || fn_get_function == NULL) {
    fprintf(stderr, "module global functions are missing\n");
    ret_code = -1;
    goto RAII;
  }

  /* Step 1: mod = Module::LoadFromFile(path) */
  call_args[0].type_index = kTVMFFIRawStr;
  call_args[0].v_c_str = path;
  call_args[1].type_index = kTVMFFISmallStr;
  call_args[1].v_int64 = 0;
  if ((ret_code = TVMFFIFunctionCall(fn_load_module, call_args, 2, &mod))) goto RAII;

  /* Step 2: func = mod->GetFunction("add_one_c", false).value() */
  call_args[0].type_index = mod.type_index;
  call_args[0].v_obj = mod.v_obj;
  call_args[1].type_index = kTVMFFIRawStr;
  call_args[1].v_c_str = "add_one_c";
  call_args[2].type_index = kTVMFFIBool;
  call_args[2].v_int64 = 0;
  if ((ret_code = TVMFFIFunctionCall(fn_get_function, call_args, 3, &func))) goto RAII;
  if (func.type_index != kTVMFFIFunction) {
    fprintf(stderr, "add_one_c not found\n");
    ret_code = -1;
    goto RAII;
  }

  /* Step 3: func(x, y) */
  call_args[0].type_index = kTVMFFIDLTensorPtr;
  call_args[0].v_ptr = x;
  call_args[1].type_index = kTVMFFIDLTensorPtr;
  call_args[1].v_ptr = y;
  if ((ret_code = TVMFFIFunctionCall(func.v_obj, call_args, 2, &none))) goto RAII;

RAII:
  if (ret_code != 0) PrintError();
  if (mod.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(mod.v_obj);
  if (func.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(func.v_obj);
  if (none.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(none.v_obj);
  TVMFFIObjectDecRef(fn_load_module);
  TVMFFIObjectDecRef(fn_get_function);
  return ret_code;
}

int main(int argc, char** argv) {
  float x_data[5] = {1, 2, 3, 4, 5};
  float y_data[5] = {0, 0, 0, 0, 0};
  int64_t shape[1] = {5};
  DLTensor x, y;
  int i;
  if (argc != 2) {
    fprintf(stderr, "usage: %s <kernel library>\n", argv[0]);
    return 2;
  }
  memset(&x, 0, sizeof(x));
  x.data = x_data;
  x.device.device_type = kDLCPU;
  x.ndim = 1;
  x.dtype.code = kDLFloat;
  x.dtype.bits = 32;
  x.dtype.lanes = 1;
  x.shape = shape;
  y = x;
  y.data = y_data;
  if (Run(argv[1], &x, &y) != 0) return 1;
  for (i = 0; i < 5; ++i) {
    printf("%g ", y_data[i]);
    if (y_data[i] != x_data[i] + 1) {
      fprintf(stderr, "\nwrong result at %d\n", i);
      return 1;
    }
  }
  printf("\n");
  return 0;
}
