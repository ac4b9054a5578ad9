// <dlpack/dlpack.h>: the DLPack structures (through DLPack 1.3), at DLPack's own include path.
// <ffi/dlpack.h> declares them under DLPack's standard include guard, so this header and another
// copy of DLPack's never both define them.
#ifndef FFI_FORWARD_DLPACK_DLPACK_H_
#define FFI_FORWARD_DLPACK_DLPACK_H_

#include <ffi/dlpack.h>

#endif  // FFI_FORWARD_DLPACK_DLPACK_H_
