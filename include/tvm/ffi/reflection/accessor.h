// <tvm/ffi/reflection/accessor.h>: field getters and setters, type attribute columns, at the
// reference's include path. Forwards to <ffi/reflection/accessor.h> and the tvm::ffi / TVM_FFI_*
// vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile
// unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_ACCESSOR_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_ACCESSOR_H_

#include <ffi/reflection/accessor.h>
#include <ffi/reflection/native_function.h>  // type_attr::kAnyHash / kAnyEqual live there here
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_ACCESSOR_H_
