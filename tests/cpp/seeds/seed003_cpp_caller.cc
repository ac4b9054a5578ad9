// Seed 003 ("C++ Caller"): a host loading the library that exports add_one_cpu and calling it.
// Only the include lines are ours, plus what the seed leaves out: the `Alloc1DTensor` helper, the
// library path as argv[1] (default "add_one_cpu.so"), and checking the result.
// Run by ctest as `seeds_cpp_caller <path to seed_kernels.so>`.
#include <tvm/ffi/tvm_compat.h>  // was <tvm/ffi/container/tensor.h> and <tvm/ffi/extra/module.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {
// A float32 CPU vector holding `values`, allocated with FromNDAlloc and malloc/free.
struct CPUAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = std::malloc(ffi::GetDataSize(*tensor)); }
  void FreeData(DLTensor* tensor) { std::free(tensor->data); }
};

ffi::Tensor Alloc1DTensor(std::initializer_list<float> values) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CPUAlloc(), {static_cast<int64_t>(values.size())},
                                           DLDataType({kDLFloat, 32, 1}), DLDevice({kDLCPU, 0}));
  std::memcpy(t.data_ptr(), values.begin(), values.size() * sizeof(float));
  return t;
}

int Run(const char* path) {
  ffi::Tensor x = Alloc1DTensor({1, 2, 3, 4, 5});
  ffi::Tensor y = Alloc1DTensor({0, 0, 0, 0, 0});
  // Load shared library "add_one_cpu.so"
  ffi::Module mod = ffi::Module::LoadFromFile(path);
  // Look up "add_one_cpu" function
  ffi::Function add_one_cpu = mod->GetFunction("add_one_cpu").value();
  // Call the function
  add_one_cpu(x, y);

  const float* y_data = static_cast<const float*>(y.data_ptr());
  std::printf("y = [%g, %g, %g, %g, %g]\n", y_data[0], y_data[1], y_data[2], y_data[3], y_data[4]);
  for (int i = 0; i < 5; ++i) {
    if (y_data[i] != static_cast<float>(i + 2)) return 1;
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc > 1 ? argv[1] : "add_one_cpu.so");
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
