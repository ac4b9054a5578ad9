// FFI_THROW, FFI_LOG_AND_THROW, FFI_ICHECK*, the safe-call macros, the thread-local raised error
// and backtraces. ffi::Error itself: test_error_object.cc; how messages format values:
// test_error_format.cc.
#include <ffi/ffi.h>
#include <gtest/gtest.h>
#include <tvm/ffi/tvm_compat.h>
#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
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

#ifndef _WIN32  // fork has no Windows counterpart; the test below runs on POSIX systems only
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
#endif  // _WIN32

TEST(Throw, LogAndThrowWritesTheErrorToStderrFirst) {
  ::testing::internal::CaptureStderr();
  ffi::Error e = CatchError([] { FFI_LOG_AND_THROW(ValueError) << "cannot register " << 7; });
  std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "cannot register 7");
  EXPECT_EQ(logged, e.FullMessage() + "\n");
  EXPECT_NE(logged.find("ValueError: cannot register 7"), std::string::npos) << logged;
  ::testing::internal::CaptureStderr();
  e = CatchError([] { TVM_FFI_LOG_AND_THROW(TypeError) << "reference spelling"; });
  logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(logged.find("TypeError: reference spelling"), std::string::npos) << logged;
  // FFI_THROW writes nothing.
  ::testing::internal::CaptureStderr();
  CatchError([] { FFI_THROW(ValueError) << "quiet"; });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

#ifndef _WIN32  // needs RunInChild (fork)
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
#endif  // _WIN32

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
    EXPECT_EQ(raised.value().kind(), c.kind);
    if (c.message != nullptr) {
      EXPECT_EQ(raised.value().message(), c.message);
    }
    EXPECT_FALSE(raised.value().message().empty());
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
  EXPECT_TRUE(raised.value().same_as(original));
  EXPECT_EQ(raised.value().backtrace(), "  here\n");
}

TEST(SafeCall, EnvErrorAlreadySetCrossesAsTheReferenceSendsIt) {
  // An error of kind "EnvErrorAlreadySet" and -1, as the reference's EnvErrorAlreadySet() does:
  // the host (which reads either spelling) raises its own pending error instead.
  EXPECT_EQ(CallTest(ThrowWhat::kEnvErrorAlreadySet), -1);
  ffi::Optional<ffi::Error> raised = TryTakeRaised();
  ASSERT_TRUE(raised.has_value());
  EXPECT_EQ(raised.value().kind(), "EnvErrorAlreadySet");
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
  EXPECT_EQ(raised.value().message(), "left alone");
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
  EXPECT_EQ(e.value().kind(), "KeyError");
  EXPECT_EQ(e.value().message(), "plain message");

  const char* parts[] = {"one ", "two ", nullptr, "three"};
  TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 4);
  e = TryTakeRaised();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e.value().kind(), "ValueError");
  EXPECT_EQ(e.value().message(), "one two three");
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
    other_own_kind = mine.has_value() ? mine.value().kind() : "";
    // Leave one raised when the thread ends: it must be released with the thread.
    TVMFFIErrorSetRaisedFromCStr("KeyError", "left behind");
  });
  t.join();
  EXPECT_FALSE(other_saw_error);
  EXPECT_EQ(other_own_kind, "KeyError");
  ffi::Optional<ffi::Error> mine = TryTakeRaised();
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(mine.value().kind(), "ValueError");
  EXPECT_EQ(mine.value().message(), "raised on the main thread");
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
        if (e.has_value() && e.value().message() == msg) ++good;
      }
      ok[i] = good;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(ok[i], 200) << "thread " << i;
}

}  // namespace
