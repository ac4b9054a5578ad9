// CUDA: the helpers of <ffi/extra/cuda/> used from a host file and from an nvcc-built kernel
// library (kernels/cuda_kernels.cu). Without a GPU the checks that need none still run: errors name
// the CUDA call and the CUDA error text, streams come from the environment, arguments are
// validated. The GPU parts skip themselves when no device is usable. Built without a CUDA compiler,
// the suite is a single skipped test.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing.h"

#ifdef FFI_CUDA_KERNELS
#include <cuda_runtime.h>
#include <ffi/extra/cuda/allocator.h>
#include <ffi/extra/cuda/base.h>
#include <ffi/extra/cuda/device_guard.h>
#include <ffi/extra/cuda/stream.h>
#endif

namespace {

using namespace ffi_testing;

#ifndef FFI_CUDA_KERNELS

TEST(CUDA, BuiltWithoutCUDA) { GTEST_SKIP() << "CMake found no CUDA compiler"; }

#else

ffi::Module Kernels() { return ffi::Module::LoadFromFile(FFI_CUDA_KERNELS); }

constexpr DLDevice kGPU0{kDLCUDA, 0};

cudaError_t Fails() { return cudaErrorInvalidValue; }

TEST(CUDA, CheckMacroNamesTheCallAndTheError) {
  ffi::Error e = ExpectError([] { FFI_CUDA_CHECK(Fails()); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), std::string("CUDA call `Fails()` failed: cudaErrorInvalidValue: ") +
                             cudaGetErrorString(cudaErrorInvalidValue));
  EXPECT_NE(e.backtrace().find("test_cuda.cc"), std::string::npos) << e.backtrace();
  // More context can be streamed; success throws nothing.
  e = ExpectError([] { FFI_CUDA_CHECK(Fails()) << " (while testing)"; });
  EXPECT_NE(e.message().find("invalid argument (while testing)"), std::string::npos) << e.message();
  FFI_CUDA_CHECK(cudaSuccess);
}

TEST(CUDA, CurrentStreamComesFromTheEnvironment) {
  void* fake = reinterpret_cast<void*>(uintptr_t{0xabc0});
  ffi::Function current_stream = Kernels()->GetFunction("current_stream").value();
  EXPECT_EQ(ffi::GetCurrentCUDAStream(kGPU0), nullptr);
  EXPECT_EQ(current_stream(kGPU0).cast<void*>(), nullptr);
  {
    ffi::StreamGuard guard(kDLCUDA, 1, fake);
    EXPECT_EQ(ffi::GetCurrentCUDAStream(DLDevice{kDLCUDA, 1}), fake);
    EXPECT_EQ(current_stream(DLDevice{kDLCUDA, 1}).cast<void*>(), fake);
    EXPECT_EQ(current_stream(kGPU0).cast<void*>(), nullptr);
  }
  EXPECT_EQ(current_stream(DLDevice{kDLCUDA, 1}).cast<void*>(), nullptr);
}

TEST(CUDA, AllocatorRefusesOtherDevices) {
  ffi::Error e = ExpectError([] {
    ffi::Tensor::FromNDAlloc(ffi::CUDANDAlloc(), {4}, kF32, DLDevice{kDLCPU, 0});
  });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "CUDANDAlloc allocates on CUDA devices, but the tensor is on cpu");
}

TEST(CUDA, AllocatorRefusesSizesThatWouldWrapBeforeTouchingCUDA) {
  // OverflowError, not a CUDA error: the size is checked before any CUDA call, GPU or not.
  constexpr int64_t k2To32 = int64_t{1} << 32;
  ffi::Error e = ExpectError([] {
    ffi::Tensor::FromNDAlloc(ffi::CUDANDAlloc(), {k2To32, k2To32}, kF32, kGPU0);
  });
  EXPECT_EQ(e.kind(), "OverflowError");
  int64_t shape[] = {int64_t{1} << 61, 8};
  DLTensor t{nullptr, kGPU0, 2, kF32, shape, nullptr, 0};
  EXPECT_EQ(ExpectError([&] { ffi::CUDANDAlloc().AllocData(&t); }).kind(), "OverflowError");
  EXPECT_EQ(t.data, nullptr);
  shape[0] = -1;
  EXPECT_EQ(ExpectError([&] { ffi::CUDANDAlloc().AllocData(&t); }).kind(), "ValueError");
}

TEST(CUDA, AddOneValidatesItsArguments) {
  ffi::Function add_one = Kernels()->GetFunction("add_one_cuda").value();
  std::vector<float> data(4);
  int64_t shape[1] = {4};
  DLTensor cpu{data.data(), DLDevice{kDLCPU, 0}, 1, kF32, shape, nullptr, 0};
  DLTensor gpu{data.data(), kGPU0, 1, kF32, shape, nullptr, 0};
  ffi::Error e = ExpectError([&] { add_one(&cpu, &gpu); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "add_one_cuda expects CUDA tensors, but x is on cpu");
  DLTensor ints = gpu;
  ints.dtype = DLDataType{kDLInt, 32, 1};
  e = ExpectError([&] { add_one(&gpu, &ints); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "add_one_cuda expects float32 tensors, but y is int32");
  e = ExpectError([&] { add_one(&gpu, 1.5); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("add_one_cuda(0: Tensor, 1: Tensor) -> void"), std::string::npos)
      << e.message();
}

TEST(CUDA, WithoutAGPUCallsRaiseAClearError) {
  cudaError_t why = cudaSuccess;
  if (HasGPU(&why)) GTEST_SKIP() << "a CUDA device is present";
  ffi::Module mod = Kernels();
  EXPECT_EQ(mod->GetFunction("device_count").value()().cast<int64_t>(), 0);
  // FFI_CUDA_CHECK in the kernel library: RuntimeError naming the call and the CUDA error.
  ffi::Error e = ExpectError([&] { mod->GetFunction("malloc_free").value()(64); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), std::string("CUDA call `cudaMalloc(&ptr, n)` failed: ") +
                             cudaGetErrorName(why) + ": " + cudaGetErrorString(why));
  EXPECT_NE(e.backtrace().find("cuda_kernels.cu"), std::string::npos) << e.backtrace();
  // Allocating a tensor with CUDANDAlloc fails the same way, from whichever call fails first.
  e = ExpectError([&] { mod->GetFunction("alloc_cuda").value()(16); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message().rfind("CUDA call `cuda", 0), 0u) << e.message();
  EXPECT_NE(e.message().find(std::string(cudaGetErrorName(why)) + ": " + cudaGetErrorString(why)),
            std::string::npos)
      << e.message();
  // So does the device guard, here in the host's own code.
  e = ExpectError([] { ffi::CUDADeviceGuard guard(0); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message().rfind("CUDA call `cudaGetDevice(&previous_)` failed: ", 0), 0u)
      << e.message();
}

TEST(CUDA, AddOneOnTheGPU) {
  if (!HasGPU()) GTEST_SKIP() << "no CUDA device";
  ffi::Module mod = Kernels();
  EXPECT_GE(mod->GetFunction("device_count").value()().cast<int64_t>(), 1);
  const int64_t n = 1000;
  ffi::Tensor x = mod->GetFunction("alloc_cuda").value()(n).cast<ffi::Tensor>();
  ffi::Tensor y = mod->GetFunction("alloc_cuda").value()(n).cast<ffi::Tensor>();
  EXPECT_EQ(x.device(), kGPU0);
  EXPECT_EQ(x.shape(), ffi::ShapeView({n}));
  EXPECT_EQ(x.dtype(), kF32);
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.5f;
  FFI_CUDA_CHECK(cudaMemcpy(x.data_ptr(), host.data(), n * 4, cudaMemcpyHostToDevice));

  cudaStream_t stream = nullptr;
  FFI_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    // The kernel launches on the stream the host set, with owning tensors as arguments.
    ffi::StreamGuard guard(kDLCUDA, 0, stream);
    mod->GetFunction("add_one_cuda").value()(x, y);
  }
  FFI_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> result(n);
  FFI_CUDA_CHECK(cudaMemcpy(result.data(), y.data_ptr(), n * 4, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(result[i], host[i] + 1.0f) << i;

  // Borrowed DLTensor* views of the same memory work too (default stream).
  DLTensor vx = *x.dl_tensor(), vy = *y.dl_tensor();
  mod->GetFunction("add_one_cuda").value()(&vy, &vx);
  FFI_CUDA_CHECK(cudaDeviceSynchronize());
  FFI_CUDA_CHECK(cudaMemcpy(result.data(), x.data_ptr(), n * 4, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(result[i], host[i] + 2.0f) << i;
  FFI_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(CUDA, DeviceGuardRestoresTheDevice) {
  if (!HasGPU()) GTEST_SKIP() << "no CUDA device";
  int count = 0;
  FFI_CUDA_CHECK(cudaGetDeviceCount(&count));
  ffi::Function in_guard = Kernels()->GetFunction("device_in_guard").value();
  FFI_CUDA_CHECK(cudaSetDevice(0));
  EXPECT_EQ(in_guard(count - 1).cast<int64_t>(), count - 1);
  int current = -1;
  FFI_CUDA_CHECK(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);
  // An invalid device: the guard's constructor throws and nothing changes.
  ffi::Error e = ExpectError([&] { in_guard(count + 100); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("CUDA call `cudaSetDevice(device_id)` failed: cudaErrorInvalidDevice"),
            std::string::npos)
      << e.message();
  FFI_CUDA_CHECK(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);
}

#endif  // FFI_CUDA_KERNELS

}  // namespace
