/*
 * src/runtime/tensor_import.h - private to the runtime: DLPack tensors imported as Tensor objects
 * by the runtime's own callers, where what they already checked need not be checked again.
 */
#ifndef FFI_SRC_RUNTIME_TENSOR_IMPORT_H_
#define FFI_SRC_RUNTIME_TENSOR_IMPORT_H_

#include <ffi/c_api.h>

namespace tvm {
namespace ffi {
namespace runtime {

/*!
 * \brief A Tensor owning `managed`, a tensor allocator's answer whose shape, dtype and device the
 * caller has checked against a valid prototype: TVMFFITensorFromDLPackVersioned with its memory
 * checks skipped where the layout makes them hold (compact, no byte offset, no empty extent).
 * Throws as that function does, `managed` still the caller's.
 */
TVMFFIObjectHandle ImportAllocatedTensor(DLManagedTensorVersioned* managed);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_TENSOR_IMPORT_H_
