/*
 * ffi/endian.h - the byte order of this machine and of serialized data, and an in-place byte
 * swap for converting between them.
 *
 * Serialized numbers (tensor payloads, binary blobs) are little-endian unless a build says
 * otherwise, so a reader or writer swaps bytes only when FFI_IO_NO_ENDIAN_SWAP is 0:
 *
 *   if (!FFI_IO_NO_ENDIAN_SWAP) ffi::ByteSwap(data, sizeof(float), n);
 *
 * Each FFI_* macro here also has its TVM-FFI spelling (TVM_FFI_LITTLE_ENDIAN, ...). A build may
 * preset the machine's byte order with TVM_FFI_CMAKE_LITTLE_ENDIAN (0 or 1) and the byte order of
 * serialized data with FFI_IO_USE_LITTLE_ENDIAN or TVM_FFI_IO_USE_LITTLE_ENDIAN (default 1).
 */
#ifndef FFI_ENDIAN_H_
#define FFI_ENDIAN_H_

#include <cstddef>
#include <cstdint>

/*! \brief 1 when this machine stores the least significant byte first, 0 otherwise. */
#if defined(TVM_FFI_CMAKE_LITTLE_ENDIAN)
#define FFI_LITTLE_ENDIAN (TVM_FFI_CMAKE_LITTLE_ENDIAN)
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#define FFI_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#elif defined(_WIN32) || defined(__APPLE__) || defined(__EMSCRIPTEN__)
#define FFI_LITTLE_ENDIAN 1
#else
#error "ffi/endian.h: cannot tell this machine's byte order; define TVM_FFI_CMAKE_LITTLE_ENDIAN"
#endif

/*! \brief 1 when serialized data is little-endian (the default), 0 when it is big-endian. */
#ifndef FFI_IO_USE_LITTLE_ENDIAN
#if defined(TVM_FFI_IO_USE_LITTLE_ENDIAN)
#define FFI_IO_USE_LITTLE_ENDIAN (TVM_FFI_IO_USE_LITTLE_ENDIAN)
#else
#define FFI_IO_USE_LITTLE_ENDIAN 1
#endif
#endif

/*! \brief 1 when serialized data has this machine's byte order: reading it needs no swap. */
#define FFI_IO_NO_ENDIAN_SWAP (FFI_LITTLE_ENDIAN == FFI_IO_USE_LITTLE_ENDIAN)

/*! \brief TVM-FFI's spellings of the macros above. */
#ifndef TVM_FFI_LITTLE_ENDIAN
#define TVM_FFI_LITTLE_ENDIAN FFI_LITTLE_ENDIAN
#endif
#ifndef TVM_FFI_IO_USE_LITTLE_ENDIAN
#define TVM_FFI_IO_USE_LITTLE_ENDIAN FFI_IO_USE_LITTLE_ENDIAN
#endif
#define TVM_FFI_IO_NO_ENDIAN_SWAP FFI_IO_NO_ENDIAN_SWAP

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief Reverses the byte order of each of `num_elems` consecutive elements of `elem_bytes` bytes
 * at `data`, in place. Swapping twice restores the data; elements of 0 or 1 byte are left as they
 * are. Pass a constant `elem_bytes` where possible: the compiler then unrolls the inner loop.
 */
inline void ByteSwap(void* data, size_t elem_bytes, size_t num_elems) {
  unsigned char* elem = static_cast<unsigned char*>(data);
  for (size_t n = 0; n < num_elems; ++n, elem += elem_bytes) {
    for (size_t lo = 0, hi = elem_bytes; lo + 1 < hi; ++lo) {
      --hi;
      unsigned char byte = elem[lo];
      elem[lo] = elem[hi];
      elem[hi] = byte;
    }
  }
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_ENDIAN_H_
