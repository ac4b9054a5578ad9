// Seed 003 ("Minimal example for Libraries"): AddOne exported as add_one_cpu, as the seed writes
// it; only the include lines are ours. Part of the seed_kernels library.
#include <tvm/ffi/tvm_compat.h>  // was <tvm/ffi/container/tensor.h> and <tvm/ffi/function.h>

void AddOne(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  int64_t n = x.size(0);
  float* x_data = static_cast<float*>(x.data_ptr());
  float* y_data = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    y_data[i] = x_data[i] + 1;
  }
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cpu, AddOne);
