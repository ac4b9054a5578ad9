/*
 * ffi/ffi.h - the whole C++ API in one include.
 */
#ifndef FFI_FFI_H_
#define FFI_FFI_H_

#include "any.h"
#include "arc.h"
#include "call_context.h"
#include "cast.h"
#include "device.h"
#include "dtype.h"
#include "error.h"
#include "function.h"
#include "module.h"
#include "named_args.h"
#include "object.h"
#include "optional.h"
#include "rvalue_ref.h"
#include "shape.h"
#include "string.h"
#include "tensor.h"
#include "type_traits.h"

#endif  // FFI_FFI_H_
