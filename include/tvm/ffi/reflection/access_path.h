// <tvm/ffi/reflection/access_path.h>: the reference's include path for
// <ffi/reflection/access_path.h>, with the tvm::ffi / TVM_FFI_* vocabulary
// (<tvm/ffi/tvm_compat.h>), so sources written for the reference compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_REFLECTION_ACCESS_PATH_H_
#define FFI_FORWARD_TVM_FFI_REFLECTION_ACCESS_PATH_H_

#include <ffi/container/map.h>      // the reference's header brings it
#include <ffi/container/variant.h>  // the reference's header brings it
#include <ffi/reflection/access_path.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_REFLECTION_ACCESS_PATH_H_
