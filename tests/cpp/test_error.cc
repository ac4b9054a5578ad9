// ffi::Error, FFI_THROW, FFI_ICHECK*, the safe-call macros, the thread-local raised error and
// backtraces.
#include <ffi/ffi.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "testing.h"

// Functions with external linkage (the test executable exports its symbols), so that backtraces can
// name them. noinline and work after the call keep each one a real frame.
namespace ffi_error_test {
volatile int g_throw = 1;

__attribute__((noinline)) int InnermostThrower(int x) {
  if (g_throw) FFI_THROW(RuntimeError) << "thrown deep inside, x=" << x;
  return x;
}

__attribute__((noinline)) int MiddleCaller(int x) {
  int r = InnermostThrower(x + 1);
  return r * 3 + g_throw;
}

__attribute__((noinline)) int OuterCaller(int x) {
  int r = MiddleCaller(x * 2);
  return r - g_throw;
}
}  // namespace ffi_error_test

namespace {

using namespace ffi_testing;

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Error
// ---------------------------------------------------------------------------------------------

TEST(Error, KindMessageBacktrace) {
  ffi::Error e("ValueError", "the message", "  A\n  B\n");
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "the message");
  EXPECT_EQ(e.backtrace(), "  A\n  B\n");
  EXPECT_EQ(e.type_index(), kTVMFFIError);
  EXPECT_EQ(e.use_count(), 1u);
  // The cell is what other libraries read.
  const TVMFFIErrorCell* cell = e.cell();
  EXPECT_EQ(std::string(cell->kind.data, cell->kind.size), "ValueError");
  EXPECT_EQ(std::string(cell->message.data, cell->message.size), "the message");
  EXPECT_EQ(cell->cause_chain, nullptr);
  EXPECT_EQ(cell->extra_context, nullptr);
}

TEST(Error, TracebackMostRecentCallLastReversesFrames) {
  EXPECT_EQ(ffi::Error("K", "m", "  A\n  B\n").TracebackMostRecentCallLast(), "  B\n  A\n");
  EXPECT_EQ(ffi::Error("K", "m", "  A\n  B\n  C\n").TracebackMostRecentCallLast(),
            "  C\n  B\n  A\n");
  // A missing final newline still yields whole lines.
  EXPECT_EQ(ffi::Error("K", "m", "  A\n  B").TracebackMostRecentCallLast(), "  B\n  A\n");
  EXPECT_EQ(ffi::Error("K", "m", "  only\n").TracebackMostRecentCallLast(), "  only\n");
  EXPECT_EQ(ffi::Error("K", "m", "").TracebackMostRecentCallLast(), "");
}

TEST(Error, FullMessageAndWhat) {
  ffi::Error e("IndexError", "index 3 out of range", "  A\n  B\n");
  const std::string expected =
      "Traceback (most recent call last):\n  B\n  A\nIndexError: index 3 out of range";
  EXPECT_EQ(e.FullMessage(), expected);
  EXPECT_EQ(std::string(e.what()), expected);
  // Through the std::exception interface as well.
  const std::exception& as_std = e;
  EXPECT_STREQ(as_std.what(), expected.c_str());
  // Without a backtrace, only "Kind: message".
  ffi::Error bare("KeyError", "no such key", "");
  EXPECT_EQ(bare.FullMessage(), "KeyError: no such key");
  EXPECT_STREQ(bare.what(), "KeyError: no such key");
}

TEST(Error, CopiesShareTheObject) {
  ffi::Error e("ValueError", "shared", "");
  ffi::Error copy = e;
  EXPECT_TRUE(copy.same_as(e));
  EXPECT_EQ(e.use_count(), 2u);
  EXPECT_EQ(copy.message(), "shared");
}

TEST(Error, WrapsErrorsMadeThroughTheCApi) {
  TVMFFIByteArray kind{"AttributeError", 14};
  TVMFFIByteArray msg{"no attribute x", 14};
  TVMFFIByteArray bt{"  frame1\n  frame2\n", 18};
  TVMFFIObjectHandle handle = nullptr;
  ASSERT_EQ(TVMFFIErrorCreate(&kind, &msg, &bt, &handle), 0);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(TVMFFIObjectGetTypeIndex(handle), kTVMFFIError);
  ffi::Error e(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(handle)));
  EXPECT_EQ(e.kind(), "AttributeError");
  EXPECT_EQ(e.message(), "no attribute x");
  EXPECT_EQ(e.backtrace(), "  frame1\n  frame2\n");
  EXPECT_EQ(
      e.FullMessage(),
      "Traceback (most recent call last):\n  frame2\n  frame1\nAttributeError: no attribute x");

  // update_backtrace appends (frames further from the throw) or replaces.
  TVMFFIByteArray more{"  frame3\n", 9};
  e.cell()->update_backtrace(handle, &more, kTVMFFIBacktraceUpdateModeAppend);
  EXPECT_EQ(e.backtrace(), "  frame1\n  frame2\n  frame3\n");
  TVMFFIByteArray fresh{"  new\n", 6};
  e.cell()->update_backtrace(handle, &fresh, kTVMFFIBacktraceUpdateModeReplace);
  EXPECT_EQ(e.backtrace(), "  new\n");
}

TEST(Error, CauseAndExtraContext) {
  ffi::Error cause("ValueError", "root cause", "");
  ffi::String context("some context object");
  TVMFFIByteArray kind{"RuntimeError", 12};
  TVMFFIByteArray msg{"wrapper", 7};
  TVMFFIObjectHandle handle = nullptr;
  ASSERT_EQ(TVMFFIErrorCreateWithCauseAndExtraContext(
                &kind, &msg, nullptr, ffi::detail::ObjectUnsafe::HeaderOf(cause),
                ffi::detail::ObjectUnsafe::HeaderOf(context), &handle),
            0);
  ffi::Error e(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(handle)));
  EXPECT_EQ(e.backtrace(), "");
  EXPECT_EQ(e.cell()->cause_chain, ffi::detail::ObjectUnsafe::HeaderOf(cause));
  EXPECT_EQ(e.cell()->extra_context, ffi::detail::ObjectUnsafe::HeaderOf(context));
  EXPECT_EQ(cause.use_count(), 2u);  // the new error holds its cause
  EXPECT_EQ(context.use_count(), 2u);
  e = ffi::Error("Other", "", "");
  EXPECT_EQ(cause.use_count(), 1u);
  EXPECT_EQ(context.use_count(), 1u);
}

TEST(Error, TwoArgumentConstructorHasNoBacktrace) {
  ffi::Error e("TypeError", "no frames");
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "no frames");
  EXPECT_EQ(e.backtrace(), "");
  EXPECT_EQ(e.TracebackMostRecentCallLast(), "");
  EXPECT_EQ(e.FullMessage(), "TypeError: no frames");
  EXPECT_STREQ(e.what(), "TypeError: no frames");
}

TEST(Error, KindAndMessageKeepEveryByte) {
  // The accessors read the cell's byte arrays: embedded NULs and newlines are kept, and an empty
  // message still gets the ": " separator.
  const std::string message("line one\nline\0two", 17);
  ffi::Error e("ValueError", message, "");
  EXPECT_EQ(e.message(), message);
  EXPECT_EQ(e.message().size(), 17u);
  EXPECT_EQ(e.FullMessage(), "ValueError: " + message);
  ffi::Error empty("RuntimeError", "", "");
  EXPECT_EQ(empty.message(), "");
  EXPECT_EQ(empty.FullMessage(), "RuntimeError: ");
  EXPECT_STREQ(empty.what(), "RuntimeError: ");
}

TEST(Error, TracebackOfOnlyEmptyLinesHasNoFrames) {
  // Empty lines are not frames: a backtrace made of them gives no traceback and no header.
  ffi::Error newline("K", "m", "\n");
  EXPECT_EQ(newline.TracebackMostRecentCallLast(), "");
  EXPECT_EQ(newline.FullMessage(), "K: m");
  ffi::Error newlines("K", "m", "\n\n\n");
  EXPECT_EQ(newlines.TracebackMostRecentCallLast(), "");
  EXPECT_EQ(newlines.FullMessage(), "K: m");
  // Between frames, an empty line is dropped as well.
  ffi::Error gap("K", "m", "  A\n\n  B\n");
  EXPECT_EQ(gap.TracebackMostRecentCallLast(), "  B\n  A\n");
  EXPECT_EQ(gap.FullMessage(), "Traceback (most recent call last):\n  B\n  A\nK: m");
  // A frame without indentation is still a frame.
  EXPECT_EQ(ffi::Error("K", "m", "x\ny").TracebackMostRecentCallLast(), "y\nx\n");
}

TEST(Error, WhatFollowsTheCurrentObject) {
  ffi::Error e("KeyError", "first", "  A\n");
  EXPECT_STREQ(e.what(), "Traceback (most recent call last):\n  A\nKeyError: first");
  e = ffi::Error("IndexError", "second", "");
  EXPECT_STREQ(e.what(), "IndexError: second");
}

// ---------------------------------------------------------------------------------------------
// FFI_THROW and backtraces
// ---------------------------------------------------------------------------------------------

TEST(Throw, KindMessageAndThrowSite) {
  int line = 0;
  ffi::Error e = CatchError([&] {
    line = __LINE__ + 1;
    FFI_THROW(ValueError) << "expected " << 3 << " dims, got " << 2.5;
  });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "expected 3 dims, got 2.5");
  std::string first = FirstLine(e.backtrace());
  EXPECT_EQ(first.rfind("  File \"", 0), 0u) << first;
  EXPECT_NE(first.find("test_error.cc\""), std::string::npos) << first;
  EXPECT_NE(first.find(", line " + std::to_string(line)), std::string::npos) << first;
  // The full report ends with the kind and message, the throw site last among the frames.
  std::string what = e.what();
  EXPECT_EQ(what.rfind("Traceback (most recent call last):\n", 0), 0u) << what;
  const std::string tail = first + "\nValueError: expected 3 dims, got 2.5";
  ASSERT_GE(what.size(), tail.size());
  EXPECT_EQ(what.substr(what.size() - tail.size()), tail) << what;
}

TEST(Throw, IsCaughtAsStdException) {
  try {
    FFI_THROW(KeyError) << "missing";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("KeyError: missing"), std::string::npos);
    return;
  }
  FAIL() << "nothing thrown";
}

/*! \brief Runs `fn` in a child process: its exit code, or minus the signal that killed it. */
template <typename F>
int RunInChild(F fn) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) _exit(fn());
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1001;
}

TEST(Throw, ExceptionWhileStreamingTheMessagePropagates) {
  // An operand of `<<` that throws must not turn into std::terminate: the builder's destructor
  // runs during that unwinding and may not throw its own error then. Run in a child process so
  // a terminate does not take the whole suite down.
  int code = RunInChild([]() -> int {
    auto failing = []() -> int { throw std::runtime_error("operand failed"); };
    try {
      FFI_THROW(ValueError) << "value " << failing();
    } catch (const std::runtime_error& e) {
      return std::string(e.what()) == "operand failed" ? 0 : 2;
    } catch (...) {
      return 3;
    }
    return 4;
  });
  EXPECT_EQ(code, 0) << "child exit code (negative: killed by that signal; -6 is the SIGABRT of "
                        "std::terminate)";
}

TEST(Throw, BacktraceNamesNestedFunctions) {
  ffi::Error e = CatchError([] { ffi_error_test::OuterCaller(1); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "thrown deep inside, x=3");
  std::string bt = e.backtrace();
  std::vector<std::string> lines = Lines(bt);
  ASSERT_GE(lines.size(), 3u) << bt;
  // The throw site names the innermost function; the frames below it name its callers.
  EXPECT_NE(lines[0].find("InnermostThrower"), std::string::npos) << bt;
  size_t middle = bt.find("ffi_error_test::MiddleCaller");
  size_t outer = bt.find("ffi_error_test::OuterCaller");
  EXPECT_NE(middle, std::string::npos) << bt;
  EXPECT_NE(outer, std::string::npos) << bt;
  EXPECT_LT(middle, outer) << "most recent call first:\n" << bt;
  EXPECT_GT(middle, lines[0].size()) << bt;  // resolved from the stack, not the throw site
  for (const std::string& l : lines) {
    EXPECT_EQ(l.rfind("  File \"", 0), 0u) << l;
  }
  // The throwing function is listed once: its throw site, not again as an unwound frame.
  EXPECT_EQ(bt.find("InnermostThrower", lines[0].size()), std::string::npos) << bt;
  // The throw machinery is not listed.
  EXPECT_EQ(bt.find("ErrorBuilder"), std::string::npos) << bt;
  EXPECT_EQ(bt.find("BacktraceHere"), std::string::npos) << bt;
  EXPECT_EQ(bt.find("TVMFFIBacktrace"), std::string::npos) << bt;
  // Python order puts the outer caller first.
  std::string tb = e.TracebackMostRecentCallLast();
  EXPECT_LT(tb.find("ffi_error_test::OuterCaller"), tb.find("ffi_error_test::MiddleCaller")) << tb;
}

TEST(Throw, CApiBacktraceFirstLine) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace("some_file.cc", 42, "my_func", 0);
  ASSERT_NE(bt, nullptr);
  std::string text(bt->data, bt->size);
  EXPECT_EQ(FirstLine(text), "  File \"some_file.cc\", line 42, in my_func");
  const TVMFFIByteArray* no_file = TVMFFIBacktrace(nullptr, 0, nullptr, 0);
  ASSERT_NE(no_file, nullptr);
  std::string rest(no_file->data, no_file->size);
  EXPECT_EQ(rest.find("some_file.cc"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// FFI_ICHECK
// ---------------------------------------------------------------------------------------------

TEST(ICheck, FailingCheckMessage) {
  int x = 3;
  ffi::Error e = CatchError([&] { FFI_ICHECK(x == 2) << "extra"; });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_NE(e.message().find("Check failed: (x == 2) is false: extra"), std::string::npos)
      << e.message();
  EXPECT_EQ(FirstLine(e.backtrace()).rfind("  File \"", 0), 0u);
  EXPECT_NO_THROW(FFI_ICHECK(x == 3) << "never built");
  int* null = nullptr;
  e = CatchError([&] { FFI_ICHECK_NOTNULL(null); });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_NE(e.message().find("null"), std::string::npos) << e.message();
  EXPECT_NO_THROW(FFI_ICHECK_NOTNULL(&x));
}

TEST(ICheck, BinaryChecksPrintOperands) {
  int a = 1, b = 2;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(a, b); }).message(), "Check failed: a == b (1 vs. 2): ");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_NE(a, a); }).message(), "Check failed: a != a (1 vs. 1): ");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_LT(b, a); }).message(), "Check failed: b < a (2 vs. 1): ");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_LE(b, a); }).message(), "Check failed: b <= a (2 vs. 1): ");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_GT(a, b); }).message(), "Check failed: a > b (1 vs. 2): ");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_GE(a, b); }).message(), "Check failed: a >= b (1 vs. 2): ");
  ffi::Error e = CatchError([&] { FFI_ICHECK_LT(a + 5, b) << "context " << 7; });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_EQ(e.message(), "Check failed: a + 5 < b (6 vs. 2): context 7");
  std::string s = "left";
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(s, std::string("right")); }).message(),
            "Check failed: s == std::string(\"right\") (left vs. right): ");
}

TEST(ICheck, PassingChecksDoNotThrow) {
  int a = 1, b = 2;
  EXPECT_NO_THROW(FFI_ICHECK_EQ(a, a));
  EXPECT_NO_THROW(FFI_ICHECK_NE(a, b));
  EXPECT_NO_THROW(FFI_ICHECK_LT(a, b));
  EXPECT_NO_THROW(FFI_ICHECK_LE(a, a));
  EXPECT_NO_THROW(FFI_ICHECK_LE(a, b));
  EXPECT_NO_THROW(FFI_ICHECK_GT(b, a));
  EXPECT_NO_THROW(FFI_ICHECK_GE(b, b));
  EXPECT_NO_THROW(FFI_ICHECK_GE(b, a));
  EXPECT_NO_THROW(FFI_ICHECK(a < b));
}

TEST(ICheck, OperandsAreEvaluatedOnce) {
  int calls = 0;
  auto next = [&calls] { return ++calls; };
  FFI_ICHECK_EQ(next(), 1);
  EXPECT_EQ(calls, 1);
  FFI_ICHECK(next() == 2);
  EXPECT_EQ(calls, 2);
  ffi::Error e = CatchError([&] { FFI_ICHECK_EQ(next(), 100) << "after " << calls; });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(e.message(), "Check failed: next() == 100 (3 vs. 100): after 3");
  e = CatchError([&] { FFI_ICHECK(next() == 100); });
  EXPECT_EQ(calls, 4);
  int side = 0;
  FFI_ICHECK_LT(side++, 10);
  EXPECT_EQ(side, 1);
  e = CatchError([&] { FFI_ICHECK_GE(side++, 10); });
  EXPECT_EQ(side, 2);
  EXPECT_EQ(e.message(), "Check failed: side++ >= 10 (1 vs. 10): ");
}

TEST(ICheck, MessageIsOnlyBuiltOnFailure) {
  int built = 0;
  auto expensive = [&built] {
    ++built;
    return "expensive";
  };
  FFI_ICHECK(true) << expensive();
  FFI_ICHECK_EQ(1, 1) << expensive();
  EXPECT_EQ(built, 0);
  CatchError([&] { FFI_ICHECK_EQ(1, 2) << expensive(); });
  EXPECT_EQ(built, 1);
}

// ---------------------------------------------------------------------------------------------
// How messages format values (ffi::detail::AppendText, used by FFI_THROW and the checks)
// ---------------------------------------------------------------------------------------------

enum UnscopedColor { kRed = 3, kBelowZero = -2 };
enum class ScopedSize : int64_t { kNegative = -9, kLarge = int64_t{1} << 40 };
enum class ByteEnum : uint8_t { kSixtyFive = 65 };

/*! \brief A user type known to messages only through its operator<< on std::ostream. */
struct Point {
  int x;
  int y;
  bool operator==(const Point& o) const { return x == o.x && y == o.y; }
};
std::ostream& operator<<(std::ostream& os, const Point& p) {
  return os << "Point(" << p.x << ", " << p.y << ")";
}

/*! \brief A user type whose operator<< changes the stream's flags. */
struct HexByte {
  int value;
};
std::ostream& operator<<(std::ostream& os, const HexByte& h) { return os << std::hex << h.value; }

/*! \brief The text ffi::detail::AppendText writes for `value`. */
template <typename T>
std::string Text(const T& value) {
  std::string out;
  ffi::detail::AppendText(&out, value);
  return out;
}

/*! \brief The message of `FFI_THROW(ValueError) << value`. */
template <typename T>
std::string Thrown(const T& value) {
  return CatchError([&] { FFI_THROW(ValueError) << value; }).message();
}

/*! \brief printf's text for `format` and `value`. */
template <typename T>
std::string Printf(const char* format, T value) {
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), format, value);
  return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
}

// AppendText and a message streamed into FFI_THROW both write `expected`.
#define EXPECT_FORMATS_AS(value, expected) \
  do {                                     \
    SCOPED_TRACE(#value);                  \
    EXPECT_EQ(Text(value), expected);      \
    EXPECT_EQ(Thrown(value), expected);    \
  } while (0)

TEST(ErrorFormat, StringsAsTheyAre) {
  EXPECT_FORMATS_AS("a string literal", "a string literal");
  EXPECT_FORMATS_AS("", "");
  const char* cstr = "a C string";
  EXPECT_FORMATS_AS(cstr, "a C string");
  char buffer[] = "mutable chars";
  char* mutable_cstr = buffer;
  EXPECT_FORMATS_AS(mutable_cstr, "mutable chars");
  EXPECT_FORMATS_AS(std::string("a std::string"), "a std::string");
  const std::string_view prefix("view of more", 7);  // not NUL-terminated at its end
  EXPECT_FORMATS_AS(prefix, "view of");
  EXPECT_FORMATS_AS(ffi::String("an ffi::String longer than seven bytes"),
                    "an ffi::String longer than seven bytes");
  EXPECT_FORMATS_AS(ffi::String("short"), "short");
  const ffi::String with_nul(std::string("a\0b", 3));
  EXPECT_FORMATS_AS(with_nul, std::string("a\0b", 3));
  EXPECT_FORMATS_AS(ffi::ConstString("a ConstString"), "a ConstString");
  EXPECT_FORMATS_AS(ffi::ConstString("Optional<") + ffi::ConstString("str") + ">", "Optional<str>");
  // Several in one message.
  std::string s = "std";
  EXPECT_EQ(CatchError([&] {
              FFI_THROW(ValueError) << "lit," << cstr << "," << s << "," << prefix << ","
                                    << ffi::String("ffi") << "," << ffi::ConstString("const");
            }).message(),
            "lit,a C string,std,view of,ffi,const");
}

TEST(ErrorFormat, NullCStringIsPrintedAsNull) {
  const char* null_cstr = nullptr;
  EXPECT_FORMATS_AS(null_cstr, "(null)");
  char* null_mutable = nullptr;
  EXPECT_FORMATS_AS(null_mutable, "(null)");
  EXPECT_EQ(CatchError([&] { FFI_THROW(ValueError) << "name=" << null_cstr << "."; }).message(),
            "name=(null).");
  const char* text = "text";
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(null_cstr, text); }).message(),
            "Check failed: null_cstr == text ((null) vs. text): ");
}

TEST(ErrorFormat, CharAsACharacterAndBoolAsWords) {
  EXPECT_FORMATS_AS('x', "x");
  const char newline = '\n';
  EXPECT_FORMATS_AS(newline, "\n");
  EXPECT_FORMATS_AS(true, "true");
  EXPECT_FORMATS_AS(false, "false");
  const bool flag = true;
  EXPECT_EQ(CatchError([&] { FFI_THROW(ValueError) << 'a' << 'b' << ' ' << flag; }).message(),
            "ab true");
}

TEST(ErrorFormat, IntegersInDecimal) {
  // int8_t and uint8_t are numbers here, not characters.
  EXPECT_FORMATS_AS(int8_t{-5}, "-5");
  EXPECT_FORMATS_AS(int8_t{65}, "65");
  EXPECT_FORMATS_AS(uint8_t{250}, "250");
  EXPECT_FORMATS_AS(uint8_t{65}, "65");
  EXPECT_FORMATS_AS(static_cast<signed char>(-128), "-128");
  EXPECT_FORMATS_AS(static_cast<short>(-300), "-300");
  EXPECT_FORMATS_AS(static_cast<uint16_t>(65535), "65535");
  EXPECT_FORMATS_AS(0, "0");
  EXPECT_FORMATS_AS(-7, "-7");
  EXPECT_FORMATS_AS(2147483647, "2147483647");
  EXPECT_FORMATS_AS(4000000000u, "4000000000");
  EXPECT_FORMATS_AS(-(int64_t{1} << 40), "-1099511627776");
  EXPECT_FORMATS_AS(std::numeric_limits<int64_t>::min(), "-9223372036854775808");
  EXPECT_FORMATS_AS(std::numeric_limits<int64_t>::max(), "9223372036854775807");
  EXPECT_FORMATS_AS(UINT64_MAX, "18446744073709551615");
  EXPECT_FORMATS_AS(std::numeric_limits<uint64_t>::max(), "18446744073709551615");
  EXPECT_FORMATS_AS(size_t{123}, "123");
  EXPECT_FORMATS_AS(-12345678901LL, "-12345678901");
}

TEST(ErrorFormat, EnumsAsTheirUnderlyingInteger) {
  EXPECT_FORMATS_AS(kRed, "3");
  EXPECT_FORMATS_AS(kBelowZero, "-2");
  EXPECT_FORMATS_AS(ScopedSize::kNegative, "-9");
  EXPECT_FORMATS_AS(ScopedSize::kLarge, "1099511627776");
  EXPECT_FORMATS_AS(ByteEnum::kSixtyFive, "65");  // uint8_t underneath: a number, not 'A'
  EXPECT_FORMATS_AS(kDLCUDA, "2");
  EXPECT_FORMATS_AS(kTVMFFIStr, std::to_string(static_cast<int>(kTVMFFIStr)));
}

TEST(ErrorFormat, FloatingPointLikePrintfG) {
  EXPECT_FORMATS_AS(0.5, "0.5");
  EXPECT_FORMATS_AS(1e20, "1e+20");
  EXPECT_FORMATS_AS(1.0, "1");
  EXPECT_FORMATS_AS(-0.25, "-0.25");
  EXPECT_FORMATS_AS(1.0 / 3.0, "0.333333");
  EXPECT_FORMATS_AS(1e-5, "1e-05");
  EXPECT_FORMATS_AS(123456789.0, "1.23457e+08");
  EXPECT_FORMATS_AS(-0.0, "-0");
  EXPECT_FORMATS_AS(2.5f, "2.5");
  EXPECT_FORMATS_AS(0.1f, "0.1");
  EXPECT_FORMATS_AS(3e38f, "3e+38");
  EXPECT_FORMATS_AS(0.5L, "0.5");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_FORMATS_AS(inf, Printf("%g", inf));
  EXPECT_FORMATS_AS(-inf, Printf("%g", -inf));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FORMATS_AS(nan, Printf("%g", nan));
  const double values[] = {6.02214076e23, 1.5e-300, 42.125, 1e6, 1e5, 9.999995};
  for (double v : values) EXPECT_FORMATS_AS(v, Printf("%g", v));
}

TEST(ErrorFormat, PointersInHex) {
  int x = 0;
  int* p = &x;
  const std::string expected = Printf("%p", static_cast<const void*>(p));
  EXPECT_EQ(expected.rfind("0x", 0), 0u) << expected;
  EXPECT_FORMATS_AS(p, expected);
  const int* cp = &x;
  EXPECT_FORMATS_AS(cp, expected);
  void* vp = &x;
  EXPECT_FORMATS_AS(vp, expected);
  // Pointers to bytes that are not chars are addresses, not strings.
  const uint8_t bytes[4] = {'a', 'b', 'c', 0};
  const uint8_t* bp = bytes;
  EXPECT_FORMATS_AS(bp, Printf("%p", static_cast<const void*>(bp)));
  const signed char* sp = reinterpret_cast<const signed char*>(bytes);
  EXPECT_FORMATS_AS(sp, Printf("%p", static_cast<const void*>(sp)));
  const char* cstr = "s";
  const char* const* pp = &cstr;
  EXPECT_FORMATS_AS(pp, Printf("%p", static_cast<const void*>(pp)));
  int* null_int = nullptr;
  EXPECT_FORMATS_AS(null_int, Printf("%p", static_cast<const void*>(nullptr)));
}

// std::nullptr_t converts to std::string_view in C++17; it must print as "nullptr", not be read as
// a (null) string.
TEST(ErrorFormat, NullptrIsPrintedAsNullptr) {
  EXPECT_EQ(Text(nullptr), "nullptr");
  EXPECT_EQ(Thrown(nullptr), "nullptr");
  int x = 0;
  int* p = &x;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(p, nullptr); }).message(),
            "Check failed: p == nullptr (" + Printf("%p", static_cast<const void*>(p)) +
                " vs. nullptr): ");
  int* null_int = nullptr;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_NE(null_int, nullptr); }).message(),
            "Check failed: null_int != nullptr (" +
                Printf("%p", static_cast<const void*>(nullptr)) + " vs. nullptr): ");
}

TEST(ErrorFormat, DLPackTypesAndShapes) {
  EXPECT_FORMATS_AS(kF32, "float32");
  EXPECT_FORMATS_AS((DLDataType{kDLInt, 64, 1}), "int64");
  EXPECT_FORMATS_AS((DLDataType{kDLFloat, 16, 4}), "float16x4");
  EXPECT_FORMATS_AS((DLDataType{kDLBool, 8, 1}), "bool");
  EXPECT_FORMATS_AS((DLDevice{kDLCUDA, 1}), "cuda:1");
  EXPECT_FORMATS_AS(kCPU, "cpu");
  EXPECT_FORMATS_AS((DLDevice{kDLCPU, 1}), "cpu:1");
  const ffi::Shape shape({2, 3});
  EXPECT_FORMATS_AS(shape, "[2, 3]");
  EXPECT_FORMATS_AS(shape.view(), "[2, 3]");
  EXPECT_FORMATS_AS(ffi::Shape(), "[]");
  EXPECT_FORMATS_AS(ffi::ShapeView(), "[]");
  const int64_t extents[] = {-1, 0, 7};
  EXPECT_FORMATS_AS(ffi::ShapeView(extents, 3), "[-1, 0, 7]");
  EXPECT_FORMATS_AS(ffi::Shape({5}), "[5]");
  EXPECT_FORMATS_AS(ffi::Shape({std::numeric_limits<int64_t>::min()}), "[-9223372036854775808]");
}

TEST(ErrorFormat, UserTypesThroughTheirOstreamOperator) {
  EXPECT_FORMATS_AS((Point{1, 2}), "Point(1, 2)");
  EXPECT_EQ(CatchError([] {
              FFI_THROW(ValueError) << "at " << Point{-3, 4} << "!";
            }).message(),
            "at Point(-3, 4)!");
  // Each value gets a fresh stream: a user's std::hex does not leak into the values after it.
  EXPECT_FORMATS_AS(HexByte{255}, "ff");
  EXPECT_EQ(CatchError([] { FFI_THROW(ValueError) << HexByte{255} << " " << 255; }).message(),
            "ff 255");
}

TEST(ErrorFormat, MixedMessage) {
  DLDataType dtype{kDLInt, 64, 1};
  ffi::Shape shape({2, 3});
  ffi::Error e = CatchError([&] {
    FFI_THROW(TypeError) << "dtype " << dtype << " on " << DLDevice{kDLCUDA, 1} << " shape "
                         << shape << ", " << 3 << " dims, scale " << 0.5 << ", ok=" << false
                         << ", mode " << ScopedSize::kNegative << ", at " << Point{1, 2} << ", tag "
                         << 'q';
  });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "dtype int64 on cuda:1 shape [2, 3], 3 dims, scale 0.5, ok=false, mode -9, at "
            "Point(1, 2), tag q");
}

TEST(ICheck, OperandsOfEveryKindArePrinted) {
  EXPECT_EQ(CatchError([] { FFI_ICHECK_EQ(3, 4); }).message(), "Check failed: 3 == 4 (3 vs. 4): ");
  EXPECT_EQ(CatchError([] { FFI_ICHECK_LT(4, 3) << "why"; }).message(),
            "Check failed: 4 < 3 (4 vs. 3): why");
  char a = 'a', b = 'b';
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(a, b); }).message(), "Check failed: a == b (a vs. b): ");
  bool yes = true, no = false;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(yes, no); }).message(),
            "Check failed: yes == no (true vs. false): ");
  uint8_t small = 250, three = 3;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_LT(small, three); }).message(),
            "Check failed: small < three (250 vs. 3): ");
  int64_t negative = -4;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_GT(negative, 0); }).message(),
            "Check failed: negative > 0 (-4 vs. 0): ");
  uint64_t big = UINT64_MAX;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(big, uint64_t{0}); }).message(),
            "Check failed: big == uint64_t{0} (18446744073709551615 vs. 0): ");
  EXPECT_EQ(CatchError([] { FFI_ICHECK_EQ(ScopedSize::kNegative, ScopedSize::kLarge); }).message(),
            "Check failed: ScopedSize::kNegative == ScopedSize::kLarge (-9 vs. 1099511627776): ");
  double huge = 1e20;
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_LT(huge, 0.5); }).message(),
            "Check failed: huge < 0.5 (1e+20 vs. 0.5): ");
  std::string_view view = "abc";
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(view, std::string_view("abd")); }).message(),
            "Check failed: view == std::string_view(\"abd\") (abc vs. abd): ");
  ffi::String name("a name longer than seven bytes");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(name, "other"); }).message(),
            "Check failed: name == \"other\" (a name longer than seven bytes vs. other): ");
  DLDataType dtype{kDLInt, 64, 1};
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(dtype, kF32) << "dtype"; }).message(),
            "Check failed: dtype == kF32 (int64 vs. float32): dtype");
  DLDevice device{kDLCUDA, 1};
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(device, kCPU); }).message(),
            "Check failed: device == kCPU (cuda:1 vs. cpu): ");
  ffi::Shape shape({2, 3}), other({3, 2});
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(shape, other); }).message(),
            "Check failed: shape == other ([2, 3] vs. [3, 2]): ");
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_NE(shape.view(), shape.view()); }).message(),
            "Check failed: shape.view() != shape.view() ([2, 3] vs. [2, 3]): ");
  Point p{1, 2}, q{2, 1};
  EXPECT_EQ(CatchError([&] { FFI_ICHECK_EQ(p, q); }).message(),
            "Check failed: p == q (Point(1, 2) vs. Point(2, 1)): ");

  // The same operands pass when the relation holds.
  EXPECT_NO_THROW(FFI_ICHECK_EQ(a, 'a'));
  EXPECT_NO_THROW(FFI_ICHECK_NE(yes, no));
  EXPECT_NO_THROW(FFI_ICHECK_GT(small, three));
  EXPECT_NO_THROW(FFI_ICHECK_LE(negative, 0));
  EXPECT_NO_THROW(FFI_ICHECK_EQ(big, UINT64_MAX));
  EXPECT_NO_THROW(FFI_ICHECK_GE(huge, 0.5));
  EXPECT_NO_THROW(FFI_ICHECK_EQ(view, "abc"));
  EXPECT_NO_THROW(FFI_ICHECK_EQ(name, "a name longer than seven bytes"));
  EXPECT_NO_THROW(FFI_ICHECK_EQ(dtype, (DLDataType{kDLInt, 64, 1})));
  EXPECT_NO_THROW(FFI_ICHECK_NE(device, kCPU));
  EXPECT_NO_THROW(FFI_ICHECK_EQ(shape, ffi::Shape({2, 3})));
  EXPECT_NO_THROW(FFI_ICHECK_EQ(p, (Point{1, 2})));
}

TEST(Ostream, PrintingWorksWithTheUsersOwnStreamHeaders) {
  // The headers include no stream header, but their operator<< templates work once the user's
  // code includes <sstream> (or <iostream>).
  std::ostringstream os;
  os << DLDataType{kDLFloat, 32, 1} << ' ' << DLDevice{kDLCUDA, 1} << ' ' << ffi::Shape({2, 3})
     << ' ' << ffi::String("s");
  EXPECT_EQ(os.str(), "float32 cuda:1 [2, 3] s");
  std::ostringstream more;
  const int64_t extents[] = {4, 5, 6};
  more << ffi::ShapeView(extents, 3) << '|' << ffi::Shape() << '|' << kCPU << '|'
       << DLDataType{kDLFloat, 16, 4} << '|' << ffi::String("a string longer than seven bytes");
  EXPECT_EQ(more.str(), "[4, 5, 6]|[]|cpu|float16x4|a string longer than seven bytes");
}

// ---------------------------------------------------------------------------------------------
// FFI_SAFE_CALL_BEGIN / END and FFI_CHECK_SAFE_CALL
// ---------------------------------------------------------------------------------------------

enum class ThrowWhat : int64_t {
  kNothing,
  kFfiError,
  kBadAlloc,
  kOutOfRange,
  kInvalidArgument,
  kRuntimeError,
  kLogicError,
  kInt,
  kEnvErrorAlreadySet,
};

/*! \brief A safe-call entry point: args[0] says what to throw; the result is an int 7. */
int TestSafeCall(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  FFI_SAFE_CALL_BEGIN();
  FFI_ICHECK_EQ(num_args, 1);
  auto what = static_cast<ThrowWhat>(ffi::AnyView::FromRaw(args[0]).cast<int64_t>());
  switch (what) {
    case ThrowWhat::kNothing:
      break;
    case ThrowWhat::kFfiError:
      FFI_THROW(ValueError) << "ffi error " << 1;
      break;
    case ThrowWhat::kBadAlloc:
      throw std::bad_alloc();
    case ThrowWhat::kOutOfRange:
      throw std::out_of_range("index 9 out of range");
    case ThrowWhat::kInvalidArgument:
      throw std::invalid_argument("bad argument");
    case ThrowWhat::kRuntimeError:
      throw std::runtime_error("runtime failure");
    case ThrowWhat::kLogicError:
      throw std::logic_error("logic failure");
    case ThrowWhat::kInt:
      throw 42;
    case ThrowWhat::kEnvErrorAlreadySet:
      throw ffi::EnvErrorAlreadySet();
  }
  *result = ffi::Any(int64_t{7}).release();
  FFI_SAFE_CALL_END();
}

int CallTest(ThrowWhat what, ffi::Any* result = nullptr) {
  ffi::Any arg = static_cast<int64_t>(what);
  TVMFFIAny out{};
  out.type_index = kTVMFFINone;
  int rc = TestSafeCall(nullptr, arg.raw(), 1, &out);
  ffi::Any owned = ffi::Any::FromRaw(out);
  if (result != nullptr) *result = owned;
  return rc;
}

TEST(SafeCall, SuccessReturnsZero) {
  ffi::Any result;
  EXPECT_EQ(CallTest(ThrowWhat::kNothing, &result), 0);
  EXPECT_EQ(result.cast<int>(), 7);
  EXPECT_FALSE(TryTakeRaised().has_value());
}

TEST(SafeCall, ExceptionsBecomeRaisedErrors) {
  struct Case {
    ThrowWhat what;
    const char* kind;
    const char* message;
  };
  const Case cases[] = {
      {ThrowWhat::kFfiError, "ValueError", "ffi error 1"},
      {ThrowWhat::kBadAlloc, "MemoryError", nullptr},
      {ThrowWhat::kOutOfRange, "IndexError", "index 9 out of range"},
      {ThrowWhat::kInvalidArgument, "ValueError", "bad argument"},
      {ThrowWhat::kRuntimeError, "RuntimeError", "runtime failure"},
      {ThrowWhat::kLogicError, "RuntimeError", "logic failure"},
      {ThrowWhat::kInt, "InternalError", nullptr},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind);
    ffi::Any result;
    EXPECT_EQ(CallTest(c.what, &result), -1);
    EXPECT_TRUE(result.is_none());
    ffi::Optional<ffi::Error> raised = TryTakeRaised();
    ASSERT_TRUE(raised.has_value());
    EXPECT_EQ(raised->kind(), c.kind);
    if (c.message != nullptr) {
      EXPECT_EQ(raised->message(), c.message);
    }
    EXPECT_FALSE(raised->message().empty());
    // Moving it out cleared it.
    EXPECT_FALSE(TryTakeRaised().has_value());
  }
}

TEST(SafeCall, ThrownFfiErrorIsRaisedAsTheSameObject) {
  ffi::Error original("TypeError", "the original", "  here\n");
  auto fn = [](const ffi::Error& err) -> int {
    FFI_SAFE_CALL_BEGIN();
    throw err;
    FFI_SAFE_CALL_END();
  };
  EXPECT_EQ(fn(original), -1);
  ffi::Optional<ffi::Error> raised = TryTakeRaised();
  ASSERT_TRUE(raised.has_value());
  EXPECT_TRUE(raised->same_as(original));
  EXPECT_EQ(raised->backtrace(), "  here\n");
}

TEST(SafeCall, EnvErrorAlreadySetCrossesAsTheReferenceSendsIt) {
  // An error of kind "EnvErrorAlreadySet" and -1, as the reference's EnvErrorAlreadySet() does:
  // the host (which reads either spelling) raises its own pending error instead.
  EXPECT_EQ(CallTest(ThrowWhat::kEnvErrorAlreadySet), -1);
  ffi::Optional<ffi::Error> raised = TryTakeRaised();
  ASSERT_TRUE(raised.has_value());
  EXPECT_EQ(raised->kind(), "EnvErrorAlreadySet");
}

TEST(SafeCall, CheckSafeCallRethrows) {
  ffi::Any arg = static_cast<int64_t>(ThrowWhat::kOutOfRange);
  TVMFFIAny out{};
  try {
    FFI_CHECK_SAFE_CALL(TestSafeCall(nullptr, arg.raw(), 1, &out));
    FAIL() << "no exception";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "IndexError");
    EXPECT_EQ(e.message(), "index 9 out of range");
    EXPECT_EQ(e.use_count(), 1u);  // the raised slot gave up its reference
  }
  EXPECT_FALSE(TryTakeRaised().has_value());

  // An ffi::Error crosses the boundary intact: same kind, message and backtrace.
  ffi::Error thrown = CatchError([] {
    ffi::Any a = static_cast<int64_t>(ThrowWhat::kFfiError);
    TVMFFIAny o{};
    FFI_CHECK_SAFE_CALL(TestSafeCall(nullptr, a.raw(), 1, &o));
  });
  EXPECT_EQ(thrown.kind(), "ValueError");
  EXPECT_EQ(thrown.message(), "ffi error 1");
  EXPECT_NE(FirstLine(thrown.backtrace()).find("test_error.cc"), std::string::npos);
}

TEST(SafeCall, CheckSafeCallPassesThroughSuccessAndEvaluatesOnce) {
  int calls = 0;
  auto ok = [&calls] {
    ++calls;
    return 0;
  };
  EXPECT_NO_THROW(FFI_CHECK_SAFE_CALL(ok()));
  EXPECT_EQ(calls, 1);
}

TEST(SafeCall, CheckSafeCallMinusTwoThrowsEnvErrorAlreadySet) {
  EXPECT_THROW(FFI_CHECK_SAFE_CALL(CallTest(ThrowWhat::kEnvErrorAlreadySet)),
               ffi::EnvErrorAlreadySet);
  EXPECT_FALSE(TryTakeRaised().has_value());  // taken by the rethrow
  EXPECT_THROW(FFI_CHECK_SAFE_CALL(-2), ffi::EnvErrorAlreadySet);
  // A raised error is left alone by -2.
  TVMFFIErrorSetRaisedFromCStr("ValueError", "left alone");
  EXPECT_THROW(FFI_CHECK_SAFE_CALL(-2), ffi::EnvErrorAlreadySet);
  ffi::Optional<ffi::Error> raised = TryTakeRaised();
  ASSERT_TRUE(raised.has_value());
  EXPECT_EQ(raised->message(), "left alone");
}

TEST(SafeCall, FailureWithoutRaisedErrorIsInternalError) {
  EXPECT_FALSE(TryTakeRaised().has_value());
  ffi::Error e = CatchError([] { FFI_CHECK_SAFE_CALL(-1); });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_NE(e.message().find("-1"), std::string::npos) << e.message();
}

// ---------------------------------------------------------------------------------------------
// The thread-local raised error
// ---------------------------------------------------------------------------------------------

TEST(Raised, SetFromCStrAndParts) {
  TVMFFIErrorSetRaisedFromCStr("KeyError", "plain message");
  ffi::Optional<ffi::Error> e = TryTakeRaised();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), "KeyError");
  EXPECT_EQ(e->message(), "plain message");

  const char* parts[] = {"one ", "two ", nullptr, "three"};
  TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 4);
  e = TryTakeRaised();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), "ValueError");
  EXPECT_EQ(e->message(), "one two three");
}

TEST(Raised, SetRaisedTakesAReferenceAndNullClears) {
  ffi::Error err("ValueError", "shared", "");
  TVMFFIErrorSetRaised(ffi::detail::ObjectUnsafe::HeaderOf(err));
  EXPECT_EQ(err.use_count(), 2u);
  // Raising another releases the previous one.
  ffi::Error second("KeyError", "second", "");
  TVMFFIErrorSetRaised(ffi::detail::ObjectUnsafe::HeaderOf(second));
  EXPECT_EQ(err.use_count(), 1u);
  EXPECT_EQ(second.use_count(), 2u);
  TVMFFIErrorSetRaised(nullptr);
  EXPECT_EQ(second.use_count(), 1u);
  EXPECT_FALSE(TryTakeRaised().has_value());
}

TEST(Raised, IsThreadLocal) {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "raised on the main thread");
  bool other_saw_error = true;
  std::string other_own_kind;
  std::thread t([&] {
    TVMFFIObjectHandle h = nullptr;
    TVMFFIErrorMoveFromRaised(&h);
    other_saw_error = h != nullptr;
    if (h != nullptr) TVMFFIObjectDecRef(h);
    // Raise one here and read it back on this thread.
    TVMFFIErrorSetRaisedFromCStr("KeyError", "raised on the other thread");
    ffi::Optional<ffi::Error> mine = TryTakeRaised();
    other_own_kind = mine.has_value() ? mine->kind() : "";
    // Leave one raised when the thread ends: it must be released with the thread.
    TVMFFIErrorSetRaisedFromCStr("KeyError", "left behind");
  });
  t.join();
  EXPECT_FALSE(other_saw_error);
  EXPECT_EQ(other_own_kind, "KeyError");
  ffi::Optional<ffi::Error> mine = TryTakeRaised();
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(mine->kind(), "ValueError");
  EXPECT_EQ(mine->message(), "raised on the main thread");
}

TEST(Raised, ErrorsRaisedInParallelStaySeparate) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<int> ok(kThreads, 0);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([i, &ok] {
      int good = 0;
      for (int round = 0; round < 200; ++round) {
        std::string msg = "thread " + std::to_string(i) + " round " + std::to_string(round);
        TVMFFIErrorSetRaisedFromCStr("ValueError", msg.c_str());
        ffi::Optional<ffi::Error> e = TryTakeRaised();
        if (e.has_value() && e->message() == msg) ++good;
      }
      ok[i] = good;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(ok[i], 200) << "thread " << i;
}

}  // namespace

namespace {
TEST(ErrorCause, CauseChainAndExtraContextAreKept) {
  ffi::Error original("TypeError", "root cause", "frame0\n");
  ffi::Error context_holder("Info", "context", "");
  ffi::Error chained("ValueError", "wrapped", "frame1\n", original, ffi::ObjectRef(context_holder));
  EXPECT_EQ(chained.kind(), "ValueError");
  std::optional<ffi::Error> cause = chained.cause_chain();
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(cause->message(), "root cause");
  EXPECT_TRUE(cause->same_as(original));
  ASSERT_TRUE(chained.extra_context().has_value());
  EXPECT_TRUE(chained.extra_context()->same_as(context_holder));
  EXPECT_FALSE(original.cause_chain().has_value());
  EXPECT_FALSE(original.extra_context().has_value());
  // The chained error holds its own references: they outlive the originals' handles.
  ffi::Error only_cause("RuntimeError", "x", "", std::nullopt, std::nullopt);
  EXPECT_FALSE(only_cause.cause_chain().has_value());
}

TEST(Error, MadeFromStringsAndACBacktrace) {
  // The reference's spelling: kind and message as Strings, the backtrace TVMFFIBacktrace made.
  ffi::String kind("ValueError"), message("bad value");
  ffi::Error e(kind, message, TVMFFIBacktrace("lib.cc", 7, "Fn", 0));
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "bad value");
  EXPECT_NE(e.backtrace().find("lib.cc"), std::string::npos) << e.backtrace();
  ffi::Error none(kind, message, static_cast<const TVMFFIByteArray*>(nullptr));
  EXPECT_EQ(none.backtrace(), "");
}
}  // namespace
