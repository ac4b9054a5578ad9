// <tvm/ffi/extra/stl.h>: standard library types in typed functions, at the reference's include
// path. Forwards to <ffi/extra/stl.h> and the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_EXTRA_STL_H_
#define FFI_FORWARD_TVM_FFI_EXTRA_STL_H_

#include <ffi/container/list.h>  // the reference's header brings it
#include <ffi/extra/stl.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_EXTRA_STL_H_
