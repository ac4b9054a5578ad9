// ffi::Error itself: kind, message and backtrace, its cell, the full message and what(), the
// traceback in Python's order, the cause chain and extra context. Throwing, checks and the raised
// error: test_error.cc.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <exception>
#include <optional>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

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
  ASSERT_EQ(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, nullptr,
                                                      ffi::detail::ObjectUnsafe::HeaderOf(cause),
                                                      HeapHeader(context), &handle),
            0);
  ffi::Error e(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(handle)));
  EXPECT_EQ(e.backtrace(), "");
  EXPECT_EQ(e.cell()->cause_chain, ffi::detail::ObjectUnsafe::HeaderOf(cause));
  EXPECT_EQ(e.cell()->extra_context, HeapHeader(context));
  EXPECT_EQ(cause.use_count(), 2u);  // the new error holds its cause
  EXPECT_EQ(UseCount(context), 2u);
  e = ffi::Error("Other", "", "");
  EXPECT_EQ(cause.use_count(), 1u);
  EXPECT_EQ(UseCount(context), 1u);
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
