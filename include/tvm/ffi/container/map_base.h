// <tvm/ffi/container/map_base.h>: the reference's internal header of the hash table Map and Dict
// share, kept at its include path for code that still includes it. Forwards to
// <ffi/container/map_base.h> (MapBaseObj) and the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_MAP_BASE_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_MAP_BASE_H_

#include <ffi/any.h>
#include <ffi/container/map_base.h>
#include <ffi/object.h>
#include <ffi/optional.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_MAP_BASE_H_
