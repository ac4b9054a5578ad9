// <tvm/ffi/reflection/overload.h>: OverloadObjectDef (overloaded methods and constructors), at the
// reference's include path. Forwards to <ffi/reflection/overload.h> and the tvm::ffi / TVM_FFI_*
// vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile
// unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_OVERLOAD_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_OVERLOAD_H_

#include <ffi/container/map.h>      // the reference's header brings it
#include <ffi/container/variant.h>  // the reference's header brings it
#include <ffi/reflection/overload.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_OVERLOAD_H_
