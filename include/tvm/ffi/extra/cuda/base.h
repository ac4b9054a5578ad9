// <tvm/ffi/extra/cuda/base.h>: the CUDA error check (TVM_FFI_CHECK_CUDA_ERROR) and ffi::dim3 at the
// reference's include path; CUDA code only. Forwards to <ffi/extra/cuda/base.h> and the tvm::ffi
// vocabulary.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_CUDA_BASE_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_CUDA_BASE_H_

#include <ffi/extra/cuda/base.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_CUDA_BASE_H_
