// <tvm/ffi/container/list.h>: List, at the reference's include path. Forwards to
// <ffi/container/list.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so
// sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_LIST_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_LIST_H_

#include <ffi/container/list.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_LIST_H_
