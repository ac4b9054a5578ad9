/*
 * ffi/c_env_api.h - the environment part of the stable C ABI: what a host (Python, a framework)
 * provides to kernels during a call. Included by c_api.h (the reference keeps the same functions
 * in its own extra/c_env_api.h); C99-compatible.
 */
#ifndef FFI_C_ENV_API_H_
#define FFI_C_ENV_API_H_

#include "c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*------------------------------------------------------------------------------------------------
 * Environment: what a host (Python, a framework) provides to kernels during a call.
 *------------------------------------------------------------------------------------------------*/

/*! \brief A device stream (cudaStream_t for CUDA) as the C API sees it. */
typedef void* TVMFFIStreamHandle;

/*!
 * \brief Sets this thread's current stream for a device; the previous one goes to
 * `opt_out_original_stream` when it is not NULL.
 */
TVM_FFI_DLL int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id,
                                   TVMFFIStreamHandle stream,
                                   TVMFFIStreamHandle* opt_out_original_stream);

/*! \brief This thread's current stream for a device (NULL: the default stream). */
TVM_FFI_DLL TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);

/*!
 * \brief Installs the allocator TVMFFIEnvTensorAlloc uses: for this thread, or process-wide when
 * `write_to_global_context` is non-zero. NULL restores the built-in CPU allocator.
 */
TVM_FFI_DLL int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator);

/*! \brief The allocator TVMFFIEnvTensorAlloc uses now, NULL meaning the built-in one. */
TVM_FFI_DLL DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void);

/*! \brief Allocates a Tensor object shaped like `prototype` through the current allocator. */
TVM_FFI_DLL int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out);

/*! \brief Lets the host handle pending signals (Ctrl-C); non-zero when the call should stop. */
TVM_FFI_DLL int TVMFFIEnvCheckSignals(void);

/*! \brief Registers a host C function the runtime may call (e.g. "TVMFFIPyCallManagedTensor...").
 */
TVM_FFI_DLL int TVMFFIEnvRegisterCAPI(const char* name, void* symbol);

/*!
 * \brief Resolves `func_name` through the imports of the module owning `library_ctx` (the value
 * of a library's `__tvm_ffi__library_ctx`; the module itself is not searched), then the global
 * functions. `*out` is borrowed: the module caches what it found and keeps it alive.
 */
TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                              TVMFFIObjectHandle* out);

/*! \brief Registers a symbol that modules loaded later bind to their `void*` slot named `name`. */
TVM_FFI_DLL int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // FFI_C_ENV_API_H_
