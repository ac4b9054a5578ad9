// <tvm/ffi/extra/module.h>: Module, at the reference's include path. Forwards to <ffi/module.h> and
// the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources written for the
// reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_MODULE_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_MODULE_H_

#include <ffi/container/array.h>  // the reference's module.h brings Array and Map
#include <ffi/container/map.h>
#include <ffi/module.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_MODULE_H_
