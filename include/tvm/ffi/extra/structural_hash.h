// <tvm/ffi/extra/structural_hash.h>: the reference's include path for
// <ffi/extra/structural_hash.h>, with the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>),
// so sources written for the reference compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_STRUCTURAL_HASH_H_

#include <ffi/extra/structural_hash.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
