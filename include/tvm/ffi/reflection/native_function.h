// <tvm/ffi/reflection/native_function.h>: hooks called without packing (NativeFunctionView), at
// the reference's include path. Forwards to <ffi/reflection/native_function.h> and the tvm::ffi /
// TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers
// compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_

#include <ffi/reflection/native_function.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
