/*
 * ffi/error.h - errors that cross the ABI: Error, FFI_THROW, FFI_ICHECK*, and the safe-call macros.
 *
 * An error is an object {TVMFFIObject, TVMFFIErrorCell, ...} with a kind ("ValueError"), a message
 * and a backtrace. In C++ it is thrown as ffi::Error; at the ABI boundary it is stored as the
 * thread's raised error and the call returns -1, then rethrown on the caller's side. Error only
 * reads errors through the cell, so errors made by other libraries and runtimes work alike.
 */
#ifndef FFI_ERROR_H_
#define FFI_ERROR_H_

#include <cstdio>
#include <exception>
#include <iosfwd>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "object.h"

#if defined(__GLIBCXX__)
#include <cxxabi.h>
/*!
 * \brief A thread ended by pthread_exit or cancellation unwinds with abi::__forced_unwind (as
 * CPython ends daemon threads that touch the interpreter during its shutdown): that is not an
 * error to store, and swallowing it is fatal, so it is rethrown before `catch (...)`.
 */
#define FFI_DETAIL_LET_FORCED_UNWIND_PASS \
  catch (abi::__forced_unwind&) {         \
    throw;                                \
  }
#else
#define FFI_DETAIL_LET_FORCED_UNWIND_PASS
#endif

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief The object behind an Error: the header followed by the ABI cell. The runtime makes error
 * objects (TVMFFIErrorCreate) and owns their code, so an error outlives the library that threw it
 * and throwing one compiles to a call, not to an object type per library.
 */
class ErrorObj : public Object, public TVMFFIErrorCell {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Error", ErrorObj, Object, kTVMFFIError);
};

namespace detail {
/*! \brief A new error object from the runtime; throws std::bad_alloc when it cannot make one. */
inline ObjectPtr<Object> CreateErrorObject(std::string_view kind, std::string_view message,
                                           std::string_view backtrace) {
  TVMFFIByteArray k{kind.data(), kind.size()}, m{message.data(), message.size()},
      b{backtrace.data(), backtrace.size()};
  TVMFFIObjectHandle handle = nullptr;
  if (TVMFFIErrorCreate(&k, &m, &b, &handle) != 0 || handle == nullptr) throw std::bad_alloc();
  return ObjectPtr<Object>::Steal(ObjectUnsafe::FromHeader(handle));
}
}  // namespace detail

/*!
 * \brief An error object as a C++ exception. Never null.
 * `what()` is the Python-style report: the traceback (most recent call last), then "Kind: message".
 */
class Error : public ObjectRef, public std::exception {
 public:
  /*! \brief Makes a new error; `backtrace` is most recent call first, one frame per line. */
  Error(std::string_view kind, std::string_view message, std::string_view backtrace = {})
      : ObjectRef(detail::CreateErrorObject(kind, message, backtrace)) {}
  /*!
   * \brief Makes a new error recording the error that caused it (`cause_chain`) and any object
   * of extra context; the new error holds a reference to each.
   */
  Error(std::string_view kind, std::string_view message, std::string_view backtrace,
        std::optional<Error> cause_chain, std::optional<ObjectRef> extra_context)
      : ObjectRef(CreateWithCause(
            kind, message, backtrace,
            cause_chain ? detail::ObjectUnsafe::HeaderOf(*cause_chain) : nullptr,
            extra_context ? detail::ObjectUnsafe::HeaderOf(*extra_context) : nullptr)) {}
  /*!
   * \brief Makes a new error with the backtrace TVMFFIBacktrace returned (null: none). Takes
   * std::string so that Strings convert, as code written for the reference passes them.
   */
  Error(const std::string& kind, const std::string& message, const TVMFFIByteArray* backtrace)
      : Error(kind, message,
              backtrace ? std::string_view(backtrace->data, backtrace->size) : std::string_view()) {
  }
  /*! \brief Wraps an existing error object (any library's). */
  explicit Error(ObjectPtr<Object> obj) : ObjectRef(std::move(obj)) {}

  /*! \brief The error that caused this one, if one was recorded. */
  std::optional<Error> cause_chain() const {
    if (cell()->cause_chain == nullptr) return std::nullopt;
    return Error(ObjectPtr<Object>::Borrow(detail::ObjectUnsafe::FromHeader(cell()->cause_chain)));
  }
  /*! \brief The object of extra context, if one was recorded. */
  std::optional<ObjectRef> extra_context() const {
    if (cell()->extra_context == nullptr) return std::nullopt;
    return ObjectRef(
        ObjectPtr<Object>::Borrow(detail::ObjectUnsafe::FromHeader(cell()->extra_context)));
  }

  /*! \brief The kind, e.g. "ValueError". */
  std::string kind() const { return std::string(detail::ByteView(cell()->kind)); }
  /*! \brief The message. */
  std::string message() const { return std::string(detail::ByteView(cell()->message)); }
  /*! \brief The backtrace as stored: most recent call first, one frame per line. */
  std::string backtrace() const { return std::string(detail::ByteView(cell()->backtrace)); }
  /*! \brief The backtrace reversed to most recent call last, as Python prints tracebacks. */
  std::string TracebackMostRecentCallLast() const {
    std::string out;
    AppendTraceback(&out);
    return out;
  }
  /*! \brief "Traceback (most recent call last):\n<frames>Kind: message". */
  std::string FullMessage() const {
    std::string out;
    AppendTraceback(&out);
    if (!out.empty()) out.insert(0, "Traceback (most recent call last):\n");
    out.append(detail::ByteView(cell()->kind)).append(": ");
    return out.append(detail::ByteView(cell()->message));
  }
  const char* what() const noexcept override {
    try {
      what_ = FullMessage();
    } catch (...) {
      return "ffi::Error (what() failed to format)";
    }
    return what_.c_str();
  }
  /*! \brief The ABI cell. */
  const TVMFFIErrorCell* cell() const {
    return TVMFFIErrorGetCellPtr(detail::ObjectUnsafe::Header(data_.get()));
  }

  using ContainerType = ErrorObj;
  static constexpr bool _type_is_nullable = false;

 private:
  static ObjectPtr<Object> CreateWithCause(std::string_view kind, std::string_view message,
                                           std::string_view backtrace, TVMFFIObject* cause,
                                           TVMFFIObject* context) {
    TVMFFIByteArray k{kind.data(), kind.size()}, m{message.data(), message.size()},
        b{backtrace.data(), backtrace.size()};
    TVMFFIObjectHandle handle = nullptr;
    if (TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, &b, cause, context, &handle) != 0 ||
        handle == nullptr) {
      throw std::bad_alloc();
    }
    return ObjectPtr<Object>::Steal(detail::ObjectUnsafe::FromHeader(handle));
  }
  /*! \brief Appends the stored frames in reverse order, each ending in a newline. */
  void AppendTraceback(std::string* out) const {
    std::string_view bt = detail::ByteView(cell()->backtrace);
    while (!bt.empty()) {
      if (bt.back() == '\n') bt.remove_suffix(1);
      size_t start = bt.rfind('\n');
      start = start == std::string_view::npos ? 0 : start + 1;
      if (start < bt.size()) out->append(bt.substr(start)).push_back('\n');
      bt = bt.substr(0, start);
    }
  }
  mutable std::string what_;
};

/*!
 * \brief Thrown when the error is pending in the host language (e.g. a Python exception a signal
 * check raised) and must travel back to it untouched: by TVMFFIEnvCheckSignals' callers, and by
 * FFI_CHECK_SAFE_CALL when a callee says so. It crosses the ABI as the reference sends it, an
 * error of kind "EnvErrorAlreadySet" (return code -1); a callee's -2, the older spelling, is
 * understood too.
 */
struct EnvErrorAlreadySet : public std::exception {
  const char* what() const noexcept override { return "an error is pending in the host language"; }
};

namespace detail {
/*! \brief `T` made dependent on `D`, so a use is checked only when a template is instantiated. */
template <typename D, typename T>
struct DependentType {
  using type = T;
};
/*! \brief Whether `T` is a complete type where this is instantiated. */
template <typename T, typename = void>
struct IsComplete : std::false_type {};
template <typename T>
struct IsComplete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

/*!
 * \brief How a value of class type `T` is written into an error message. Specialized next to the
 * types these headers define (DLDataType, DLDevice, ShapeView, ...); any other type is written by
 * its `operator<<(std::ostream&, const T&)` through a std::ostringstream, which needs <sstream>.
 * The headers themselves include no stream header: <ostream> would add a sizable share to the
 * compile time of every kernel.
 */
template <typename T, typename = void>
struct TextFormatter {
  static void Append(std::string* out, const T& value) {
    using Stream = typename DependentType<T, std::ostringstream>::type;
    static_assert(IsComplete<Stream>::value,
                  "this type is written into an error message by its operator<< on std::ostream: "
                  "#include <sstream> before this use");
    Stream os;
    os << value;
    out->append(os.str());
  }
};

/*! \brief Appends a signed integer in decimal. */
inline void AppendInt(std::string* out, long long v) {
  char buf[24];
  out->append(buf, static_cast<size_t>(std::snprintf(buf, sizeof(buf), "%lld", v)));
}
/*! \brief Appends an unsigned integer in decimal. */
inline void AppendUInt(std::string* out, unsigned long long v) {
  char buf[24];
  out->append(buf, static_cast<size_t>(std::snprintf(buf, sizeof(buf), "%llu", v)));
}
/*! \brief Appends a floating-point value as printf's "%g" does (as std::ostream does). */
inline void AppendFloat(std::string* out, double v) {
  char buf[32];
  int n = std::snprintf(buf, sizeof(buf), "%g", v);
  out->append(buf, n > 0 ? static_cast<size_t>(n) : 0);
}
/*! \brief Appends a pointer in hexadecimal. */
inline void AppendPointer(std::string* out, const void* p) {
  char buf[32];
  int n = std::snprintf(buf, sizeof(buf), "%p", p);
  out->append(buf, n > 0 ? static_cast<size_t>(n) : 0);
}

/*!
 * \brief Appends the text of `value` to `out`: strings as they are, `char` as a character, bool as
 * true/false, other integers and enums in decimal, floating point as "%g", pointers in hex, class
 * types through TextFormatter. The one way error messages format values.
 */
template <typename T>
void AppendText(std::string* out, const T& value) {
  static_assert(!std::is_function_v<T> && !std::is_function_v<std::remove_pointer_t<T>>,
                "stream manipulators (std::hex, ...) are not supported in error messages");
  if constexpr (std::is_null_pointer_v<T>) {
    out->append("nullptr");
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    if constexpr (std::is_pointer_v<T>) {  // arrays (string literals) are never null
      if (value == nullptr) return void(out->append("(null)"));
    }
    out->append(std::string_view(value));
  } else if constexpr (std::is_convertible_v<const T&, std::string>) {
    out->append(std::string(value));
  } else if constexpr (std::is_same_v<T, char>) {
    out->push_back(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    out->append(value ? "true" : "false");
  } else if constexpr (std::is_enum_v<T>) {
    AppendText(out, static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    AppendInt(out, value);
  } else if constexpr (std::is_integral_v<T>) {
    AppendUInt(out, value);
  } else if constexpr (std::is_floating_point_v<T>) {
    AppendFloat(out, static_cast<double>(value));
  } else if constexpr (std::is_pointer_v<T>) {
    AppendPointer(out, static_cast<const void*>(value));
  } else {
    TextFormatter<T>::Append(out, value);
  }
}

/*!
 * \brief The text of a backtrace taken here (most recent first). Always inlined, so that at any
 * optimization level the first frame is the function that raised, not this helper.
 */
FFI_INLINE std::string BacktraceHere(const char* file, int line, const char* func) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(file, line, func, 0);
  return bt ? std::string(bt->data, bt->size) : std::string();
}

/*! \brief Collects an error's kind, backtrace and streamed message for ErrorThrower. */
class ErrorBuilder {
 public:
  ErrorBuilder(const char* kind, std::string backtrace)
      : kind_(kind), backtrace_(std::move(backtrace)) {}
  /*! \brief Appends the text of `value` (see AppendText) to the message. */
  template <typename T,
            typename = std::enable_if_t<std::is_null_pointer_v<T> ||
                                        !std::is_convertible_v<const T&, std::string_view>>>
  ErrorBuilder& operator<<(const T& value) {
    AppendText(&message_, value);
    return *this;
  }
  /*! \brief Appends a C string ("(null)" for null); string literals of every length share this. */
  ErrorBuilder& operator<<(const char* text) {
    AppendText(&message_, text);
    return *this;
  }
  /*! \brief Appends a string. */
  ErrorBuilder& operator<<(std::string_view text) {
    message_.append(text);
    return *this;
  }
  /*! \brief Throws the Error collected. */
  [[noreturn]] void Throw() { throw Error(kind_, message_, backtrace_); }
  /*! \brief Throws the Error collected, carrying `extra_context` (Error::extra_context). */
  [[noreturn]] void ThrowWithExtraContext(ObjectRef extra_context) {
    throw Error(kind_, message_, backtrace_, std::nullopt, std::move(extra_context));
  }
  /*! \brief Writes the Error collected to stderr (its backtrace, kind and message), throws it. */
  [[noreturn]] void LogAndThrow() {
    Error error(kind_, message_, backtrace_);
    std::string text = error.FullMessage();
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fputc('\n', stderr);
    throw error;
  }

 private:
  const char* kind_;
  std::string backtrace_;
  std::string message_;
};

/*!
 * \brief Throws what an ErrorBuilder collected: `ErrorThrower() & builder << a << b`. `&` binds
 * more loosely than `<<`, so the whole message is streamed first; if streaming an operand throws,
 * that exception propagates instead. The operator never returns, which compilers see.
 */
struct ErrorThrower {
  [[noreturn]] friend void operator&(ErrorThrower, ErrorBuilder& builder) { builder.Throw(); }
};

/*!
 * \brief Like ErrorThrower, but first writes the error's full text to stderr: for startup code
 * (static initializers, a library's load) where nothing may catch the exception.
 */
struct ErrorLogThrower {
  [[noreturn]] friend void operator&(ErrorLogThrower, ErrorBuilder& builder) {
    builder.LogAndThrow();
  }
};

/*!
 * \brief Takes the thread's raised error after a failed ABI call (an InternalError when none was
 * raised), to return it rather than throw it.
 */
inline Error MoveFromSafeCallRaised() {
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  if (handle == nullptr) return Error("InternalError", "an ABI call failed but raised no error");
  return Error(ObjectPtr<Object>::Steal(ObjectUnsafe::FromHeader(handle)));
}

/*! \brief Raises `error` for the thread, as a failing ABI function does before returning -1. */
inline void SetSafeCallRaised(const Error& error) {
  TVMFFIErrorSetRaised(ObjectUnsafe::Header(error.get()));
}

/*! \brief Throws the thread's raised error after a failed ABI call returning `code`. */
[[noreturn]] inline void ThrowRaised(int code) {
  if (code == -2) throw EnvErrorAlreadySet();
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  if (handle == nullptr) {
    std::string message = "an ABI call failed with code ";
    AppendInt(&message, code);
    throw Error("InternalError", message.append(" but raised no error"));
  }
  Error error(ObjectPtr<Object>::Steal(ObjectUnsafe::FromHeader(handle)));
  if (error.kind() == "EnvErrorAlreadySet") throw EnvErrorAlreadySet();
  throw error;
}

/*! \brief Stores a caught exception as the thread's raised error; returns the ABI return code. */
inline int SetRaisedFromException(std::exception_ptr ex) noexcept {
  try {
    std::rethrow_exception(ex);
  } catch (const Error& e) {
    TVMFFIErrorSetRaised(ObjectUnsafe::Header(e.get()));
  } catch (const EnvErrorAlreadySet&) {
    TVMFFIErrorSetRaisedFromCStr("EnvErrorAlreadySet", "");
  } catch (const std::bad_alloc& e) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", e.what());
  } catch (const std::out_of_range& e) {
    TVMFFIErrorSetRaisedFromCStr("IndexError", e.what());
  } catch (const std::invalid_argument& e) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", e.what());
  } catch (const std::exception& e) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", e.what());
  } catch (...) {
    TVMFFIErrorSetRaisedFromCStr("InternalError", "unknown C++ exception");
  }
  return -1;
}

/*! \brief " (x vs. y)": the operands of a failed binary check (never empty). */
template <typename X, typename Y>
std::string CheckFailure(const X& x, const Y& y) {
  std::string text = " (";
  AppendText(&text, x);
  text.append(" vs. ");
  AppendText(&text, y);
  text.push_back(')');
  return text;
}
#define FFI_DEFINE_CHECK_OP_(Name, Op)              \
  template <typename X, typename Y>                 \
  std::string Check##Name(const X& x, const Y& y) { \
    if (x Op y) return std::string();               \
    return CheckFailure(x, y);                      \
  }
FFI_DEFINE_CHECK_OP_(EQ, ==)
FFI_DEFINE_CHECK_OP_(NE, !=)
FFI_DEFINE_CHECK_OP_(LT, <)
FFI_DEFINE_CHECK_OP_(LE, <=)
FFI_DEFINE_CHECK_OP_(GT, >)
FFI_DEFINE_CHECK_OP_(GE, >=)
#undef FFI_DEFINE_CHECK_OP_
}  // namespace detail

/*!
 * \brief Throws an ffi::Error of the given kind with a streamed message and a backtrace:
 * `FFI_THROW(ValueError) << "expected " << n << " dims";`
 */
#define FFI_THROW(ErrorKind)                  \
  ::ffi::detail::ErrorThrower() &             \
      ::ffi::detail::ErrorBuilder(#ErrorKind, \
                                  ::ffi::detail::BacktraceHere(__FILE__, __LINE__, FFI_FUNC_NAME))

/*!
 * \brief FFI_THROW that also writes the error to stderr first, for code where nothing catches
 * it (static initialization): `FFI_LOG_AND_THROW(RuntimeError) << "cannot register " << key;`
 */
#define FFI_LOG_AND_THROW(ErrorKind)          \
  ::ffi::detail::ErrorLogThrower() &          \
      ::ffi::detail::ErrorBuilder(#ErrorKind, \
                                  ::ffi::detail::BacktraceHere(__FILE__, __LINE__, FFI_FUNC_NAME))

/*!
 * \brief Throws an error of `ErrorKind` unless `cond` holds:
 * `FFI_CHECK(n > 0, ValueError) << "n = " << n;`
 */
#define FFI_CHECK(cond, ErrorKind) \
  if (FFI_LIKELY(cond)) {          \
  } else                           \
    FFI_THROW(ErrorKind) << "Check failed: (" #cond ") is false: "

#define FFI_CHECK_BINARY_OP_(Name, Op, x, y, ErrorKind)                  \
  if (std::string _ffi_check_failure = ::ffi::detail::Check##Name(x, y); \
      _ffi_check_failure.empty()) {                                      \
  } else                                                                 \
    FFI_THROW(ErrorKind) << "Check failed: " #x " " #Op " " #y << _ffi_check_failure << ": "

/*! \brief Throws `ErrorKind`, printing both operands, unless `x == y`. */
#define FFI_CHECK_EQ(x, y, ErrorKind) FFI_CHECK_BINARY_OP_(EQ, ==, x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x != y`. */
#define FFI_CHECK_NE(x, y, ErrorKind) FFI_CHECK_BINARY_OP_(NE, !=, x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x < y`. */
#define FFI_CHECK_LT(x, y, ErrorKind) FFI_CHECK_BINARY_OP_(LT, <, x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x <= y`. */
#define FFI_CHECK_LE(x, y, ErrorKind) FFI_CHECK_BINARY_OP_(LE, <=, x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x > y`. */
#define FFI_CHECK_GT(x, y, ErrorKind) FFI_CHECK_BINARY_OP_(GT, >, x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x >= y`. */
#define FFI_CHECK_GE(x, y, ErrorKind) FFI_CHECK_BINARY_OP_(GE, >=, x, y, ErrorKind)

/*! \brief Throws InternalError unless `cond` holds: `FFI_ICHECK(p != nullptr) << "why";` */
#define FFI_ICHECK(cond) FFI_CHECK(cond, InternalError)

#define FFI_ICHECK_BINARY_OP_(Name, Op, x, y) FFI_CHECK_BINARY_OP_(Name, Op, x, y, InternalError)

/*! \brief Throws InternalError, printing both operands, unless `x == y`. */
#define FFI_ICHECK_EQ(x, y) FFI_ICHECK_BINARY_OP_(EQ, ==, x, y)
/*! \brief Throws InternalError unless `x != y`. */
#define FFI_ICHECK_NE(x, y) FFI_ICHECK_BINARY_OP_(NE, !=, x, y)
/*! \brief Throws InternalError unless `x < y`. */
#define FFI_ICHECK_LT(x, y) FFI_ICHECK_BINARY_OP_(LT, <, x, y)
/*! \brief Throws InternalError unless `x <= y`. */
#define FFI_ICHECK_LE(x, y) FFI_ICHECK_BINARY_OP_(LE, <=, x, y)
/*! \brief Throws InternalError unless `x > y`. */
#define FFI_ICHECK_GT(x, y) FFI_ICHECK_BINARY_OP_(GT, >, x, y)
/*! \brief Throws InternalError unless `x >= y`. */
#define FFI_ICHECK_GE(x, y) FFI_ICHECK_BINARY_OP_(GE, >=, x, y)
/*! \brief Throws InternalError unless `x` is not null. */
#define FFI_ICHECK_NOTNULL(x) FFI_ICHECK((x) != nullptr)

/*! \brief Opens the body of a C ABI function; C++ exceptions stop at FFI_SAFE_CALL_END. */
#define FFI_SAFE_CALL_BEGIN() try {
/*! \brief Closes FFI_SAFE_CALL_BEGIN: returns 0, or stores the exception and returns -1/-2. */
#define FFI_SAFE_CALL_END()                                                 \
  return 0;                                                                 \
  }                                                                         \
  FFI_DETAIL_LET_FORCED_UNWIND_PASS                                         \
  catch (...) {                                                             \
    return ::ffi::detail::SetRaisedFromException(std::current_exception()); \
  }

/*! \brief Evaluates an ABI call and throws the raised error when it returns non-zero. */
#define FFI_CHECK_SAFE_CALL(call)                                        \
  do {                                                                   \
    int _ffi_rc = (call);                                                \
    if (FFI_UNLIKELY(_ffi_rc != 0)) ::ffi::detail::ThrowRaised(_ffi_rc); \
  } while (0)

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_ERROR_H_
