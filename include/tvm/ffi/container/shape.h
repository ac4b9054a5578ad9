// <tvm/ffi/container/shape.h>: Shape and ShapeView, at the reference's include path. Forwards to
// <ffi/shape.h> and the tvm::ffi / TVM_FFI_* vocabulary (<tvm/ffi/tvm_compat.h>), so sources
// written for the reference's headers compile unchanged.
#ifndef FFI_FORWARD_TVM_FFI_CONTAINER_SHAPE_H_
#define FFI_FORWARD_TVM_FFI_CONTAINER_SHAPE_H_

#include <ffi/container/array.h>  // the reference's header brings it
#include <ffi/shape.h>
#include <tvm/ffi/tvm_compat.h>

#endif  // FFI_FORWARD_TVM_FFI_CONTAINER_SHAPE_H_
