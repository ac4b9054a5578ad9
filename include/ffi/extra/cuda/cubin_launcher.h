/*
 * ffi/extra/cuda/cubin_launcher.h - load compiled CUDA code (a cubin or fatbin) and launch its
 * kernels without compiling the library itself with nvcc.
 *
 *   ffi::CubinModule mod = ffi::CubinModule::LoadFromFile("kernels.fatbin");   // or from memory
 *   ffi::CubinKernel add_one = mod["add_one"];           // an extern "C" __global__ function
 *   void* args[] = {&x_ptr, &y_ptr, &n};                 // a pointer to each parameter's value
 *   TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(add_one.Launch(args, ffi::dim3((n + 255) / 256),
 *                                                          ffi::dim3(256), stream));
 *
 * `stream` is usually the host's current stream, ffi::GetCurrentCUDAStream(x.device()) (stream.h).
 * A cubin can also be linked into the library that launches it (TVM_FFI_EMBED_CUBIN below; the
 * CMake function ffi_embed_cubin of ffi's CMake package adds one to a target). Loading is
 * per-process and happens on first use; every device shares the loaded code.
 *
 * CUDA code only (see base.h); needs <cuda.h> as well as <cuda_runtime.h>, and links libcudart
 * (or libcuda with TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1; see unified_api.h).
 */
#ifndef FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
#define FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_

#include <cstdint>
#include <cstdio>

#include "../../optional.h"
#include "../../string.h"
#include "base.h"
#include "unified_api.h"

/*!
 * \brief Declares the cubin or fatbin embedded in this library under `name`: the data between the
 * symbols `__tvm_ffi__cubin_<name>` and `__tvm_ffi__cubin_<name>_end`, which ffi_embed_cubin
 * (CMake) or the reference's embed_cubin tool define. It is loaded on the first
 * TVM_FFI_EMBED_CUBIN_GET_KERNEL(name, ...) call; a failed load throws there and is tried again
 * on the next call. Write it once per translation unit, at namespace scope.
 */
#define TVM_FFI_EMBED_CUBIN(name)                        \
  extern "C" const char __tvm_ffi__cubin_##name[];       \
  extern "C" const char __tvm_ffi__cubin_##name##_end[]; \
  TVM_FFI_EMBED_CUBIN_FROM_BYTES(name, __tvm_ffi__cubin_##name)

/*!
 * \brief Declares a cubin or fatbin image held in the array `image_bytes` (e.g. from bin2c or
 * #embed) under `name`, for TVM_FFI_EMBED_CUBIN_GET_KERNEL; loaded on first use.
 */
#define TVM_FFI_EMBED_CUBIN_FROM_BYTES(name, image_bytes)          \
  namespace {                                                      \
  struct FfiEmbeddedCubin_##name {                                 \
    static ::tvm::ffi::CubinModule& Get() {                        \
      static ::tvm::ffi::CubinModule module_for_name(image_bytes); \
      return module_for_name;                                      \
    }                                                              \
  };                                                               \
  }

/*!
 * \brief The kernel `kernel_name` (a C string) of the cubin declared by TVM_FFI_EMBED_CUBIN(name),
 * as a CubinKernel. The lookup costs a CUDA call: keep the result,
 * `static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(my_kernels, "add_one");`.
 */
#define TVM_FFI_EMBED_CUBIN_GET_KERNEL(name, kernel_name) \
  (FfiEmbeddedCubin_##name::Get()[kernel_name])

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

class CubinKernel;

/*!
 * \brief A loaded cubin, fatbin or PTX image (a CUDA library); unloaded when destroyed. Movable,
 * not copyable. Failures throw RuntimeError naming the CUDA call and error (no GPU or driver, an
 * image that is not CUDA code, a kernel that is not there); bad arguments throw ValueError.
 */
class CubinModule {
 public:
  /*! \brief Loads the image held in `bytes`, which the module keeps alive. */
  explicit CubinModule(const Bytes& bytes) : image_(bytes) {
    if (bytes.empty()) FFI_THROW(ValueError) << "CubinModule: the image is empty";
    Load(bytes.data());
  }
  /*! \brief Loads the image at `code` (its size is read from its header); not kept alive. */
  explicit CubinModule(const char* code) { Load(code); }
  /*! \brief Loads the image at `code`, as above. */
  explicit CubinModule(const unsigned char* code) { Load(code); }

  /*! \brief Loads the cubin, fatbin or PTX file at `path`. */
  static CubinModule LoadFromFile(const String& path) {
    // Checked here so that a wrong path is reported as such even where CUDA cannot start.
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
      FFI_THROW(RuntimeError) << "CubinModule: cannot open `" << path << "`";
    }
    std::fclose(file);
    CubinModule mod;
    cuda_api::ResultType err = cuda_api::LoadLibraryFromFile(&mod.library_, path.c_str());
    if (err != cuda_api::kSuccess) {
      FFI_THROW(RuntimeError) << "CubinModule: loading `" << path
                              << "` failed: " << cuda_api::detail::ErrorText(kLoadFileCall, err);
    }
    return mod;
  }

  /*! \brief Unloads the image (errors ignored: a destructor must not throw). */
  ~CubinModule() { Unload(); }

  CubinModule(const CubinModule&) = delete;
  CubinModule& operator=(const CubinModule&) = delete;
  /*! \brief Takes over `other`'s image, leaving `other` empty. */
  CubinModule(CubinModule&& other) noexcept
      : library_(other.library_), image_(std::move(other.image_)) {
    other.library_ = nullptr;
  }
  /*! \brief Unloads this module's image and takes over `other`'s. */
  CubinModule& operator=(CubinModule&& other) noexcept {
    if (this != &other) {
      Unload();
      library_ = other.library_;
      image_ = std::move(other.image_);
      other.library_ = nullptr;
    }
    return *this;
  }

  /*! \brief The kernel `name`: its mangled name, or the plain name of an extern "C" kernel. */
  CubinKernel GetKernel(const char* name);
  /*!
   * \brief The kernel `name`, allowed to use up to `dynamic_smem_max` bytes of dynamic shared
   * memory on every device; -1 means all the device allows per block (its opt-in maximum) less
   * the kernel's static shared memory. Throws RuntimeError only when no device accepted it.
   */
  CubinKernel GetKernelWithMaxDynamicSharedMemory(const char* name, int64_t dynamic_smem_max = -1);
  /*! \brief GetKernel(name). */
  CubinKernel operator[](const char* name);

  /*! \brief The CUDA library handle (null once moved from). */
  cuda_api::LibraryHandle GetHandle() const { return library_; }

 private:
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  static constexpr const char* kLoadCall = "cuLibraryLoadData";
  static constexpr const char* kLoadFileCall = "cuLibraryLoadFromFile";
#else
  static constexpr const char* kLoadCall = "cudaLibraryLoadData";
  static constexpr const char* kLoadFileCall = "cudaLibraryLoadFromFile";
#endif
  CubinModule() = default;

  void Load(const void* code) {
    if (code == nullptr) FFI_THROW(ValueError) << "CubinModule: the image pointer is null";
    cuda_api::ResultType err = cuda_api::LoadLibrary(&library_, code);
    if (err != cuda_api::kSuccess) {
      FFI_THROW(RuntimeError) << "CubinModule: loading the image failed: "
                              << cuda_api::detail::ErrorText(kLoadCall, err);
    }
  }
  void Unload() noexcept {
    if (library_ != nullptr) (void)cuda_api::UnloadLibrary(library_);
    library_ = nullptr;
  }

  cuda_api::LibraryHandle library_ = nullptr;
  /*! \brief The image this module was loaded from, when it was given as Bytes. */
  Optional<Bytes> image_;
};

/*!
 * \brief A kernel of a CubinModule, valid while the module is loaded. Movable, not copyable.
 */
class CubinKernel {
 public:
  /*! \brief The kernel `name` of `library`; throws RuntimeError when it has no such kernel. */
  CubinKernel(cuda_api::LibraryHandle library, const char* name) {
    if (library == nullptr) FFI_THROW(ValueError) << "CubinKernel: the module is not loaded";
    if (name == nullptr) FFI_THROW(ValueError) << "CubinKernel: the kernel name is null";
    cuda_api::ResultType err = cuda_api::GetKernel(&kernel_, library, name);
    if (err != cuda_api::kSuccess) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
      const char* call = "cuLibraryGetKernel";
#else
      const char* call = "cudaLibraryGetKernel";
#endif
      FFI_THROW(RuntimeError) << "CubinKernel: getting kernel `" << name
                              << "` failed: " << cuda_api::detail::ErrorText(call, err);
    }
  }
  ~CubinKernel() = default;  // kernels belong to their library
  CubinKernel(const CubinKernel&) = delete;
  CubinKernel& operator=(const CubinKernel&) = delete;
  /*! \brief Takes over `other`'s handle, leaving `other` empty. */
  CubinKernel(CubinKernel&& other) noexcept : kernel_(other.kernel_) { other.kernel_ = nullptr; }
  /*! \brief Takes over `other`'s handle. */
  CubinKernel& operator=(CubinKernel&& other) noexcept {
    if (this != &other) {
      kernel_ = other.kernel_;
      other.kernel_ = nullptr;
    }
    return *this;
  }

  /*!
   * \brief Launches the kernel on `stream` (asynchronously) on the current device, with `grid`
   * blocks of `block` threads and `dyn_smem_bytes` of dynamic shared memory. `args` holds, for
   * each kernel parameter in order, a pointer to its value. Returns the API's result code: check
   * it with TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR.
   */
  cuda_api::ResultType Launch(void** args, dim3 grid, dim3 block, cuda_api::StreamHandle stream,
                              uint32_t dyn_smem_bytes = 0) {
    return cuda_api::LaunchKernel(kernel_, args, grid, block, stream, dyn_smem_bytes);
  }
  /*! \brief Launches with an extended configuration (cuda_api::ConstructLaunchConfig). */
  cuda_api::ResultType LaunchEx(void** args, const cuda_api::LaunchConfig& config) {
    return cuda_api::LaunchKernelEx(kernel_, args, config);
  }

  /*! \brief The CUDA kernel handle (null once moved from). */
  cuda_api::KernelHandle GetHandle() const { return kernel_; }

 private:
  friend class CubinModule;

  /*! \brief See CubinModule::GetKernelWithMaxDynamicSharedMemory. */
  void SetMaxDynamicSharedMemory(int64_t dynamic_smem_max) {
    if (dynamic_smem_max < -1 || dynamic_smem_max > INT32_MAX) {
      FFI_THROW(ValueError) << "CubinKernel: dynamic shared memory must be -1 or in [0, 2^31), got "
                            << dynamic_smem_max;
    }
    int count = 0;
    if (cuda_api::GetDeviceCount(&count) != cuda_api::kSuccess || count == 0) return;
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
    const auto kOptinMax = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
#else
    const auto kOptinMax = cudaDevAttrMaxSharedMemoryPerBlockOptin;
#endif
    bool any = false;
    for (int id = 0; id < count; ++id) {
      // A device that refuses is skipped: a process may use only some of its GPUs.
      cuda_api::DeviceHandle device = cuda_api::GetDeviceHandle(id);
      int bytes = static_cast<int>(dynamic_smem_max);
      if (dynamic_smem_max == -1) {
        int device_max = 0, static_bytes = 0;
        if (cuda_api::GetDeviceAttribute(&device_max, kOptinMax, device) != cuda_api::kSuccess ||
            cuda_api::GetKernelSharedMem(kernel_, static_bytes, device) != cuda_api::kSuccess) {
          continue;
        }
        bytes = device_max > static_bytes ? device_max - static_bytes : 0;
      }
      any |= cuda_api::SetKernelMaxDynamicSharedMem(kernel_, bytes, device) == cuda_api::kSuccess;
    }
    if (!any) {
      FFI_THROW(RuntimeError) << "CubinKernel: no device accepted a maximum of " << dynamic_smem_max
                              << " bytes of dynamic shared memory";
    }
  }

  cuda_api::KernelHandle kernel_ = nullptr;
};

inline CubinKernel CubinModule::GetKernel(const char* name) { return CubinKernel(library_, name); }

inline CubinKernel CubinModule::GetKernelWithMaxDynamicSharedMemory(const char* name,
                                                                    int64_t dynamic_smem_max) {
  CubinKernel kernel(library_, name);
  kernel.SetMaxDynamicSharedMemory(dynamic_smem_max);
  return kernel;
}

inline CubinKernel CubinModule::operator[](const char* name) { return GetKernel(name); }

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
