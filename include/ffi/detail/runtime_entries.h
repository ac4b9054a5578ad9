/*
 * ffi/detail/runtime_entries.h - entry points only this project's runtime library exports, outside
 * the TVM-FFI C ABI, for the project's own Python extension.
 *
 * The extension serves whichever runtime the process loaded (the reference's, when its package
 * came first), so it never links these: it looks each one up in the runtime serving the process
 * (by name, once) and does without it where that runtime lacks it. Kernel libraries do not use
 * them.
 */
#ifndef FFI_DETAIL_RUNTIME_ENTRIES_H_
#define FFI_DETAIL_RUNTIME_ENTRIES_H_

#include "../c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief For a caller about to release the only reference to `tensor`: the versioned DLPack tensor
 * it was imported from (TVMFFITensorFromDLPackVersioned, TVMFFIEnvTensorAlloc's results), handed
 * back rather than wrapped again by an export. When `*out` is set, it is that
 * DLManagedTensorVersioned, now the caller's (who runs its deleter or passes it on), and the
 * caller's reference to `tensor` is consumed: the tensor is gone. `*out` is NULL, and nothing
 * changes (the reference stays the caller's), when the tensor has another owner (a strong or weak
 * reference) or was not imported from a versioned DLPack tensor. Returns 0, or -1 with an error
 * raised (`tensor` not a Tensor, `out` NULL).
 */
typedef int (*FFIRuntimeTensorDetachDLPackVersionedType)(TVMFFIObjectHandle tensor,
                                                         DLManagedTensorVersioned** out);
/*! \brief The exported name of the function of FFIRuntimeTensorDetachDLPackVersionedType. */
#define FFI_RUNTIME_TENSOR_DETACH_DLPACK_VERSIONED "FFIRuntimeTensorDetachDLPackVersioned"

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // FFI_DETAIL_RUNTIME_ENTRIES_H_
