// The cubin launcher (<ffi/extra/cuda/cubin_launcher.h>): a fatbin compiled by nvcc and linked
// into a kernel library built by the host compiler (ffi_embed_cubin), in a library built with our
// headers and one built with the reference's, plus CubinModule used directly by this host.
// Without a GPU: the embedded bytes are the fatbin's, argument errors are ValueErrors, and using
// CUDA raises a RuntimeError naming the CUDA call, every time, instead of crashing. With a GPU the
// kernels run and their results are checked. Built without a CUDA compiler, it is one skipped test.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing.h"

#ifdef FFI_CUBIN_OPS
#include <ffi/extra/cuda/cubin_launcher.h>
#include <ffi/extra/cuda/stream.h>
#endif

namespace {

using namespace ffi_testing;

#ifndef FFI_CUBIN_OPS

TEST(CubinLauncher, BuiltWithoutCUDA) { GTEST_SKIP() << "CMake found no CUDA compiler"; }

#else

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/*! \brief The kernel libraries under test: ours, and the reference-built one when there is one. */
std::vector<std::string> OpsLibraries() {
  std::vector<std::string> libs{FFI_CUBIN_OPS};
  if (std::string(FFI_CUBIN_OPS_REFERENCE).size() > 0) libs.emplace_back(FFI_CUBIN_OPS_REFERENCE);
  return libs;
}

cudaError_t NoDeviceReason() {
  cudaError_t why = cudaSuccess;
  HasGPU(&why);
  return why;
}

TEST(CubinLauncher, TheEmbeddedImageIsTheFatbin) {
  std::string fatbin = ReadFile(FFI_CUBIN_FATBIN);
  ASSERT_GT(fatbin.size(), 64u);
  for (const std::string& lib : OpsLibraries()) {
    ffi::Module mod = ffi::Module::LoadFromFile(lib);
    ffi::Bytes image = mod->GetFunction("embedded_image").value()().cast<ffi::Bytes>();
    EXPECT_EQ(image.size(), fatbin.size()) << lib;
    EXPECT_TRUE(image.view() == fatbin) << lib;
  }
}

TEST(CubinLauncher, ArgumentErrorsNeedNoGPU) {
  ffi::Error e = ExpectError([] { ffi::CubinModule mod(static_cast<const char*>(nullptr)); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "CubinModule: the image pointer is null");
  e = ExpectError([] { ffi::CubinModule mod{ffi::Bytes()}; });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "CubinModule: the image is empty");
  e = ExpectError([] { ffi::CubinModule::LoadFromFile("/nonexistent/kernels.cubin"); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "CubinModule: cannot open `/nonexistent/kernels.cubin`");
  e = ExpectError([] { ffi::CubinKernel kernel(nullptr, "add_one"); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "CubinKernel: the module is not loaded");
}

TEST(CubinLauncher, CheckMacroNamesTheCallAndTheError) {
  ffi::Error e = ExpectError([] {
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(ffi::cuda_api::ResultType(cudaErrorInvalidValue));
  });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(),
            std::string("CUDA call `ffi::cuda_api::ResultType(cudaErrorInvalidValue)` failed: "
                        "cudaErrorInvalidValue: ") +
                cudaGetErrorString(cudaErrorInvalidValue));
  e = ExpectError([] {
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(cudaErrorInvalidValue) << " (launching add_one)";
  });
  EXPECT_NE(e.message().find("invalid argument (launching add_one)"), std::string::npos)
      << e.message();
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(ffi::cuda_api::kSuccess);
}

TEST(CubinLauncher, DimDefaultsToOne) {
  ffi::dim3 d;
  EXPECT_EQ(d.x + d.y + d.z, 3u);
  ffi::dim3 g(7), b(8, 4), c(2, 3, 5);
  EXPECT_EQ(g.x * 100 + g.y * 10 + g.z, 711u);
  EXPECT_EQ(b.x * 100 + b.y * 10 + b.z, 841u);
  EXPECT_EQ(c.x * 100 + c.y * 10 + c.z, 235u);
}

/*! \brief `e` names the CUDA error that keeps this machine from using CUDA (the reference words
 * the rest of its messages differently). */
void ExpectNamesTheError(const ffi::Error& e, const std::string& lib) {
  EXPECT_NE(e.message().find(cudaGetErrorName(NoDeviceReason())), std::string::npos)
      << lib << ": " << e.message();
  EXPECT_NE(e.message().find(cudaGetErrorString(NoDeviceReason())), std::string::npos)
      << lib << ": " << e.message();
}

TEST(CubinLauncher, WithoutAGPULoadingRaisesAClearErrorEveryTime) {
  if (HasGPU()) GTEST_SKIP() << "a CUDA device is present";
  const std::string why =
      std::string(cudaGetErrorName(NoDeviceReason())) + ": " + cudaGetErrorString(NoDeviceReason());
  // In this host: from memory and from a file.
  std::string fatbin = ReadFile(FFI_CUBIN_FATBIN);
  ffi::Error e = ExpectError([&] { ffi::CubinModule mod{ffi::Bytes(fatbin)}; });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(
      e.message(),
      "CubinModule: loading the image failed: CUDA call `cudaLibraryLoadData` failed: " + why);
  e = ExpectError([] { ffi::CubinModule::LoadFromFile(FFI_CUBIN_CUBIN); });
  EXPECT_EQ(e.message(), std::string("CubinModule: loading `") + FFI_CUBIN_CUBIN +
                             "` failed: CUDA call `cudaLibraryLoadFromFile` failed: " + why);
  // In the kernel libraries: the embedded fatbin, twice (the lazy load is tried again), and a
  // module loaded from bytes.
  float data[4] = {0, 0, 0, 0};
  int64_t shape[1] = {4};
  DLTensor x{data, DLDevice{kDLCUDA, 0}, 1, kF32, shape, nullptr, 0};
  for (const std::string& lib : OpsLibraries()) {
    ffi::Module mod = ffi::Module::LoadFromFile(lib);
    ffi::Function add_one = mod->GetFunction("add_one_embedded").value();
    for (int i = 0; i < 2; ++i) {
      e = ExpectError([&] { add_one(&x, &x); });
      EXPECT_EQ(e.kind(), "RuntimeError") << lib;
      ExpectNamesTheError(e, lib);
    }
    e = ExpectError(
        [&] { mod->GetFunction("add_one_from_bytes").value()(ffi::Bytes(fatbin), &x, &x); });
    EXPECT_EQ(e.kind(), "RuntimeError") << lib;
    ExpectNamesTheError(e, lib);
  }
}

/*! \brief A float32 CUDA vector holding `values`, freed with the tensor. */
ffi::Tensor ToGPU(const std::vector<float>& values) {
  struct Alloc {
    void AllocData(DLTensor* t) { FFI_CUDA_CHECK(cudaMalloc(&t->data, ffi::GetDataSize(*t))); }
    void FreeData(DLTensor* t) { (void)cudaFree(t->data); }
  };
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(Alloc(), {static_cast<int64_t>(values.size())}, kF32,
                                           DLDevice{kDLCUDA, 0});
  FFI_CUDA_CHECK(cudaMemcpy(t.data_ptr(), values.data(), values.size() * sizeof(float),
                            cudaMemcpyHostToDevice));
  return t;
}

std::vector<float> ToHost(const ffi::Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  FFI_CUDA_CHECK(cudaDeviceSynchronize());
  FFI_CUDA_CHECK(
      cudaMemcpy(out.data(), t.data_ptr(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

TEST(CubinLauncher, KernelsRunOnTheGPU) {
  if (!HasGPU()) GTEST_SKIP() << "no CUDA device";
  const int64_t n = 1000;
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.25f;
  std::string fatbin = ReadFile(FFI_CUBIN_FATBIN);
  for (const std::string& lib : OpsLibraries()) {
    ffi::Module mod = ffi::Module::LoadFromFile(lib);
    ffi::Tensor x = ToGPU(host), y = ToGPU(std::vector<float>(n, -1.0f));
    cudaStream_t stream = nullptr;
    FFI_CUDA_CHECK(cudaStreamCreate(&stream));
    {
      // The embedded kernel launches on the environment's stream.
      ffi::StreamGuard guard(kDLCUDA, 0, stream);
      mod->GetFunction("add_one_embedded").value()(x, y);
    }
    FFI_CUDA_CHECK(cudaStreamSynchronize(stream));
    FFI_CUDA_CHECK(cudaStreamDestroy(stream));
    std::vector<float> out = ToHost(y);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], host[i] + 1.0f) << lib << " " << i;

    mod->GetFunction("add_one_from_bytes").value()(ffi::Bytes(fatbin), y, x);
    out = ToHost(x);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], host[i] + 2.0f) << lib << " " << i;

    mod->GetFunction("scale_from_file").value()(std::string(FFI_CUBIN_CUBIN), x, y, 3.0);
    out = ToHost(y);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (host[i] + 2.0f) * 3.0f) << lib << " " << i;

    ffi::Error e = ExpectError([&] { mod->GetFunction("get_embedded_kernel").value()("nope"); });
    EXPECT_EQ(e.kind(), "RuntimeError") << lib;
  }
}

TEST(CubinLauncher, ModulesAndKernelsMoveAndReportMissingKernels) {
  if (!HasGPU()) GTEST_SKIP() << "no CUDA device";
  ffi::CubinModule a = ffi::CubinModule::LoadFromFile(FFI_CUBIN_CUBIN);
  ffi::CubinModule b(std::move(a));
  EXPECT_EQ(a.GetHandle(), nullptr);
  ASSERT_NE(b.GetHandle(), nullptr);
  ffi::CubinKernel k = b["add_one"];
  ffi::CubinKernel k2(std::move(k));
  EXPECT_EQ(k.GetHandle(), nullptr);
  EXPECT_NE(k2.GetHandle(), nullptr);
  ffi::Error e = ExpectError([&] { b.GetKernel("no_such_kernel"); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message().rfind("CubinKernel: getting kernel `no_such_kernel` failed: CUDA call "
                              "`cudaLibraryGetKernel` failed: ",
                              0),
            0u)
      << e.message();
  // The launch itself, from this host, on the current stream of device 0.
  ffi::Tensor x = ToGPU({1, 2, 3}), y = ToGPU({0, 0, 0});
  void* xp = x.data_ptr();
  void* yp = y.data_ptr();
  int64_t n = 3;
  void* args[] = {&xp, &yp, &n};
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
      k2.Launch(args, ffi::dim3(1), ffi::dim3(32), ffi::GetCurrentCUDAStream({kDLCUDA, 0})));
  EXPECT_EQ(ToHost(y), (std::vector<float>{2, 3, 4}));
}

#endif  // FFI_CUBIN_OPS

}  // namespace
