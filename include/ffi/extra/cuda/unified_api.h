/*
 * ffi/extra/cuda/unified_api.h - ffi::cuda_api: the few CUDA calls the cubin launcher makes, on the
 * CUDA runtime API or the driver API, chosen at compile time.
 *
 * TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API (the reference's switch, same meaning) picks the API: 0 is
 * the runtime API (cudaLibrary_t, cudaError_t; links libcudart, the default from CUDA 12.8, the
 * first runtime with library loading), 1 the driver API (CUlibrary, CUresult; links libcuda, the
 * default before 12.8). Asking for the runtime API on an older runtime is a compile error.
 *
 * CUDA code only (see base.h); needs <cuda.h> as well as <cuda_runtime.h>.
 */
#ifndef FFI_EXTRA_CUDA_UNIFIED_API_H_
#define FFI_EXTRA_CUDA_UNIFIED_API_H_

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "base.h"

#ifndef TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
#if CUDART_VERSION >= 12080
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 0
#else
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 1
#endif
#elif !TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API && CUDART_VERSION < 12080
#error "TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=0 needs CUDA 12.8 or newer (cudaLibraryLoadData)"
#endif

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
/*! \brief The CUDA API the cubin launcher uses: handle types, result codes and thin wrappers. */
namespace cuda_api {

#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
/*! \brief A stream to launch on. */
using StreamHandle = CUstream;
/*! \brief A device, as the API names one. */
using DeviceHandle = CUdevice;
/*! \brief A loaded cubin or fatbin. */
using LibraryHandle = CUlibrary;
/*! \brief A kernel of a loaded library (valid in every context). */
using KernelHandle = CUkernel;
/*! \brief The configuration of an extended launch (LaunchKernelEx). */
using LaunchConfig = CUlaunchConfig;
/*! \brief What a call returns: kSuccess or an error code. */
using ResultType = CUresult;
/*! \brief One attribute of an extended launch (e.g. a cluster dimension). */
using LaunchAttrType = CUlaunchAttribute;
/*! \brief A device attribute to query. */
using DeviceAttrType = CUdevice_attribute;
/*! \brief The success code. */
constexpr ResultType kSuccess = CUDA_SUCCESS;
#else
/*! \brief A stream to launch on. */
using StreamHandle = cudaStream_t;
/*! \brief A device, as the API names one. */
using DeviceHandle = int;
/*! \brief A loaded cubin or fatbin. */
using LibraryHandle = cudaLibrary_t;
/*! \brief A kernel of a loaded library (valid on every device). */
using KernelHandle = cudaKernel_t;
/*! \brief The configuration of an extended launch (LaunchKernelEx). */
using LaunchConfig = cudaLaunchConfig_t;
/*! \brief What a call returns: kSuccess or an error code. */
using ResultType = cudaError_t;
/*! \brief One attribute of an extended launch (e.g. a cluster dimension). */
using LaunchAttrType = cudaLaunchAttribute;
/*! \brief A device attribute to query. */
using DeviceAttrType = cudaDeviceAttr;
/*! \brief The success code. */
constexpr ResultType kSuccess = cudaSuccess;
#endif

/*! \brief The name and description of `err` (e.g. "CUDA_ERROR_NO_DEVICE", "no CUDA-capable ...").
 */
inline void GetErrorString(ResultType err, const char** name, const char** str) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  // The driver does not know every code (and sets NULL then): fall back to a placeholder.
  if (cuGetErrorName(err, name) != CUDA_SUCCESS || *name == nullptr) *name = "CUDA_ERROR_UNKNOWN";
  if (cuGetErrorString(err, str) != CUDA_SUCCESS || *str == nullptr) *str = "unrecognized error";
#else
  *name = cudaGetErrorName(err);
  *str = cudaGetErrorString(err);
  (void)cudaGetLastError();  // the error is reported here; later checks must not see it again
#endif
}

namespace detail {
/*! \brief "CUDA call `<call>` failed: <error name>: <error text>", for either API. */
inline std::string ErrorText(const char* call, ResultType err) {
  const char* name = nullptr;
  const char* str = nullptr;
  GetErrorString(err, &name, &str);
  return std::string("CUDA call `") + call + "` failed: " + name + ": " + str;
}
}  // namespace detail

/*! \brief Loads a cubin, fatbin or PTX image from memory (its size is read from its header). */
inline ResultType LoadLibrary(LibraryHandle* library, const void* image) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryLoadData(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
#else
  return cudaLibraryLoadData(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
#endif
}

/*! \brief Loads a cubin, fatbin or PTX file. */
inline ResultType LoadLibraryFromFile(LibraryHandle* library, const char* path) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryLoadFromFile(library, path, nullptr, nullptr, 0, nullptr, nullptr, 0);
#else
  return cudaLibraryLoadFromFile(library, path, nullptr, nullptr, 0, nullptr, nullptr, 0);
#endif
}

/*! \brief Unloads a library loaded by LoadLibrary or LoadLibraryFromFile. */
inline ResultType UnloadLibrary(LibraryHandle library) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryUnload(library);
#else
  return cudaLibraryUnload(library);
#endif
}

/*! \brief The kernel `name` (its mangled name, or the plain name of an extern "C" kernel). */
inline ResultType GetKernel(KernelHandle* kernel, LibraryHandle library, const char* name) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryGetKernel(kernel, library, name);
#else
  return cudaLibraryGetKernel(kernel, library, name);
#endif
}

/*! \brief The handle of device ordinal `device_id`; throws RuntimeError when there is none. */
inline DeviceHandle GetDeviceHandle(int device_id) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  CUdevice device = 0;
  ResultType err = cuDeviceGet(&device, device_id);
  if (err != kSuccess) FFI_THROW(RuntimeError) << detail::ErrorText("cuDeviceGet", err);
  return device;
#else
  return device_id;
#endif
}

/*!
 * \brief Launches `kernel` on `stream` (asynchronously); `args` holds one pointer per kernel
 * parameter, pointing at its value.
 */
inline ResultType LaunchKernel(KernelHandle kernel, void** args, dim3 grid, dim3 block,
                               StreamHandle stream, uint32_t dyn_smem_bytes = 0) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  // A CUkernel may stand in for a CUfunction: the driver picks the current context's function.
  return cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), grid.x, grid.y, grid.z, block.x,
                        block.y, block.z, dyn_smem_bytes, stream, args, nullptr);
#else
  // The runtime takes a cudaKernel_t where it takes a kernel's address.
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), ::dim3(grid.x, grid.y, grid.z),
                          ::dim3(block.x, block.y, block.z), args, dyn_smem_bytes, stream);
#endif
}

/*! \brief Writes the static shared memory `kernel` uses on `device` (bytes) to `out`. */
inline ResultType GetKernelSharedMem(KernelHandle kernel, int& out, DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuKernelGetAttribute(&out, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel, device);
#else
  (void)device;  // the same on every device
  cudaFuncAttributes attributes{};
  cudaError_t err = cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel));
  if (err == cudaSuccess) out = static_cast<int>(attributes.sharedSizeBytes);
  return err;
#endif
}

/*! \brief Lets launches of `kernel` on `device` ask for up to `shmem` bytes of dynamic shared
 * memory. */
inline ResultType SetKernelMaxDynamicSharedMem(KernelHandle kernel, int shmem,
                                               DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shmem, kernel,
                              device);
#else
  return cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem,
                                         device);
#endif
}

/*! \brief Launches `kernel` with an extended configuration (see ConstructLaunchConfig). */
inline ResultType LaunchKernelEx(KernelHandle kernel, void** args, const LaunchConfig& config) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLaunchKernelEx(&config, reinterpret_cast<CUfunction>(kernel), args, nullptr);
#else
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), args);
#endif
}

/*!
 * \brief Fills `config` for LaunchKernelEx: grid, block, dynamic shared memory and stream, plus a
 * cluster of `cluster_dim` blocks along x when it is above 1 (SM 9.0 and newer), stored in `attr`,
 * which must outlive the launch. `kernel` is unused; it is taken for the reference's signature.
 */
inline ResultType ConstructLaunchConfig(KernelHandle kernel, StreamHandle stream,
                                        uint32_t smem_size, dim3 grid, dim3 block, int cluster_dim,
                                        LaunchConfig& config, LaunchAttrType& attr) {
  (void)kernel;
  config = LaunchConfig{};
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = block.x;
  config.blockDimY = block.y;
  config.blockDimZ = block.z;
  config.sharedMemBytes = smem_size;
  config.hStream = stream;
  if (cluster_dim > 1) {
    attr = LaunchAttrType{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = static_cast<unsigned>(cluster_dim);
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
#else
  config.gridDim = ::dim3(grid.x, grid.y, grid.z);
  config.blockDim = ::dim3(block.x, block.y, block.z);
  config.dynamicSmemBytes = smem_size;
  config.stream = stream;
  if (cluster_dim > 1) {
    attr = LaunchAttrType{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(cluster_dim);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
#endif
  return kSuccess;
}

/*! \brief The number of devices. */
inline ResultType GetDeviceCount(int* count) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuDeviceGetCount(count);
#else
  return cudaGetDeviceCount(count);
#endif
}

/*! \brief Reads attribute `attr` of `device` into `value`. */
inline ResultType GetDeviceAttribute(int* value, DeviceAttrType attr, DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuDeviceGetAttribute(value, attr, device);
#else
  return cudaDeviceGetAttribute(value, attr, device);
#endif
}

}  // namespace cuda_api
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Evaluates `stmt`, a cuda_api::ResultType (a cudaError_t or a CUresult, whichever API the
 * launcher uses), and throws RuntimeError unless it succeeded, naming the call and the error:
 * "CUDA call `kernel.Launch(args, grid, block, stream)` failed: cudaErrorNoDevice: ...". Context
 * may be streamed after it, as with FFI_CUDA_CHECK.
 */
#define TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(stmt)                 \
  if (::tvm::ffi::cuda_api::ResultType _ffi_cubin_err = (stmt);       \
      FFI_LIKELY(_ffi_cubin_err == ::tvm::ffi::cuda_api::kSuccess)) { \
  } else                                                              \
    FFI_THROW(RuntimeError) << ::tvm::ffi::cuda_api::detail::ErrorText(#stmt, _ffi_cubin_err)

#endif  // FFI_EXTRA_CUDA_UNIFIED_API_H_
