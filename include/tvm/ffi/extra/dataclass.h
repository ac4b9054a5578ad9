// <tvm/ffi/extra/dataclass.h>: the reference's include path for
// <ffi/extra/dataclass.h>, with the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so
// sources written for the reference compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_DATACLASS_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_DATACLASS_H_

#include <ffi/extra/dataclass.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_DATACLASS_H_
