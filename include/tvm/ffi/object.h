// <tvm/ffi/object.h>: objects and references, at the reference's include path. Forwards to
// <ffi/object.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_OBJECT_H_
#define FFI_FORWARD_TVM_FFI_OBJECT_H_

#include <ffi/object.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_OBJECT_H_
