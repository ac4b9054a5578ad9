// <tvm/ffi/enum.h>: enums whose members are objects, at the reference's include path. Forwards to
// <ffi/enum.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written
// for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_ENUM_H_
#define FFI_FORWARD_TVM_FFI_ENUM_H_

#include <ffi/enum.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_ENUM_H_
