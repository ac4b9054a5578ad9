// <tvm/ffi/extra/cuda/cubin_launcher.h>: CubinModule, CubinKernel and TVM_FFI_EMBED_CUBIN at the
// reference's include path; CUDA code only. Forwards to <ffi/extra/cuda/cubin_launcher.h> and the
// tvm::ffi vocabulary.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_

#include <ffi/extra/cuda/cubin_launcher.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
