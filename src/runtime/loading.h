/*
 * src/runtime/loading.h - private to the runtime: what module.cc (the loader) and function.cc (the
 * registry) share while a library is being loaded, and the system-library symbol table that env.cc
 * keeps (TVMFFIEnvModRegisterSystemLibSymbol) and module.cc's ffi.SystemLib modules read.
 */
#ifndef FFI_SRC_RUNTIME_LOADING_H_
#define FFI_SRC_RUNTIME_LOADING_H_

#include <ffi/error.h>
#include <ffi/optional.h>

#include <string>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {

/*!
 * \brief While alive, a failed global function registration (TVMFFIFunctionSetGlobal) on this
 * thread is recorded here and reported as success instead of raised.
 *
 * The loader opens one around dlopen: a library registers its functions from a static initializer,
 * where a raised error becomes a C++ exception that can only terminate the process. The loader
 * raises the recorded failure after dlopen returns. Scopes nest (a static initializer may load
 * another library); a failure is recorded in the innermost one.
 */
class RegistrationFailureScope {
 public:
  RegistrationFailureScope();
  ~RegistrationFailureScope();
  RegistrationFailureScope(const RegistrationFailureScope&) = delete;
  RegistrationFailureScope& operator=(const RegistrationFailureScope&) = delete;

  /*! \brief The first failure recorded while this scope was innermost, if any. */
  const Optional<Error>& failure() const { return failure_; }

  /*! \brief Records `error` in this thread's innermost scope; false when no scope is open. */
  static bool Record(const Error& error);

 private:
  RegistrationFailureScope* outer_;
  Optional<Error> failure_;
};

/*! \brief The address registered as system-library symbol `name`, or null. */
void* SystemLibGetSymbol(const std::string& name);
/*! \brief The names of all registered system-library symbols, in no particular order. */
std::vector<std::string> SystemLibSymbolNames();

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_LOADING_H_
