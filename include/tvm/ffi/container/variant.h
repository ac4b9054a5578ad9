// <tvm/ffi/container/variant.h>: Variant, at the reference's include path. Forwards to
// <ffi/container/variant.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so
// sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_VARIANT_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_VARIANT_H_

#include <ffi/container/variant.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_VARIANT_H_
