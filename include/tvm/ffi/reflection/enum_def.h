// <tvm/ffi/reflection/enum_def.h>: defining enum members from C++, at the reference's include
// path. Forwards to <ffi/reflection/enum_def.h> and the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_ENUM_DEF_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_ENUM_DEF_H_

#include <ffi/container/map.h>      // the reference's header brings it
#include <ffi/container/variant.h>  // the reference's header brings it
#include <ffi/reflection/enum_def.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_ENUM_DEF_H_
