// Expected<T> (expected.h): a value or an Error, how it travels through a call (as the value or
// the Error object, return code 0), and Function::CallExpected.
#include <ffi/expected.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

ffi::Expected<int64_t> Half(int64_t x) {
  if (x % 2 != 0) return ffi::Unexpected(ffi::Error("ValueError", "odd"));
  return x / 2;
}

TEST(Expected, HoldsAValueOrAnError) {
  ffi::Expected<int64_t> ok = Half(8);
  EXPECT_TRUE(ok.is_ok());
  EXPECT_TRUE(ok.has_value());
  EXPECT_FALSE(ok.is_err());
  EXPECT_EQ(ok.value(), 4);
  EXPECT_EQ(ok.value_or(-1), 4);
  EXPECT_EQ(ok.type_index(), kTVMFFIInt);

  ffi::Expected<int64_t> err = Half(3);
  EXPECT_TRUE(err.is_err());
  EXPECT_EQ(err.type_index(), kTVMFFIError);
  EXPECT_EQ(err.error().kind(), "ValueError");
  EXPECT_EQ(err.error().message(), "odd");
  EXPECT_EQ(err.value_or(-1), -1);
  // value() throws the held error itself.
  ffi::Error thrown = ExpectError([&] { err.value(); });
  EXPECT_TRUE(thrown.same_as(err.error()));
  // error() of a value is a RuntimeError.
  ffi::Error bad = ExpectError([&] { ok.error(); });
  EXPECT_EQ(bad.kind(), "RuntimeError");
  EXPECT_EQ(bad.message(), "Bad expected access: contains value, not error");

  // Converting values and objects.
  ffi::Expected<double> widened = 3;
  EXPECT_DOUBLE_EQ(widened.value(), 3.0);
  ffi::Expected<ffi::String> s = ffi::String("text");
  EXPECT_EQ(s.value(), "text");
}

TEST(Expected, VoidHoldsSuccessOrAnError) {
  ffi::Expected<void> ok;
  EXPECT_TRUE(ok.is_ok());
  ok.value();  // Does not throw.
  EXPECT_EQ(ExpectError([&] { ok.error(); }).kind(), "RuntimeError");
  ffi::Expected<void> err = ffi::Error("IndexError", "gone");
  EXPECT_TRUE(err.is_err());
  EXPECT_EQ(ExpectError([&] { err.value(); }).kind(), "IndexError");
}

TEST(Expected, TravelsAsItsContent) {
  // An Any holds the value or the Error object; either converts back.
  ffi::Any v = Half(10);
  EXPECT_EQ(v.type_index(), kTVMFFIInt);
  ffi::Any e = Half(1);
  EXPECT_EQ(e.type_index(), kTVMFFIError);
  EXPECT_EQ(v.cast<ffi::Expected<int64_t>>().value(), 5);
  EXPECT_EQ(e.cast<ffi::Expected<int64_t>>().error().message(), "odd");
  // Neither a value nor an error: TypeError naming the Expected type.
  ffi::Any text = ffi::String("x");
  ffi::Error te = ExpectError([&] { text.cast<ffi::Expected<int64_t>>(); });
  EXPECT_EQ(te.kind(), "TypeError");
  EXPECT_NE(te.message().find("Expected<int>"), std::string::npos) << te.message();

  // A typed function returning an error returns the Error object, it does not raise.
  ffi::Function half = ffi::Function::FromTyped(Half, "half");
  EXPECT_EQ(half(6).cast<int64_t>(), 3);
  TVMFFIAny arg{};
  arg.type_index = kTVMFFIInt;
  arg.v_int64 = 7;
  TVMFFIAny result{};
  ASSERT_EQ(TVMFFIFunctionCall(ffi::detail::ObjectUnsafe::HeaderOf(half), &arg, 1, &result), 0);
  ffi::Any owned = ffi::Any::FromRaw(result);
  ASSERT_EQ(owned.type_index(), kTVMFFIError);
  EXPECT_EQ(owned.cast<ffi::Error>().kind(), "ValueError");
  // Reference counts stay exact: the error is held once by `owned`.
  EXPECT_EQ(owned.cast<ffi::Error>().use_count(), 2u);
}

TEST(Expected, CallExpectedCatchesRaisedAndReturnedErrors) {
  ffi::Function half = ffi::Function::FromTyped(Half, "half");
  EXPECT_EQ(half.CallExpected<int64_t>(4).value(), 2);
  EXPECT_EQ(half.CallExpected<int64_t>(5).error().message(), "odd");
  // A raised error (wrong argument type) becomes the Expected's error, nothing thrown.
  ffi::Expected<int64_t> raised = half.CallExpected<int64_t>("four");
  ASSERT_TRUE(raised.is_err());
  EXPECT_EQ(raised.error().kind(), "TypeError");
  // A result of another type is a TypeError.
  ffi::Expected<ffi::String> mismatched = half.CallExpected<ffi::String>(4);
  ASSERT_TRUE(mismatched.is_err());
  EXPECT_EQ(mismatched.error().kind(), "TypeError");
  // Any takes whatever came back.
  EXPECT_EQ(half.CallExpected(8).value().cast<int64_t>(), 4);
  // void: None is success.
  ffi::Function nothing = ffi::Function::FromTyped([](int64_t) {});
  EXPECT_TRUE(nothing.CallExpected<void>(1).is_ok());
  EXPECT_TRUE(nothing.CallExpected<void>().is_err());
}

TEST(Expected, UnsafeMovesTheRawContent) {
  ffi::Expected<ffi::String> src = ffi::String("hello");
  const ffi::Any& data = ffi::details::ExpectedUnsafe::GetData(src);
  EXPECT_EQ(data.cast<std::string>(), "hello");
  TVMFFIAny raw = ffi::details::ExpectedUnsafe::MoveToTVMFFIAny(std::move(src));
  ffi::Expected<ffi::Optional<ffi::String>> dst =
      ffi::details::ExpectedUnsafe::MoveFromTVMFFIAny<ffi::Optional<ffi::String>>(raw);
  ASSERT_TRUE(dst.is_ok());
  EXPECT_EQ(*dst.value(), "hello");
  TVMFFIAny err = ffi::Any(ffi::Error("KeyError", "k")).release();
  EXPECT_EQ(ffi::details::ExpectedUnsafe::MoveFromTVMFFIAny<int64_t>(err).error().kind(),
            "KeyError");
}

TEST(Expected, OptionalOfOneIsItsAny) {
  // As the reference's: the Expected's own Any, None when there is nothing.
  static_assert(sizeof(ffi::Optional<ffi::Expected<int64_t>>) == sizeof(TVMFFIAny));
  ffi::Optional<ffi::Expected<int64_t>> none;
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(reinterpret_cast<const TVMFFIAny*>(&none)->type_index, kTVMFFINone);
  ffi::Optional<ffi::Expected<int64_t>> ok = ffi::Expected<int64_t>(5);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(reinterpret_cast<const TVMFFIAny*>(&ok)->type_index, kTVMFFIInt);
  EXPECT_EQ(ok->value(), 5);
  ffi::Optional<ffi::Expected<int64_t>> err =
      ffi::Expected<int64_t>(ffi::Error("KeyError", "gone", ""));
  ASSERT_TRUE(err.has_value());
  EXPECT_TRUE(err->is_err());
  EXPECT_EQ(err->error().message(), "gone");
  err.reset();
  EXPECT_FALSE(err.has_value());
}

}  // namespace
