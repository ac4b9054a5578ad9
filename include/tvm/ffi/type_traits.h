// <tvm/ffi/type_traits.h>: TypeTraits, at the reference's include path. Forwards to
// <ffi/type_traits.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_TYPE_TRAITS_H_
#define FFI_FORWARD_TVM_FFI_TYPE_TRAITS_H_

#include <ffi/type_traits.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_TYPE_TRAITS_H_
