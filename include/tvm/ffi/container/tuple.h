// <tvm/ffi/container/tuple.h>: Tuple, at the reference's include path. Forwards to
// <ffi/container/tuple.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so
// sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_TUPLE_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_TUPLE_H_

#include <ffi/container/tuple.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_TUPLE_H_
