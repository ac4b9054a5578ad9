/*
 * A plain C (C99) host for add_one.cc, written against <ffi/c_api.h> only: it loads the library
 * through the runtime's global functions "ffi.Module.load_from_file.so" and
 * "ffi.ModuleGetFunction", calls add_one with two DLTensor* arguments (borrowed: the caller owns
 * the memory) and prints the result, then shows a kernel error read back through the C ABI.
 * Usage: host_c <path to add_one.so>
 */
#include <ffi/c_api.h>
#include <stdio.h>
#include <string.h>

/* Moves the thread's raised error out and prints it as "<prefix>Kind: message" to `out`. */
static void PrintRaised(FILE* out, const char* prefix) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorCell* cell;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) return;
  cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
  fprintf(out, "%s%.*s: %.*s\n", prefix, (int)cell->kind.size, cell->kind.data,
          (int)cell->message.size, cell->message.data);
  TVMFFIObjectDecRef(err);
}

/* Releases the reference an owned TVMFFIAny holds, if it holds an object. */
static void Release(TVMFFIAny* value) {
  if (value->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(value->v_obj);
  memset(value, 0, sizeof(*value));
}

static TVMFFIObjectHandle GetGlobal(const char* name) {
  TVMFFIByteArray key;
  TVMFFIObjectHandle out = NULL;
  key.data = name;
  key.size = strlen(name);
  if (TVMFFIFunctionGetGlobal(&key, &out) != 0) return NULL;
  return out;
}

/* Loads the library at `path` into `mod` and looks up add_one into `func` (both owned). */
static int LoadAddOne(const char* path, TVMFFIAny* mod, TVMFFIAny* func) {
  int ret_code = -1;
  TVMFFIAny args[3];
  TVMFFIObjectHandle load = GetGlobal("ffi.Module.load_from_file.so");
  TVMFFIObjectHandle get_function = GetGlobal("ffi.ModuleGetFunction");
  memset(args, 0, sizeof(args));
  if (load == NULL || get_function == NULL) {
    fprintf(stderr, "module global functions are missing\n");
    goto CLEANUP;
  }
  /* mod = ffi.Module.load_from_file.so(path) */
  args[0].type_index = kTVMFFIRawStr;
  args[0].v_c_str = path;
  if (TVMFFIFunctionCall(load, args, 1, mod) != 0) goto CLEANUP;
  /* func = ffi.ModuleGetFunction(mod, "add_one", false): None when the library lacks it */
  args[0].type_index = mod->type_index;
  args[0].v_obj = mod->v_obj;
  args[1].type_index = kTVMFFIRawStr;
  args[1].v_c_str = "add_one";
  args[2].type_index = kTVMFFIBool;
  args[2].v_int64 = 0;
  if (TVMFFIFunctionCall(get_function, args, 3, func) != 0) goto CLEANUP;
  if (func->type_index != kTVMFFIFunction) {
    fprintf(stderr, "%s has no function add_one\n", path);
    goto CLEANUP;
  }
  ret_code = 0;
CLEANUP:
  if (load != NULL) TVMFFIObjectDecRef(load);
  if (get_function != NULL) TVMFFIObjectDecRef(get_function);
  return ret_code;
}

/* add_one(x, y); nonzero on error, which stays raised for the caller to read. */
static int CallAddOne(TVMFFIObjectHandle func, DLTensor* x, DLTensor* y) {
  TVMFFIAny args[2];
  TVMFFIAny result;
  int ret_code;
  memset(args, 0, sizeof(args));
  memset(&result, 0, sizeof(result));
  args[0].type_index = kTVMFFIDLTensorPtr;
  args[0].v_ptr = x;
  args[1].type_index = kTVMFFIDLTensorPtr;
  args[1].v_ptr = y;
  ret_code = TVMFFIFunctionCall(func, args, 2, &result);
  Release(&result); /* add_one returns nothing; release anyway, as for any call */
  return ret_code;
}

/* A compact CPU tensor viewing `data` (strides NULL: row-major). */
static DLTensor MakeTensor(void* data, int64_t* shape, int32_t ndim, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

int main(int argc, char** argv) {
  float x_data[6] = {0, 1, 2, 3, 4, 5};
  float y_data[6] = {0, 0, 0, 0, 0, 0};
  double d_data[6] = {0, 0, 0, 0, 0, 0};
  int64_t shape[2] = {2, 3};
  DLTensor x, y, d;
  TVMFFIAny mod, func;
  int ret_code = 1;
  int i;
  if (argc != 2) {
    fprintf(stderr, "usage: %s <add_one library>\n", argv[0]);
    return 2;
  }
  memset(&mod, 0, sizeof(mod));
  memset(&func, 0, sizeof(func));
  x = MakeTensor(x_data, shape, 2, kDLFloat, 32);
  y = MakeTensor(y_data, shape, 2, kDLFloat, 32);
  d = MakeTensor(d_data, shape, 2, kDLFloat, 64);
  if (LoadAddOne(argv[1], &mod, &func) != 0) goto CLEANUP;

  if (CallAddOne(func.v_obj, &x, &y) != 0) goto CLEANUP;
  printf("C host:");
  for (i = 0; i < 6; ++i) printf(" %g", y_data[i]);
  printf("\n");

  /* A float64 x: the kernel's FFI_THROW(TypeError) arrives as a nonzero return code. */
  if (CallAddOne(func.v_obj, &d, &y) == 0) {
    fprintf(stderr, "add_one accepted a float64 tensor\n");
    goto CLEANUP;
  }
  PrintRaised(stdout, "C host error: ");
  ret_code = 0;
CLEANUP:
  if (ret_code != 0) PrintRaised(stderr, "");
  Release(&func);
  Release(&mod);
  return ret_code;
}
