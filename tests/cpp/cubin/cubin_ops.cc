// A kernel library compiled by the host C++ compiler (no nvcc) that launches kernels of a fatbin
// linked into it at build time (ffi_embed_cubin, NAME add_one_fatbin) or loaded at run time from
// a file or from bytes (the reference-built one reads the file itself: its launcher has no
// LoadFromFile). Written in the reference's vocabulary (<tvm/ffi/...>, tvm::ffi, TVM_FFI_*)
// so that it builds against either implementation's headers; loaded by test_cubin_launcher.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/cubin_launcher.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

TVM_FFI_EMBED_CUBIN(add_one_fatbin);

namespace {

namespace ffi = tvm::ffi;

void CheckVectors(const ffi::TensorView& x, const ffi::TensorView& y) {
  if (x.device().device_type != kDLCUDA || y.device().device_type != kDLCUDA) {
    TVM_FFI_THROW(ValueError) << "x and y must be CUDA tensors";
  }
  if (x.ndim() != 1 || y.ndim() != 1 || x.size(0) != y.size(0)) {
    TVM_FFI_THROW(ValueError) << "x and y must be vectors of one length";
  }
}

cudaStream_t StreamOf(const ffi::TensorView& x) {
  return static_cast<cudaStream_t>(
      TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
}

void LaunchAddOne(ffi::CubinKernel& kernel, const ffi::TensorView& x, const ffi::TensorView& y) {
  CheckVectors(x, y);
  void* x_data = x.data_ptr();
  void* y_data = y.data_ptr();
  int64_t n = x.size(0);
  void* args[] = {&x_data, &y_data, &n};
  auto blocks = static_cast<unsigned>((n + 127) / 128);
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
      kernel.Launch(args, ffi::dim3(blocks), ffi::dim3(128), StreamOf(x)));
}

// y = x + 1 with the kernel of the embedded fatbin, on the environment's stream for x's device.
void AddOneEmbedded(ffi::TensorView x, ffi::TensorView y) {
  static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(add_one_fatbin, "add_one");
  LaunchAddOne(kernel, x, y);
}

// The same with a module loaded from an image in memory (a cubin or fatbin given as bytes).
void AddOneFromBytes(ffi::Bytes image, ffi::TensorView x, ffi::TensorView y) {
  ffi::CubinModule mod(image);
  ffi::CubinKernel kernel = mod["add_one"];
  LaunchAddOne(kernel, x, y);
  // The module is unloaded on return: wait for the kernel first.
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(cudaStreamSynchronize(StreamOf(x)));
}

// y = x * k through dynamic shared memory, with the extended launch API, the module loaded from
// a file and the kernel allowed the most dynamic shared memory the device has.
void ScaleFromFile(std::string path, ffi::TensorView x, ffi::TensorView y, double k) {
  CheckVectors(x, y);
#ifdef FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
  ffi::CubinModule mod = ffi::CubinModule::LoadFromFile(path);
#else  // the reference's launcher loads from memory only
  std::ifstream in(path, std::ios::binary);
  ffi::CubinModule mod{ffi::Bytes(std::string(std::istreambuf_iterator<char>(in), {}))};
#endif
  ffi::CubinKernel kernel = mod.GetKernelWithMaxDynamicSharedMemory("scale_via_shared");
  void* x_data = x.data_ptr();
  void* y_data = y.data_ptr();
  float factor = static_cast<float>(k);
  int64_t n = x.size(0);
  void* args[] = {&x_data, &y_data, &factor, &n};
  constexpr unsigned kThreads = 64;
  ffi::cuda_api::LaunchConfig config;
  ffi::cuda_api::LaunchAttrType attr;
  ffi::cuda_api::ConstructLaunchConfig(
      kernel.GetHandle(), StreamOf(x), kThreads * sizeof(float),
      ffi::dim3(static_cast<unsigned>((n + kThreads - 1) / kThreads)), ffi::dim3(kThreads), 1,
      config, attr);
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(kernel.LaunchEx(args, config));
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(cudaStreamSynchronize(StreamOf(x)));
}

// Looks up `name` in the embedded fatbin (a missing kernel is an error).
void GetEmbeddedKernel(std::string name) {
  (void)TVM_FFI_EMBED_CUBIN_GET_KERNEL(add_one_fatbin, name.c_str());
}

// The bytes linked in under __tvm_ffi__cubin_add_one_fatbin: the fatbin file's contents. Needs no
// GPU: it only reads the library's own data.
ffi::Bytes EmbeddedImage() {
  const char* begin = __tvm_ffi__cubin_add_one_fatbin;
  const char* end = __tvm_ffi__cubin_add_one_fatbin_end;
  return ffi::Bytes(std::string(begin, static_cast<size_t>(end - begin)));
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_embedded, AddOneEmbedded);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_from_bytes, AddOneFromBytes);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_from_file, ScaleFromFile);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(get_embedded_kernel, GetEmbeddedKernel);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(embedded_image, EmbeddedImage);
