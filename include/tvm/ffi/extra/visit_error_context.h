// <tvm/ffi/extra/visit_error_context.h>: VisitErrorContext and the TVM_FFI_VISIT_* macros, at the
// reference's include path. Forwards to <ffi/extra/visit_error_context.h> and the tvm::ffi /
// TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the reference compile
// unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_

#include <ffi/container/map.h>      // the reference's header brings it
#include <ffi/container/variant.h>  // the reference's header brings it
#include <ffi/extra/visit_error_context.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
