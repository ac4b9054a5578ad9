// How error messages format values: ffi::detail::AppendText, which FFI_THROW, the checks and the
// headers' operator<< for DLPack types, shapes and strings use.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

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
#ifndef _WIN32  // the C library's %p: glibc writes 0x and the digits, Windows' C runtime 16 digits
  EXPECT_EQ(expected.rfind("0x", 0), 0u) << expected;
#endif
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

}  // namespace
