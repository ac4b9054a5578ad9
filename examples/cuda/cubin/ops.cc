// A kernel library compiled by the host C++ compiler: it launches `add_one` from the fatbin that
// the build linked into it (ffi_embed_cubin ... NAME example_kernels), on the host's current
// stream.
#include <ffi/extra/cuda/cubin_launcher.h>
#include <ffi/extra/cuda/device_guard.h>
#include <ffi/extra/cuda/stream.h>
#include <ffi/ffi.h>

TVM_FFI_EMBED_CUBIN(example_kernels);

namespace {

/*! \brief The kernel, loaded with its fatbin on first use (once per process) and kept. */
ffi::CubinKernel& AddOneKernel() {
  static ffi::CubinKernel kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(example_kernels, "add_one");
  return kernel;
}

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  if (x.dtype() != DLDataType{kDLFloat, 32, 1} || y.dtype() != x.dtype()) {
    FFI_THROW(TypeError) << "x and y must be float32, got " << x.dtype() << " and " << y.dtype();
  }
  if (x.device().device_type != kDLCUDA || y.device() != x.device()) {
    FFI_THROW(ValueError) << "x and y must be on the same CUDA device, got " << x.device()
                          << " and " << y.device();
  }
  if (x.shape() != y.shape() || !x.IsContiguous() || !y.IsContiguous()) {
    FFI_THROW(ValueError) << "x and y must be contiguous and of one shape";
  }
  int64_t n = x.numel();
  if (n == 0) return;
  ffi::CUDADeviceGuard guard(x.device());
  void* x_data = static_cast<char*>(x.data_ptr()) + x.byte_offset();
  void* y_data = static_cast<char*>(y.data_ptr()) + y.byte_offset();
  void* args[] = {&x_data, &y_data, &n};
  auto blocks = static_cast<unsigned>((n + 255) / 256);
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(AddOneKernel().Launch(
      args, ffi::dim3(blocks), ffi::dim3(256), ffi::GetCurrentCUDAStream(x.device())));
}

// Loads the fatbin now instead of at the first launch: a machine that cannot run it fails here.
void Preload() { (void)AddOneKernel(); }

}  // namespace

FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
FFI_DLL_EXPORT_TYPED_FUNC(preload, Preload);
