// <tvm/ffi/container/seq_base.h>: the reference's internal header of what Array and List share,
// kept at its include path for code that still includes it. Forwards to <ffi/container/seq_base.h>
// (SeqBaseObj) and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_SEQ_BASE_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_SEQ_BASE_H_

#include <ffi/any.h>
#include <ffi/container/seq_base.h>
#include <ffi/object.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_SEQ_BASE_H_
