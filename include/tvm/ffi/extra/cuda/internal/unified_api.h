// <tvm/ffi/extra/cuda/internal/unified_api.h>: ffi::cuda_api (the CUDA runtime or driver API the
// cubin launcher calls) at the reference's include path; CUDA code only. Forwards to
// <ffi/extra/cuda/unified_api.h> and the tvm::ffi vocabulary.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_

#include <ffi/extra/cuda/unified_api.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_
