/*
 * ffi/base.h - compiler helpers shared by every C++ header.
 */
#ifndef FFI_BASE_H_
#define FFI_BASE_H_

#include "c_api.h"

/*!
 * \brief Every C++ name of this library lives in `tvm::ffi`, the namespace code written for TVM-FFI
 * already uses, so such code (including its `namespace tvm { namespace ffi { ... } }` blocks that
 * add objects or trait specializations) compiles unchanged. `ffi::X` is the short spelling.
 *
 * The names sit in the inline namespace `ffi_v1`: source code never writes it, but it is part of
 * the linker names, so this library's inline functions can never be merged with same-named
 * functions of another implementation of the convention loaded into the same process.
 */
namespace tvm {
namespace ffi {
inline namespace ffi_v1 {}
}  // namespace ffi
}  // namespace tvm
namespace ffi = ::tvm::ffi;

/*! \brief Forces inlining of small hot functions. */
#if defined(_MSC_VER)
#define FFI_INLINE __forceinline
#else
#define FFI_INLINE inline __attribute__((always_inline))
#endif

/*! \brief Branch-prediction hints. */
#if defined(__GNUC__) || defined(__clang__)
#define FFI_LIKELY(x) __builtin_expect(!!(x), 1)
#define FFI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define FFI_LIKELY(x) (x)
#define FFI_UNLIKELY(x) (x)
#endif

/*! \brief Marks a rarely taken function (error paths): kept out of line, away from hot code. */
#if defined(__GNUC__) || defined(__clang__)
#define FFI_COLD_NOINLINE __attribute__((noinline, cold))
#else
#define FFI_COLD_NOINLINE
#endif

/*! \brief Pastes two tokens after expanding them (for unique names in macros). */
#define FFI_STR_CONCAT_(a, b) a##b
#define FFI_STR_CONCAT(a, b) FFI_STR_CONCAT_(a, b)

/*! \brief The name of the enclosing function, for error locations. */
#if defined(__GNUC__) || defined(__clang__)
#define FFI_FUNC_NAME __PRETTY_FUNCTION__
#else
#define FFI_FUNC_NAME __func__
#endif

#endif  // FFI_BASE_H_
