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

#include <exception>
#include <memory>
#include <new>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <utility>

#include "object.h"

namespace ffi {

/*! \brief The object behind an Error made by these headers. */
class ErrorObj : public Object, public TVMFFIErrorCell {
 public:
  ErrorObj(std::string kind, std::string message, std::string backtrace,
           ObjectRef cause = ObjectRef(), ObjectRef extra_context = ObjectRef())
      : kind_(std::move(kind)),
        message_(std::move(message)),
        backtrace_(std::move(backtrace)),
        cause_(std::move(cause)),
        extra_context_(std::move(extra_context)) {
    this->kind = {kind_.data(), kind_.size()};
    this->message = {message_.data(), message_.size()};
    this->backtrace = {backtrace_.data(), backtrace_.size()};
    this->update_backtrace = UpdateBacktrace;
    this->cause_chain = detail::ObjectUnsafe::HeaderOf(cause_);
    this->extra_context = detail::ObjectUnsafe::HeaderOf(extra_context_);
  }
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Error", ErrorObj, Object, kTVMFFIError);

 private:
  static void UpdateBacktrace(TVMFFIObjectHandle self, const TVMFFIByteArray* text, int32_t mode) {
    auto* obj = static_cast<ErrorObj*>(detail::ObjectUnsafe::FromHeader(self));
    std::string add(text->data, text->size);
    obj->backtrace_ = mode == kTVMFFIBacktraceUpdateModeAppend ? obj->backtrace_ + add : add;
    obj->backtrace = {obj->backtrace_.data(), obj->backtrace_.size()};
  }
  std::string kind_, message_, backtrace_;
  ObjectRef cause_, extra_context_;
};

/*!
 * \brief An error object as a C++ exception. Never null.
 * `what()` is the Python-style report: the traceback (most recent call last), then "Kind: message".
 */
class Error : public ObjectRef, public std::exception {
 public:
  /*! \brief Makes a new error; `backtrace` is most recent call first, one frame per line. */
  Error(std::string kind, std::string message, std::string backtrace = "")
      : ObjectRef(
            make_object<ErrorObj>(std::move(kind), std::move(message), std::move(backtrace))) {}
  /*! \brief Wraps an existing error object (any library's). */
  explicit Error(ObjectPtr<Object> obj) : ObjectRef(std::move(obj)) {}

  /*! \brief The kind, e.g. "ValueError". */
  std::string kind() const { return ToString(cell()->kind); }
  /*! \brief The message. */
  std::string message() const { return ToString(cell()->message); }
  /*! \brief The backtrace as stored: most recent call first, one frame per line. */
  std::string backtrace() const { return ToString(cell()->backtrace); }
  /*! \brief The backtrace reversed to most recent call last, as Python prints tracebacks. */
  std::string TracebackMostRecentCallLast() const {
    std::string bt = backtrace(), out;
    size_t end = bt.size();
    while (end > 0) {
      size_t start = bt.rfind('\n', end - 1);
      start = (start == std::string::npos) ? 0 : start + 1;
      if (end > start) out.append(bt, start, end - start).push_back('\n');
      end = start == 0 ? 0 : start - 1;
    }
    return out;
  }
  /*! \brief "Traceback (most recent call last):\n<frames>Kind: message". */
  std::string FullMessage() const {
    std::string tb = TracebackMostRecentCallLast();
    std::string head = tb.empty() ? "" : "Traceback (most recent call last):\n" + tb;
    return head + kind() + ": " + message();
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
  static std::string ToString(const TVMFFIByteArray& a) { return std::string(a.data, a.size); }
  mutable std::string what_;
};

/*!
 * \brief Thrown by FFI_CHECK_SAFE_CALL when a callee returned -2: the error is pending in the host
 * language (e.g. a Python exception) and must travel back to it untouched.
 */
struct EnvErrorAlreadySet : public std::exception {
  const char* what() const noexcept override { return "an error is pending in the host language"; }
};

namespace detail {
/*! \brief The text of a backtrace taken here (most recent first). */
inline std::string BacktraceHere(const char* file, int line, const char* func) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(file, line, func, 0);
  return bt ? std::string(bt->data, bt->size) : std::string();
}

/*!
 * \brief An output stream appending to a std::string: what std::ostringstream offers, without
 * <sstream>, which would add noticeably to the compile time of every kernel.
 */
class StringStream : private std::streambuf, public std::ostream {
 public:
  StringStream() : std::ostream(static_cast<std::streambuf*>(this)) {}
  /*! \brief What was written so far. */
  std::string& str() { return buffer_; }

 private:
  using Traits = std::streambuf::traits_type;
  std::streambuf::int_type overflow(std::streambuf::int_type c) override {
    if (!Traits::eq_int_type(c, Traits::eof())) buffer_.push_back(static_cast<char>(c));
    return Traits::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    buffer_.append(s, static_cast<size_t>(n));
    return n;
  }
  std::string buffer_;
};

/*! \brief Collects an error's kind, backtrace and streamed message for ErrorThrower. */
class ErrorBuilder {
 public:
  ErrorBuilder(const char* kind, std::string backtrace)
      : kind_(kind), backtrace_(std::move(backtrace)) {}
  /*! \brief Appends to the message. */
  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }
  /*! \brief Applies a stream manipulator (std::hex, ...). */
  ErrorBuilder& operator<<(std::ostream& (*manipulator)(std::ostream&)) {
    stream_ << manipulator;
    return *this;
  }
  /*! \brief The Error to throw. */
  Error Build() { return Error(kind_, stream_.str(), std::move(backtrace_)); }

 private:
  const char* kind_;
  std::string backtrace_;
  StringStream stream_;
};

/*!
 * \brief Throws what an ErrorBuilder collected: `ErrorThrower() & builder << a << b`. `&` binds
 * more loosely than `<<`, so the whole message is streamed first; if streaming an operand throws,
 * that exception propagates instead. The operator never returns, which compilers see.
 */
struct ErrorThrower {
  [[noreturn]] friend void operator&(ErrorThrower, ErrorBuilder& builder) { throw builder.Build(); }
};

/*! \brief Throws the thread's raised error after a failed ABI call returning `code`. */
[[noreturn]] inline void ThrowRaised(int code) {
  if (code == -2) throw EnvErrorAlreadySet();
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  if (handle == nullptr) {
    throw Error("InternalError",
                "an ABI call failed with code " + std::to_string(code) + " but raised no error");
  }
  throw Error(ObjectPtr<Object>::Steal(ObjectUnsafe::FromHeader(handle)));
}

/*! \brief Stores a caught exception as the thread's raised error; returns the ABI return code. */
inline int SetRaisedFromException(std::exception_ptr ex) noexcept {
  try {
    std::rethrow_exception(ex);
  } catch (const Error& e) {
    TVMFFIErrorSetRaised(ObjectUnsafe::Header(e.get()));
  } catch (const EnvErrorAlreadySet&) {
    return -2;
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

/*! \brief Formats the operands of a failed binary check. */
template <typename X, typename Y>
std::unique_ptr<std::string> CheckFailure(const X& x, const Y& y) {
  StringStream os;
  os << " (" << x << " vs. " << y << ")";
  return std::make_unique<std::string>(os.str());
}
#define FFI_DEFINE_CHECK_OP_(Name, Op)                               \
  template <typename X, typename Y>                                  \
  std::unique_ptr<std::string> Check##Name(const X& x, const Y& y) { \
    if (x Op y) return nullptr;                                      \
    return CheckFailure(x, y);                                       \
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

/*! \brief Throws InternalError unless `cond` holds: `FFI_ICHECK(p != nullptr) << "why";` */
#define FFI_ICHECK(cond)  \
  if (FFI_LIKELY(cond)) { \
  } else                  \
    FFI_THROW(InternalError) << "Check failed: (" #cond ") is false: "

#define FFI_ICHECK_BINARY_OP_(Name, Op, x, y)                                            \
  if (auto _ffi_check_failure = ::ffi::detail::Check##Name(x, y); !_ffi_check_failure) { \
  } else                                                                                 \
    FFI_THROW(InternalError) << "Check failed: " #x " " #Op " " #y << *_ffi_check_failure << ": "

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
  catch (...) {                                                             \
    return ::ffi::detail::SetRaisedFromException(std::current_exception()); \
  }

/*! \brief Evaluates an ABI call and throws the raised error when it returns non-zero. */
#define FFI_CHECK_SAFE_CALL(call)                                        \
  do {                                                                   \
    int _ffi_rc = (call);                                                \
    if (FFI_UNLIKELY(_ffi_rc != 0)) ::ffi::detail::ThrowRaised(_ffi_rc); \
  } while (0)

}  // namespace ffi

#endif  // FFI_ERROR_H_
