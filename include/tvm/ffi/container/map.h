// <tvm/ffi/container/map.h>: Map<K, V> at the reference's include path. Forwards to
// <ffi/container/map.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_MAP_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_MAP_H_

#include <ffi/container/map.h>
#include <tvm/ffi/tvm_compat.h>

// Code written for the reference's header relies on it bringing in <unordered_map>.
#include <unordered_map>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_MAP_H_
