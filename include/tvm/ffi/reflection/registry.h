// <tvm/ffi/reflection/registry.h>: GlobalDef, ObjectDef, TypeAttrDef, at the reference's include
// path. Forwards to <ffi/reflection/registry.h> and the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_REGISTRY_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_REGISTRY_H_

#include <ffi/container/map.h>      // the reference's header brings it
#include <ffi/container/variant.h>  // the reference's header brings it
#include <ffi/reflection/registry.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_REGISTRY_H_
