// <tvm/ffi/container/container_detail.h>: the reference's internal container header, kept at its
// include path for code that still includes it. Forwards to what containers build on (<ffi/any.h>,
// <ffi/object.h>) and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_CONTAINER_DETAIL_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_CONTAINER_DETAIL_H_

#include <ffi/any.h>
#include <ffi/object.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_CONTAINER_DETAIL_H_
