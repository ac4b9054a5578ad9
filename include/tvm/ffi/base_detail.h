// <tvm/ffi/base_detail.h>: the reference's internal base header, kept at its include path for code
// that still includes it. Brings what it declared: the compiler macros (TVM_FFI_INLINE, ...; see
// <tvm/ffi/tvm_compat.h>), the byte order macros, the stable hashes (details::StableHashBytes, ...)
// and the type schemas of reflection.
#ifndef FFI_FORWARD_TVM_FFI_BASE_DETAIL_H_
#define FFI_FORWARD_TVM_FFI_BASE_DETAIL_H_

#include <ffi/any_hash.h>
#include <ffi/base.h>
#include <ffi/c_api.h>
#include <ffi/detail/type_schema.h>
#include <ffi/endian.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_BASE_DETAIL_H_
