// <tvm/ffi/extra/structural_equal.h>: the reference's include path for
// <ffi/extra/structural_equal.h>, with the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_

#include <ffi/container/map.h>      // the reference's header brings it
#include <ffi/container/variant.h>  // the reference's header brings it
#include <ffi/extra/structural_equal.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
