/*
 * ffi/tvm_compat.h - the vocabulary of TVM-FFI code (the seeds' spelling) on top of these headers,
 * so existing kernel sources compile with only their includes replaced by this one:
 *
 *   #include <ffi/tvm_compat.h>   // instead of <tvm/ffi/...>
 *
 *   void AddOne(tvm::ffi::TensorView x, tvm::ffi::TensorView y) { ... }
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cpu, AddOne);
 *
 * `tvm::ffi` is an alias of `::ffi`, and each TVM_FFI_* macro is the FFI_* macro of the same name.
 * Nothing here changes the ABI: both spellings produce the same symbols and objects.
 */
#ifndef FFI_TVM_COMPAT_H_
#define FFI_TVM_COMPAT_H_

// Code written for TVM-FFI's headers may rely on <sstream> arriving with them; ffi.h leaves it out
// to keep kernel compiles fast, so the compatibility layer brings it.
#include <sstream>
#include <utility>

#include "c_api.h"
#include "ffi.h"

namespace ffi {
// The DLPack structures under the names TVM-FFI code uses for them (ffi::DLDevice, ...).
using ::DLDataType;
using ::DLDevice;
using ::DLTensor;

namespace detail {
/*! \brief Returns `value`, throwing InternalError (located at the caller) when it is null. */
template <typename T>
T CompatCheckNotNull(T&& value, const char* text, const char* file, int line, const char* func) {
  if (value == nullptr) {
    ErrorThrower() & ErrorBuilder("InternalError", BacktraceHere(file, line, func))
                         << "Check not null: " << text;
  }
  return std::forward<T>(value);
}
}  // namespace detail
}  // namespace ffi

/*! \brief `tvm::ffi::X` names `ffi::X`. */
namespace tvm {
namespace ffi = ::ffi;
}  // namespace tvm

/*! \brief Exports a typed function as `__tvm_ffi_<ExportName>`; see FFI_DLL_EXPORT_TYPED_FUNC. */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, Function) \
  FFI_DLL_EXPORT_TYPED_FUNC(ExportName, Function)

/*! \brief `TVM_FFI_THROW(ValueError) << "message";` throws an ffi::Error; see FFI_THROW. */
#define TVM_FFI_THROW(ErrorKind) FFI_THROW(ErrorKind)

/*! \brief Throws InternalError unless `cond` holds; see FFI_ICHECK. */
#define TVM_FFI_ICHECK(cond) FFI_ICHECK(cond)
/*! \brief Throws InternalError unless `x == y`, printing both; see FFI_ICHECK_EQ. */
#define TVM_FFI_ICHECK_EQ(x, y) FFI_ICHECK_EQ(x, y)
/*! \brief Throws InternalError unless `x != y`. */
#define TVM_FFI_ICHECK_NE(x, y) FFI_ICHECK_NE(x, y)
/*! \brief Throws InternalError unless `x < y`. */
#define TVM_FFI_ICHECK_LT(x, y) FFI_ICHECK_LT(x, y)
/*! \brief Throws InternalError unless `x <= y`. */
#define TVM_FFI_ICHECK_LE(x, y) FFI_ICHECK_LE(x, y)
/*! \brief Throws InternalError unless `x > y`. */
#define TVM_FFI_ICHECK_GT(x, y) FFI_ICHECK_GT(x, y)
/*! \brief Throws InternalError unless `x >= y`. */
#define TVM_FFI_ICHECK_GE(x, y) FFI_ICHECK_GE(x, y)
/*!
 * \brief An expression: `x` itself, after checking that it is not null (InternalError otherwise),
 * e.g. `DLTensor* t = TVM_FFI_ICHECK_NOTNULL(Lookup(name));`. `x` is evaluated once.
 */
#define TVM_FFI_ICHECK_NOTNULL(x) \
  ::ffi::detail::CompatCheckNotNull((x), #x, __FILE__, __LINE__, FFI_FUNC_NAME)

/*! \brief A block run once when the library is loaded: `TVM_FFI_STATIC_INIT_BLOCK() { ... }`. */
#define TVM_FFI_STATIC_INIT_BLOCK() FFI_STATIC_INIT_BLOCK()

/*! \brief Opens the body of a C ABI function; see FFI_SAFE_CALL_BEGIN. */
#define TVM_FFI_SAFE_CALL_BEGIN() FFI_SAFE_CALL_BEGIN()
/*! \brief Closes TVM_FFI_SAFE_CALL_BEGIN: returns 0, or stores the exception and returns -1/-2. */
#define TVM_FFI_SAFE_CALL_END() FFI_SAFE_CALL_END()
/*! \brief Evaluates an ABI call and throws the raised error when it fails; FFI_CHECK_SAFE_CALL. */
#define TVM_FFI_CHECK_SAFE_CALL(call) FFI_CHECK_SAFE_CALL(call)

#endif  // FFI_TVM_COMPAT_H_
