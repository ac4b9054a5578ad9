// <tvm/ffi/reflection/creator.h>: ObjectCreator, CreateEmptyObject, at the reference's include
// path. Forwards to <ffi/reflection/creator.h> and the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_CREATOR_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_CREATOR_H_

#include <ffi/reflection/creator.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_CREATOR_H_
