// Seeds: the seeds' own kernel code (tests/cpp/seeds/, TVM-FFI vocabulary through
// <tvm/ffi/tvm_compat.h>) built into libraries, loaded with ffi::Module and called with DLTensor*
// views and owning Tensors; and the compatibility macros themselves.
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>
#include <tvm/ffi/tvm_compat.h>

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "testing.h"

#ifdef FFI_SEED_CUDA_KERNELS
#include <cuda_runtime.h>
#endif

namespace {

using namespace ffi_testing;

ffi::Module Seeds() { return ffi::Module::LoadFromFile(FFI_SEED_KERNELS); }

// Host memory described by a DLTensor owned by the test (a borrowed view when passed).
struct HostTensor {
  HostTensor(std::vector<float> values, DLDataType dtype = kF32, DLDevice device = kCPU)
      : data(std::move(values)), shape{static_cast<int64_t>(data.size())} {
    dl.data = data.data();
    dl.device = device;
    dl.ndim = 1;
    dl.dtype = dtype;
    dl.shape = shape;
    dl.strides = nullptr;
    dl.byte_offset = 0;
  }
  std::vector<float> data;
  int64_t shape[1];
  DLTensor dl;
};

// Live CPU allocations made by CPUTensor (the counter its CountingCPUAlloc keeps).
int live_allocations = 0;

ffi::Tensor CPUTensor(const std::vector<float>& values) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CountingCPUAlloc{nullptr, &live_allocations},
                                           {static_cast<int64_t>(values.size())},
                                           DLDataType({kDLFloat, 32, 1}), DLDevice({kDLCPU, 0}));
  std::copy(values.begin(), values.end(), static_cast<float*>(t.data_ptr()));
  return t;
}

std::vector<float> Values(const ffi::Tensor& t) {
  const auto* p = static_cast<const float*>(t.data_ptr());
  return std::vector<float>(p, p + t.numel());
}

// ---- Seed 000: MyKernel (CPU variant), FromEnvAlloc, the C conversions ----

TEST(Seed000, MyKernelWithDLTensorArguments) {
  ffi::Function my_kernel = Seeds()->GetFunction("my_kernel").value();
  HostTensor in({1, 2, 3}), out({0, 0, 0});
  my_kernel(&in.dl, &out.dl);
  EXPECT_EQ(out.data, (std::vector<float>{2, 4, 6}));
}

TEST(Seed000, MyKernelWithTensorArguments) {
  ffi::Function my_kernel = Seeds()->GetFunction("my_kernel").value();
  {
    ffi::Tensor in = CPUTensor({1, -1, 0.5f}), out = CPUTensor({0, 0, 0});
    EXPECT_EQ(live_allocations, 2);
    my_kernel(in, out);
    EXPECT_EQ(Values(out), (std::vector<float>{2, -2, 1}));
    // Owning and borrowed arguments mix.
    HostTensor view_out({0, 0, 0});
    my_kernel(in, &view_out.dl);
    EXPECT_EQ(view_out.data, (std::vector<float>{2, -2, 1}));
    EXPECT_EQ(in.use_count(), 1u);
  }
  EXPECT_EQ(live_allocations, 0);
}

TEST(Seed000, MyKernelRejectsOtherDtypes) {
  ffi::Function my_kernel = Seeds()->GetFunction("my_kernel").value();
  HostTensor out({0, 0});
  HostTensor ints({0, 0}, DLDataType{kDLInt, 32, 1});
  ffi::Error e = ExpectError([&] { my_kernel(&ints.dl, &out.dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Expect float32 input, but got int32");
  EXPECT_NE(e.backtrace().find("seed000_tensor.cc"), std::string::npos) << e.backtrace();

  HostTensor halves({0, 0}, DLDataType{kDLFloat, 16, 4});
  e = ExpectError([&] { my_kernel(&halves.dl, &out.dl); });
  EXPECT_EQ(e.message(), "Expect float32 input, but got float16x4");
}

TEST(Seed000, MyKernelRejectsOtherDevices) {
  ffi::Function my_kernel = Seeds()->GetFunction("my_kernel").value();
  HostTensor out({0, 0});
  // Only the description is read: the kernel refuses before touching the data.
  HostTensor on_gpu({0, 0}, kF32, DLDevice{kDLCUDA, 0});
  ffi::Error e = ExpectError([&] { my_kernel(&on_gpu.dl, &out.dl); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "Expect input on CPU, but got cuda:0");
  HostTensor cpu1({0, 0}, kF32, DLDevice{kDLCPU, 1});
  e = ExpectError([&] { my_kernel(&cpu1.dl, &out.dl); });
  EXPECT_EQ(e.message(), "Expect input on CPU, but got cpu:1");
}

TEST(Seed000, MyKernelNamesTheBadArgument) {
  ffi::Function my_kernel = Seeds()->GetFunction("my_kernel").value();
  HostTensor out({0});
  ffi::Error e = ExpectError([&] { my_kernel(1, &out.dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #0 when calling: `my_kernel(0: Tensor, 1: Tensor) -> "
            "void`. Expected `Tensor` but got `int`");
}

TEST(Seed000, EnvAllocReturnsAnOwnedTensor) {
  ffi::Tensor t = Seeds()->GetFunction("env_alloc").value()().cast<ffi::Tensor>();
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.use_count(), 1u);
  EXPECT_EQ(t.shape(), ffi::ShapeView({1, 2, 3}));
  EXPECT_EQ(t.strides(), ffi::ShapeView({6, 3, 1}));
  EXPECT_EQ(t.dtype(), kF32);
  EXPECT_EQ(t.device(), kCPU);
  EXPECT_EQ(t.numel(), 6);
  ASSERT_NE(t.data_ptr(), nullptr);
  auto* p = static_cast<float*>(t.data_ptr());
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i);
  EXPECT_EQ(p[5], 5.0f);
}

TEST(Seed000, CConversionsAcceptBothTensorForms) {
  ffi::Module mod = Seeds();
  ffi::Function ndim = mod->GetFunction("tensor_ndim").value();
  ffi::Function own = mod->GetFunction("tensor_own").value();
  HostTensor view({1, 2});
  ffi::Tensor owned = CPUTensor({1, 2, 3});
  EXPECT_EQ(ndim(&view.dl).cast<int64_t>(), 1);
  EXPECT_EQ(ndim(owned).cast<int64_t>(), 1);
  ffi::Error e = ExpectError([&] { ndim(3); });
  EXPECT_EQ(e.kind(), "TypeError");

  // Only a tensor object can be owned; the result shares it.
  ffi::Tensor back = own(owned).cast<ffi::Tensor>();
  EXPECT_TRUE(back.same_as(owned));
  EXPECT_EQ(owned.use_count(), 2u);
  e = ExpectError([&] { own(&view.dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "tensor_own expects a Tensor object");
}

// ---- Seed 003: AddOne exported as add_one_cpu (the C++ caller is the seeds_cpp_caller test) --

TEST(Seed003, AddOneCpu) {
  ffi::Function add_one_cpu = Seeds()->GetFunction("add_one_cpu").value();
  HostTensor x({1, 2, 3, 4, 5}), y({0, 0, 0, 0, 0});
  add_one_cpu(&x.dl, &y.dl);
  EXPECT_EQ(y.data, (std::vector<float>{2, 3, 4, 5, 6}));

  ffi::Tensor tx = CPUTensor({10, 20}), ty = CPUTensor({0, 0});
  add_one_cpu(tx, ty);
  EXPECT_EQ(Values(ty), (std::vector<float>{11, 21}));
}

// ---- Seed 004: func(input, Optional<Tensor> optional_input, output, workspace) ----

TEST(Seed004, FuncWithoutTheOptionalInput) {
  ffi::Function func = Seeds()->GetFunction("func").value();
  HostTensor input({1, 2, 3}), output({0, 0, 0}), workspace({0, 0, 0, 0});
  func(&input.dl, nullptr, &output.dl, &workspace.dl);
  EXPECT_EQ(output.data, (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(workspace.data, (std::vector<float>{2, 4, 6, 0}));
  // An empty Optional is None as well.
  output.data.assign(3, 0);
  func(&input.dl, ffi::Optional<ffi::Tensor>(), &output.dl, &workspace.dl);
  EXPECT_EQ(output.data, (std::vector<float>{2, 4, 6}));
}

TEST(Seed004, FuncWithTheOptionalInput) {
  ffi::Function func = Seeds()->GetFunction("func").value();
  ffi::Tensor input = CPUTensor({1, 2, 3}), extra = CPUTensor({100, 200, 300});
  ffi::Tensor output = CPUTensor({0, 0, 0}), workspace = CPUTensor({0, 0, 0});
  func(input, extra, output, workspace);
  EXPECT_EQ(Values(output), (std::vector<float>{102, 204, 306}));
  EXPECT_EQ(Values(workspace), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(extra.use_count(), 1u);
}

TEST(Seed004, OptionalTensorNeedsAnOwningTensor) {
  // Seed 004's point about Optional<Tensor>: a borrowed DLTensor* cannot become a Tensor.
  ffi::Function func = Seeds()->GetFunction("func").value();
  HostTensor input({1}), extra({1}), output({0}), workspace({0});
  ffi::Error e = ExpectError([&] { func(&input.dl, &extra.dl, &output.dl, &workspace.dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #1 when calling: `func(0: Tensor, 1: Optional<Tensor>, "
            "2: Tensor, 3: Tensor) -> void`. Expected `Optional<Tensor>` but got `DLTensor*`");
}

TEST(Seed004, FuncReadsStridesAndChecksShapes) {
  ffi::Function func = Seeds()->GetFunction("func").value();
  // Every other element of a 6-element buffer: shape [3], stride 2.
  HostTensor input({1, -1, 2, -1, 3, -1}), output({0, 0, 0}), workspace({0, 0, 0});
  int64_t shape[1] = {3}, strides[1] = {2};
  input.dl.shape = shape;
  input.dl.strides = strides;
  func(&input.dl, nullptr, &output.dl, &workspace.dl);
  EXPECT_EQ(output.data, (std::vector<float>{2, 4, 6}));

  HostTensor small({0, 0});
  ffi::Error e = ExpectError([&] { func(&input.dl, nullptr, &output.dl, &small.dl); });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_NE(e.message().find("Check failed: workspace.numel() >= input.numel() (2 vs. 3): "
                             "workspace too small"),
            std::string::npos)
      << e.message();
  HostTensor ints({0, 0, 0}, DLDataType{kDLInt, 32, 1});
  e = ExpectError([&] { func(&ints.dl, nullptr, &output.dl, &workspace.dl); });
  EXPECT_NE(e.message().find("(int32 vs. float32)"), std::string::npos) << e.message();
}

// ---- The compatibility layer itself ----

static_assert(std::is_same_v<tvm::ffi::TensorView, ffi::TensorView>);
static_assert(std::is_same_v<tvm::ffi::Optional<tvm::ffi::Tensor>, ffi::Optional<ffi::Tensor>>);
static_assert(std::is_same_v<ffi::DLDevice, ::DLDevice>);
static_assert(std::is_same_v<ffi::DLDataType, ::DLDataType>);

TVM_FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef().def("seeds.compat.triple", [](int64_t x) { return 3 * x; });
}

int CompatSafeCall(int64_t x) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if (x < 0) TVM_FFI_THROW(ValueError) << "negative: " << x;
  TVM_FFI_SAFE_CALL_END();
}

TEST(TvmCompat, StaticInitBlockRegisters) {
  ffi::Function f = ffi::Function::GetGlobal("seeds.compat.triple").value();
  EXPECT_EQ(f(14).cast<int64_t>(), 42);
}

TEST(TvmCompat, SafeCallMacros) {
  EXPECT_EQ(CompatSafeCall(1), 0);
  EXPECT_EQ(CompatSafeCall(-1), -1);
  ffi::Error e = ExpectError([] { TVM_FFI_CHECK_SAFE_CALL(CompatSafeCall(-2)); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "negative: -2");
  TVM_FFI_CHECK_SAFE_CALL(CompatSafeCall(2));
}

TEST(TvmCompat, Checks) {
  int value = 7;
  int* p = &value;
  EXPECT_EQ(TVM_FFI_ICHECK_NOTNULL(p), &value);
  EXPECT_EQ(*TVM_FFI_ICHECK_NOTNULL(p), 7);
  int* null = nullptr;
  ffi::Error e = ExpectError([&] { TVM_FFI_ICHECK_NOTNULL(null); });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_EQ(e.message(), "Check not null: null");

  e = ExpectError([] { TVM_FFI_ICHECK_EQ(1 + 1, 3) << "arithmetic"; });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_EQ(e.message(), "Check failed: 1 + 1 == 3 (2 vs. 3): arithmetic");
  e = ExpectError([] { TVM_FFI_ICHECK(false) << "never"; });
  EXPECT_EQ(e.message(), "Check failed: (false) is false: never");
  TVM_FFI_ICHECK_NE(1, 2);
  TVM_FFI_ICHECK_LT(1, 2);
  TVM_FFI_ICHECK_LE(2, 2);
  TVM_FFI_ICHECK_GT(3, 2);
  TVM_FFI_ICHECK_GE(3, 3);
  e = ExpectError([] { TVM_FFI_ICHECK_GE(1, 3); });
  EXPECT_EQ(e.message(), "Check failed: 1 >= 3 (1 vs. 3): ");
}

TEST(TvmCompat, SeedSpellingOfDtypesAndDevices) {
  // Seed 000 writes DLDataType({kDLFloat, 32, 1}) and compares and prints both.
  EXPECT_EQ(DLDataType({kDLFloat, 32, 1}), kF32);
  EXPECT_NE(DLDataType({kDLFloat, 16, 1}), kF32);
  EXPECT_EQ(DLDevice({kDLCUDA, 1}), (DLDevice{kDLCUDA, 1}));
  EXPECT_NE(DLDevice({kDLCUDA, 0}), kCPU);
  std::ostringstream os;
  os << DLDataType({kDLBfloat, 16, 1}) << " " << DLDevice({kDLCUDA, 1});
  EXPECT_EQ(os.str(), "bfloat16 cuda:1");
}

#ifdef FFI_SEED_CUDA_KERNELS
// ---- Seeds 000 and 003, CUDA parts (nvcc-built seed_cuda_kernels) ----

ffi::Module SeedsCUDA() { return ffi::Module::LoadFromFile(FFI_SEED_CUDA_KERNELS); }

TEST(SeedCUDA, MyKernelValidatesBeforeLaunching) {
  ffi::Function my_kernel = SeedsCUDA()->GetFunction("my_kernel_cuda").value();
  HostTensor in({1, 2}), out({0, 0});
  ffi::Error e = ExpectError([&] { my_kernel(&in.dl, &out.dl); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "Expect input on CUDA:0, but got cpu");
  HostTensor ints({1, 2}, DLDataType{kDLInt, 32, 1}, DLDevice{kDLCUDA, 0});
  e = ExpectError([&] { my_kernel(&ints.dl, &out.dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Expect float32 input, but got int32");
}

TEST(SeedCUDA, StreamComesFromTheEnvironment) {
  ffi::Function current_stream = SeedsCUDA()->GetFunction("current_stream").value();
  HostTensor on_gpu({0}, kF32, DLDevice{kDLCUDA, 0});
  EXPECT_EQ(current_stream(&on_gpu.dl).cast<void*>(), nullptr);
  void* fake = reinterpret_cast<void*>(uintptr_t{0x1234});
  {
    ffi::StreamGuard guard(kDLCUDA, 0, fake);
    EXPECT_EQ(current_stream(&on_gpu.dl).cast<void*>(), fake);
  }
  EXPECT_EQ(current_stream(&on_gpu.dl).cast<void*>(), nullptr);
}

TEST(SeedCUDA, CUDANDAllocAndMyKernel) {
  ffi::Module mod = SeedsCUDA();
  ffi::Function alloc = mod->GetFunction("alloc_cuda_tensor").value();
  if (!HasGPU()) {
    // The seed's allocator checks with TVM_FFI_ICHECK_EQ: an InternalError naming cudaMalloc.
    ffi::Error e = ExpectError([&] { alloc(); });
    EXPECT_EQ(e.kind(), "InternalError");
    EXPECT_NE(e.message().find("Check failed: err == cudaSuccess"), std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("cudaMalloc failed: "), std::string::npos) << e.message();
    GTEST_SKIP() << "no CUDA device: only the error path was checked";
  }
  ffi::Tensor x = alloc().cast<ffi::Tensor>(), y = alloc().cast<ffi::Tensor>();
  EXPECT_EQ(x.shape(), ffi::ShapeView({3, 4, 5}));
  EXPECT_EQ(x.device(), (DLDevice{kDLCUDA, 0}));
  std::vector<float> host(60);
  for (int i = 0; i < 60; ++i) host[i] = static_cast<float>(i);
  ASSERT_EQ(cudaMemcpy(x.data_ptr(), host.data(), 240, cudaMemcpyHostToDevice), cudaSuccess);
  mod->GetFunction("my_kernel_cuda").value()(x, y);
  std::vector<float> result(60);
  ASSERT_EQ(cudaMemcpy(result.data(), y.data_ptr(), 240, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(result[i], 2.0f * i);
}

TEST(SeedCUDA, AddOneCuda) {
  ffi::Function add_one_cuda = SeedsCUDA()->GetFunction("add_one_cuda").value();
  HostTensor flat({1, 2, 3, 4}), out({0, 0, 0, 0});
  int64_t shape2d[2] = {2, 2};
  DLTensor matrix = flat.dl;
  matrix.ndim = 2;
  matrix.shape = shape2d;
  ffi::Error e = ExpectError([&] { add_one_cuda(&matrix, &out.dl); });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_EQ(e.message(), "Check failed: (x.ndim() == 1) is false: x must be a 1D tensor");
  if (!HasGPU()) GTEST_SKIP() << "no CUDA device: only the validation was checked";

  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  int64_t shape[1] = {n};
  DLTensor x{dx, DLDevice{kDLCUDA, 0}, 1, kF32, shape, nullptr, 0};
  DLTensor y{dy, DLDevice{kDLCUDA, 0}, 1, kF32, shape, nullptr, 0};
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    ffi::StreamGuard guard(kDLCUDA, 0, stream);
    add_one_cuda(&x, &y);
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<float> result(n);
  ASSERT_EQ(cudaMemcpy(result.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) EXPECT_EQ(result[i], host[i] + 1) << i;
  cudaStreamDestroy(stream);
  cudaFree(dx);
  cudaFree(dy);
}
#endif  // FFI_SEED_CUDA_KERNELS

}  // namespace
