// <tvm/ffi/tvm_ffi.h>: everything a kernel library uses, at the reference's include path. Forwards
// to <ffi/ffi.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_TVM_FFI_H_
#define FFI_FORWARD_TVM_FFI_TVM_FFI_H_

#include <ffi/cast.h>
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/container/tuple.h>
#include <ffi/container/variant.h>
#include <ffi/endian.h>
#include <ffi/enum.h>
#include <ffi/expected.h>
#include <ffi/ffi.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/creator.h>
#include <ffi/reflection/enum_def.h>
#include <ffi/reflection/overload.h>
#include <ffi/reflection/registry.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_TVM_FFI_H_
