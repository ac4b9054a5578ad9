/*
 * ffi/extra/cuda/base.h - the CUDA basics every CUDA helper builds on: FFI_CUDA_CHECK, which turns
 * a failed CUDA runtime call into an ffi::Error, and ffi::dim3, a launch extent usable without the
 * CUDA compiler.
 *
 * Only for translation units that can see the CUDA runtime headers: .cu files compiled by nvcc,
 * or C++ files compiled with the CUDA include directory (e.g. linked to CMake's CUDA::cudart).
 * Code using it links the CUDA runtime (libcudart). ffi.h does not include the CUDA helpers, so
 * the rest of the API never depends on CUDA.
 */
#ifndef FFI_EXTRA_CUDA_BASE_H_
#define FFI_EXTRA_CUDA_BASE_H_

#include <cuda_runtime.h>

#include <string>

#include "../../error.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {
/*!
 * \brief "CUDA call `<call>` failed: <error name>: <error text>". Also clears the thread's last
 * CUDA error so that a later cudaGetLastError() does not report the same failure again.
 */
inline std::string CUDAErrorText(const char* call, cudaError_t err) {
  (void)cudaGetLastError();
  return std::string("CUDA call `") + call + "` failed: " + cudaGetErrorName(err) + ": " +
         cudaGetErrorString(err);
}
}  // namespace detail

/*!
 * \brief Evaluates `expr`, a cudaError_t, and throws an ffi::Error of kind RuntimeError unless it
 * is cudaSuccess. The message names the call and the CUDA error, e.g.
 * "CUDA call `cudaMalloc(&ptr, n)` failed: cudaErrorNoDevice: no CUDA-capable device is detected".
 * More context may be streamed: `FFI_CUDA_CHECK(cudaMemcpy(...)) << " while copying x";`.
 */
#define FFI_CUDA_CHECK(expr)                                                          \
  if (cudaError_t _ffi_cuda_err = (expr); FFI_LIKELY(_ffi_cuda_err == cudaSuccess)) { \
  } else                                                                              \
    FFI_THROW(RuntimeError) << ::ffi::detail::CUDAErrorText(#expr, _ffi_cuda_err)

/*! \brief The reference's spelling of FFI_CUDA_CHECK, for sources written against its headers. */
#define TVM_FFI_CHECK_CUDA_ERROR(expr) FFI_CUDA_CHECK(expr)

/*!
 * \brief Grid or block extents of a kernel launch (x, y, z; unset extents are 1), as the cubin
 * launcher takes them. Unlike CUDA's ::dim3 it needs no CUDA compiler; write `ffi::dim3` to pick
 * it.
 */
struct dim3 {
  /*! \brief Extent along x. */
  unsigned int x;
  /*! \brief Extent along y. */
  unsigned int y;
  /*! \brief Extent along z. */
  unsigned int z;
  /*! \brief (1, 1, 1). */
  dim3() : x(1), y(1), z(1) {}
  /*! \brief (x, 1, 1); explicit so that an integer is not silently taken for a launch shape. */
  explicit dim3(unsigned int x_) : x(x_), y(1), z(1) {}
  /*! \brief (x, y, 1). */
  dim3(unsigned int x_, unsigned int y_) : x(x_), y(y_), z(1) {}
  /*! \brief (x, y, z). */
  dim3(unsigned int x_, unsigned int y_, unsigned int z_) : x(x_), y(y_), z(z_) {}
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_CUDA_BASE_H_
