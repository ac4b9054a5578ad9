// A kernel library compiled against the reference implementation's headers (apache-tvm-ffi),
// loaded by our runtime to show binary compatibility. Test-only.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

namespace tffi = tvm::ffi;

namespace {

int64_t Add(int64_t a, int64_t b) { return a + b; }

tffi::String Concat(tffi::String a, tffi::String b) { return a + b; }

void Fail(tffi::String why) { TVM_FFI_THROW(ValueError) << "reference kernel failed: " << why; }

int64_t CallBack(tffi::Function fn, int64_t x) { return fn(x).cast<int64_t>() + 1; }

void AddOne(tffi::TensorView x, tffi::TensorView y) {
  TVM_FFI_ICHECK_EQ(x.ndim(), 1) << "x must be 1-d";
  for (int64_t i = 0; i < x.size(0); ++i) {
    static_cast<float*>(y.data_ptr())[i] = static_cast<float*>(x.data_ptr())[i] + 1.0f;
  }
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(concat, Concat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_back, CallBack);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
