// <tvm/ffi/endian.h>: byte order macros (TVM_FFI_LITTLE_ENDIAN, TVM_FFI_IO_NO_ENDIAN_SWAP) and
// ByteSwap, at the reference's include path. Forwards to <ffi/endian.h> and the tvm::ffi /
// TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_ENDIAN_H_
#define FFI_FORWARD_TVM_FFI_ENDIAN_H_

#include <ffi/endian.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_ENDIAN_H_
