// <tvm/ffi/big_int.h>: BigInt, at the reference's include path. Forwards to <ffi/big_int.h> and
// the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the
// reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_BIG_INT_H_
#define FFI_FORWARD_TVM_FFI_BIG_INT_H_

#include <ffi/big_int.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_BIG_INT_H_
