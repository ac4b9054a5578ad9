// <tvm/ffi/function_detail.h>: the reference's internal function header, kept at its include path
// for code that still includes it. Forwards to <ffi/function.h> (typed function calls and their
// argument conversion) and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>).
#ifndef FFI_FORWARD_TVM_FFI_FUNCTION_DETAIL_H_
#define FFI_FORWARD_TVM_FFI_FUNCTION_DETAIL_H_

#include <ffi/any.h>
#include <ffi/error.h>
#include <ffi/function.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_FUNCTION_DETAIL_H_
