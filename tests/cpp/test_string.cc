// String and Bytes: construction, contents, comparisons and how they travel in an Any.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::AnyView;
using ffi::Bytes;
using ffi::String;

TEST(String, Constructors) {
  const char* cstr = "from a C string";
  std::string stds = "from std::string";
  std::string_view sv = "from a view, not NUL-terminated!!";
  sv.remove_suffix(2);
  String a(cstr);
  String b(stds);
  String c(sv);
  String d("abcdef", 3);
  EXPECT_EQ(a.view(), "from a C string");
  EXPECT_EQ(b.view(), "from std::string");
  EXPECT_EQ(c.view(), "from a view, not NUL-terminated");
  EXPECT_EQ(d.view(), "abc");
  // Each holds its own copy.
  EXPECT_NE(a.data(), cstr);
  EXPECT_NE(b.data(), stds.data());
  stds[0] = 'X';
  EXPECT_EQ(b.view(), "from std::string");
  String implicit = "implicit";
  EXPECT_EQ(implicit.size(), 8u);
}

TEST(String, SizeDataAndNulTermination) {
  String s("hello");
  EXPECT_EQ(s.size(), 5u);
  EXPECT_EQ(s.length(), 5u);
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.c_str(), s.data());
  EXPECT_EQ(s.c_str()[5], '\0');
  EXPECT_STREQ(s.c_str(), "hello");
  // A view-constructed string is NUL-terminated even though its source was not.
  std::string_view sv("abcdef", 3);
  String from_view(sv);
  EXPECT_EQ(from_view.c_str()[3], '\0');
  EXPECT_STREQ(from_view.c_str(), "abc");
  // Up to 7 bytes live in the String itself; longer ones follow the object in one allocation.
  EXPECT_EQ(HeapObject(s), nullptr);
  EXPECT_GE(s.data(), reinterpret_cast<const char*>(&s));
  EXPECT_LT(s.data(), reinterpret_cast<const char*>(&s) + sizeof(String));
  String large("hello, world");
  const ffi::Object* obj = HeapObject(large);
  ASSERT_NE(obj, nullptr);
  EXPECT_EQ(large.data(), reinterpret_cast<const char*>(obj) + sizeof(ffi::StringObj));
  EXPECT_EQ(static_cast<const ffi::StringObj*>(obj)->size, 12u);
  EXPECT_EQ(obj->type_index(), kTVMFFIStr);
  EXPECT_EQ(large.c_str()[12], '\0');
}

TEST(String, EmptyString) {
  String def;
  String empty("");
  String from_std{std::string()};
  for (const String* s : {&def, &empty, &from_std}) {
    EXPECT_TRUE(s->empty());
    EXPECT_EQ(s->size(), 0u);
    ASSERT_NE(s->c_str(), nullptr);
    EXPECT_EQ(s->c_str()[0], '\0');
  }
  EXPECT_TRUE(def == empty);
  EXPECT_TRUE(def == "");
  EXPECT_FALSE(def == "x");
  EXPECT_EQ(std::string(def), "");
  Any a = def;
  EXPECT_EQ(a.type_index(), kTVMFFISmallStr);
  EXPECT_EQ(a.raw()->small_str_len, 0u);
  EXPECT_TRUE(a.cast<String>().empty());
}

TEST(String, EmbeddedNulInString) {
  String s(std::string("ab\0cd", 5));
  EXPECT_EQ(s.size(), 5u);
  EXPECT_EQ(s.view(), std::string_view("ab\0cd", 5));
  EXPECT_FALSE(s == "ab");  // compared by bytes, not as a C string
  EXPECT_TRUE(s == std::string("ab\0cd", 5));
  EXPECT_EQ(std::string(s), std::string("ab\0cd", 5));
}

TEST(String, ComparisonsWithEveryStringKind) {
  String s("apple");
  String same("apple");
  String other("apricot");
  std::string stds = "apple";
  std::string_view sv = "apple";
  const char* cstr = "apple";

  EXPECT_TRUE(s == same);
  EXPECT_FALSE(SameObject(String("apple pie"), String("apple pie")));  // equal, two objects
  EXPECT_TRUE(s == stds);
  EXPECT_TRUE(s == sv);
  EXPECT_TRUE(s == cstr);
  EXPECT_TRUE(s == "apple");
  EXPECT_FALSE(s != same);
  EXPECT_FALSE(s != stds);
  EXPECT_FALSE(s != sv);
  EXPECT_FALSE(s != cstr);

  EXPECT_FALSE(s == other);
  EXPECT_TRUE(s != other);
  EXPECT_TRUE(s != std::string("apples"));
  EXPECT_TRUE(s != std::string_view("appl"));
  EXPECT_TRUE(s != "Apple");

  EXPECT_TRUE(s < other);
  EXPECT_FALSE(other < s);
  EXPECT_FALSE(s < same);
  EXPECT_TRUE(String("app") < s);  // a prefix sorts first
  EXPECT_TRUE(String(std::string("a\0", 2)) < String("a\x01"));
}

TEST(String, Concatenation) {
  String a("foo");
  String b("bar");
  String ab = a + b;
  EXPECT_EQ(ab, "foobar");
  EXPECT_EQ(a + "baz", "foobaz");
  EXPECT_EQ(a + std::string("qux"), "fooqux");
  EXPECT_EQ(a + std::string_view("_view"), "foo_view");
  EXPECT_EQ(a + "", "foo");
  EXPECT_EQ(String() + a, "foo");
  // Operands are unchanged, and the result is a new object.
  EXPECT_EQ(a, "foo");
  EXPECT_EQ(b, "bar");
  EXPECT_NE(ab.data(), a.data());
  String big = String(std::string(100, 'x')) + String(std::string(100, 'y'));
  EXPECT_EQ(big.size(), 200u);
  EXPECT_EQ(big.c_str()[200], '\0');
  EXPECT_EQ(big.view().substr(98, 4), "xxyy");
}

TEST(String, Streaming) {
  std::ostringstream os;
  os << String("left") << '|' << String(std::string("a\0b", 3)) << '|' << String();
  EXPECT_EQ(os.str(), std::string("left|a\0b|", 9));
}

TEST(String, SharedByCopies) {
  String a("shared string payload");
  String b = a;
  EXPECT_TRUE(SameObject(a, b));
  EXPECT_EQ(UseCount(a), 2u);
  EXPECT_EQ(a.data(), b.data());
}

TEST(Bytes, ConstructorsAndEmbeddedNul) {
  const char raw[] = {'x', '\0', 'y', '\0', 'z'};
  Bytes b(raw, sizeof(raw));
  EXPECT_EQ(b.size(), 5u);
  EXPECT_EQ(std::memcmp(b.data(), raw, 5), 0);
  EXPECT_EQ(b.data()[5], '\0');  // terminated after the bytes, too
  EXPECT_EQ(b.view(), std::string_view(raw, 5));
  EXPECT_EQ(std::string(b), std::string(raw, 5));
  EXPECT_EQ(HeapObject(b), nullptr);  // 5 bytes: inline
  Bytes long_bytes(std::string(20, '\0'));
  ASSERT_NE(HeapObject(long_bytes), nullptr);
  EXPECT_EQ(HeapObject(long_bytes)->type_index(), kTVMFFIBytes);
  EXPECT_EQ(long_bytes.size(), 20u);

  Bytes from_std(std::string("p\0q", 3));
  EXPECT_EQ(from_std.size(), 3u);
  Bytes from_view(std::string_view("view"));
  EXPECT_EQ(from_view.view(), "view");
  Bytes empty;
  EXPECT_TRUE(empty.empty());

  EXPECT_TRUE(b == Bytes(raw, 5));
  EXPECT_TRUE(b != Bytes(raw, 4));
  EXPECT_TRUE(b != Bytes(std::string("x\0y\0w", 5)));
}

// ---------------------------------------------------------------------------------------------
// Through Any
// ---------------------------------------------------------------------------------------------

TEST(StringAny, SmallUpToSevenBytesLargeAsObject) {
  for (size_t n = 0; n <= 16; ++n) {
    std::string text(n, 'k');
    if (n > 0) text[0] = 'A';
    Any a = String(text);
    if (n <= 7) {
      EXPECT_EQ(a.type_index(), kTVMFFISmallStr) << n;
      EXPECT_EQ(a.raw()->small_str_len, n);
      EXPECT_EQ(std::string(a.raw()->v_bytes, n), text);
    } else {
      EXPECT_EQ(a.type_index(), kTVMFFIStr) << n;
      EXPECT_EQ(TVMFFIObjectGetTypeIndex(a.raw()->v_obj), kTVMFFIStr);
      EXPECT_EQ(TVMFFIBytesGetByteArrayPtr(a.raw()->v_obj)->size, n);
    }
    String back = a.cast<String>();
    EXPECT_EQ(back, text) << n;
    EXPECT_EQ(back.c_str()[n], '\0');
    // The C API makes the same choice.
    TVMFFIByteArray arr{text.data(), text.size()};
    TVMFFIAny out{};
    ASSERT_EQ(TVMFFIStringFromByteArray(&arr, &out), 0);
    EXPECT_EQ(out.type_index, a.type_index()) << n;
    EXPECT_EQ(Any::FromRaw(out).cast<std::string>(), text);
  }
}

TEST(StringAny, MalformedInlineLengthStaysInTheBuffer) {
  // A small string whose length field says more than the 7 inline bytes (a malformed value from
  // elsewhere) reads as its 7 bytes, not past them.
  TVMFFIAny raw{};
  raw.type_index = kTVMFFISmallStr;
  raw.small_str_len = 200;
  std::memcpy(raw.v_bytes, "abcdefg", 7);
  String s = AnyView::FromRaw(raw).cast<String>();
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.view(), "abcdefg");
  EXPECT_EQ(std::string(s), "abcdefg");
  EXPECT_TRUE(s == "abcdefg");
}

TEST(StringAny, SmallAndLargeBytes) {
  for (size_t n : {size_t{0}, size_t{3}, size_t{7}, size_t{8}, size_t{30}}) {
    std::string data(n, '\0');
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<char>(i % 3);  // includes NULs
    Any a = Bytes(data);
    EXPECT_EQ(a.type_index(), n <= 7 ? kTVMFFISmallBytes : kTVMFFIBytes) << n;
    Bytes back = a.cast<Bytes>();
    EXPECT_EQ(back.size(), n);
    EXPECT_EQ(back.view(), std::string_view(data));
    TVMFFIByteArray arr{data.data(), data.size()};
    TVMFFIAny out{};
    ASSERT_EQ(TVMFFIBytesFromByteArray(&arr, &out), 0);
    EXPECT_EQ(out.type_index, a.type_index()) << n;
    EXPECT_TRUE(Any::FromRaw(out).cast<Bytes>() == back);
  }
}

TEST(StringAny, LargeStringSharesItsObject) {
  String s("this string is too long to be small");
  Any a = s;
  EXPECT_EQ(UseCount(s), 2u);
  String back = a.cast<String>();
  EXPECT_TRUE(SameObject(back, s));
  EXPECT_EQ(UseCount(s), 3u);
}

TEST(StringAny, StdStringFromEveryStringForm) {
  const std::string large = "eight or more bytes";
  // Small inline value.
  EXPECT_EQ(Any(String("tiny")).cast<std::string>(), "tiny");
  // String object.
  EXPECT_EQ(Any(String(large)).cast<std::string>(), large);
  // View of a String object holding a short string.
  String small_obj("sm");
  EXPECT_EQ(AnyView(small_obj).cast<std::string>(), "sm");
  // Borrowed C string.
  const char* cstr = large.c_str();
  EXPECT_EQ(AnyView(cstr).cast<std::string>(), large);
  // View of a std::string.
  EXPECT_EQ(AnyView(large).cast<std::string>(), large);
  // Owned from std::string.
  EXPECT_EQ(Any(large).cast<std::string>(), large);
  // Embedded NUL survives (it is not read as a C string).
  std::string with_nul("x\0y and more", 12);
  EXPECT_EQ(Any(String(with_nul)).cast<std::string>(), with_nul);
  EXPECT_EQ(Any(String(with_nul)).cast<std::string>().size(), 12u);
  // The implicit conversion of String.
  std::string converted = String(large);
  EXPECT_EQ(converted, large);
}

TEST(StringAny, BytesAreNotStrings) {
  Any small = Bytes(std::string("abc"));
  Any large = Bytes(std::string("abcdefghijk"));
  EXPECT_EQ(small.try_cast<String>(), std::nullopt);
  EXPECT_EQ(large.try_cast<String>(), std::nullopt);
  EXPECT_EQ(small.try_cast<std::string>(), std::string("abc"));  // std::string holds any bytes
  EXPECT_FALSE(large.as<String>().has_value());
  try {
    large.cast<String>();
    FAIL() << "Bytes converted to String";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_EQ(e.message(), "Cannot convert from type `bytes` to `str`");
  }
  // And strings are not bytes.
  EXPECT_FALSE(Any(String("abc")).try_cast<Bytes>().has_value());
  EXPECT_FALSE(Any(String("abcdefghijk")).try_cast<Bytes>().has_value());
  const char* cstr = "raw";
  EXPECT_FALSE(AnyView(cstr).try_cast<Bytes>().has_value());
}

TEST(StringAny, NonStringsAreNotStrings) {
  EXPECT_FALSE(Any(42).try_cast<String>().has_value());
  EXPECT_FALSE(Any().try_cast<String>().has_value());  // String is never null
  EXPECT_FALSE(Any(2.0).try_cast<std::string>().has_value());
  EXPECT_EQ(ffi::TypeTraits<String>::TypeStr(), "str");
  EXPECT_EQ(ffi::TypeTraits<Bytes>::TypeStr(), "bytes");
  EXPECT_EQ(ffi::TypeTraits<std::string>::TypeStr(), "str");
}

TEST(StringAny, OwnedCopyOfRawStringIsIndependent) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%s", "buffer contents > 7");
  const char* p = buffer;
  Any owned = AnyView(p);
  EXPECT_EQ(owned.type_index(), kTVMFFIStr);
  std::memset(buffer, '#', sizeof(buffer) - 1);
  EXPECT_EQ(owned.cast<std::string>(), "buffer contents > 7");
}

}  // namespace

// The std::string-like members and operators code written for TVM-FFI uses.
namespace {
TEST(StringMembers, FindSubstrPrefixSuffix) {
  String s("cuda:0/stream");
  EXPECT_EQ(s.find("/"), 6u);
  EXPECT_EQ(s.find(String("stream")), 7u);
  EXPECT_EQ(s.find("a", 4), 11u);
  EXPECT_EQ(s.find("xyz"), String::npos);
  EXPECT_EQ(s.find("cuda!", 0, 4), 0u);
  EXPECT_EQ(s.substr(0, 4), "cuda");
  EXPECT_EQ(s.substr(7), "stream");
  EXPECT_EQ(s.substr(13), "");
  EXPECT_THROW(s.substr(14), std::out_of_range);
  EXPECT_TRUE(s.starts_with("cuda"));
  EXPECT_TRUE(s.starts_with(String("")));
  EXPECT_FALSE(s.starts_with("stream"));
  EXPECT_TRUE(s.starts_with("cudax", 4));
  EXPECT_TRUE(s.ends_with("stream"));
  EXPECT_TRUE(s.ends_with(std::string_view("am")));
  EXPECT_FALSE(s.ends_with("cuda:0/stream+"));
  EXPECT_EQ(s.at(0), 'c');
  EXPECT_THROW(s.at(13), std::out_of_range);
}

TEST(StringMembers, CompareAndOrdering) {
  String a("apple"), b("banana");
  EXPECT_LT(a.compare(b), 0);
  EXPECT_GT(b.compare("apple"), 0);
  EXPECT_EQ(a.compare(std::string("apple")), 0);
  TVMFFIByteArray raw{"apple", 5};
  EXPECT_EQ(a.compare(raw), 0);
  EXPECT_LT(String("app").compare("apple"), 0);  // a prefix sorts first
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a < "b");
  EXPECT_TRUE("a" < b);
  EXPECT_TRUE(std::string("c") > b);
  EXPECT_TRUE(b >= std::string("banana"));
  EXPECT_TRUE(a <= "apple");
  EXPECT_FALSE(a > a);
}

TEST(StringMembers, FromByteArrayAndHash) {
  TVMFFIByteArray raw{"with\0nul", 8};
  String s(raw);
  EXPECT_EQ(s.size(), 8u);
  Bytes b = raw;
  EXPECT_EQ(b.size(), 8u);
  EXPECT_EQ(std::hash<String>()(String("key")), std::hash<std::string_view>()("key"));
  EXPECT_EQ(std::hash<Bytes>()(Bytes("key")), std::hash<String>()(String("key")));
}
}  // namespace

namespace {
TEST(StringMembers, ByteArrayPointerTravelsBorrowedAndConvertsToBytesWhenOwned) {
  TVMFFIByteArray raw{"a byte array longer than seven", 30};
  ffi::AnyView view = &raw;
  EXPECT_EQ(view.type_index(), kTVMFFIByteArrayPtr);
  EXPECT_EQ(view.cast<TVMFFIByteArray*>(), &raw);
  EXPECT_EQ(view.cast<Bytes>().size(), 30u);
  ffi::Any owned = &raw;
  EXPECT_EQ(owned.type_index(), kTVMFFIBytes);
  EXPECT_EQ(owned.cast<Bytes>().view(), std::string_view(raw.data, raw.size));
  EXPECT_FALSE(owned.try_cast<TVMFFIByteArray*>().has_value());
}
TEST(StringTools, SplitKeepsEmptyPieces) {
  String text(",a,,b,");  // the pieces are views into it: it must outlive them
  auto parts = text.Split(',');
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[0], "");
  EXPECT_EQ(parts[1], "a");
  EXPECT_EQ(parts[2], "");
  EXPECT_EQ(parts[3], "b");
  EXPECT_EQ(parts[4], "");
  EXPECT_EQ(String("").Split(',').size(), 1u);
  String pair("x:y");
  std::vector<std::string_view> v = pair.Split(':');  // converts to a container
  EXPECT_EQ(v, (std::vector<std::string_view>{"x", "y"}));
}

TEST(StringTools, MoveFromStdStringTakesTheBuffer) {
  std::string source(100, 'q');
  const char* buffer = source.data();
  String s(std::move(source));
  EXPECT_EQ(s.data(), buffer);  // no copy
  EXPECT_EQ(s.size(), 100u);
  EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move): moved-from is left empty
  // Even a short one becomes an object holding the std::string (as TVM-FFI's).
  String short_moved(std::string("ab"));
  EXPECT_NE(HeapObject(short_moved), nullptr);
  EXPECT_EQ(Any(short_moved).type_index(), kTVMFFIStr);
  EXPECT_EQ(short_moved, "ab");
  Bytes b(std::string("moved bytes, long enough"));
  EXPECT_EQ(b.view(), "moved bytes, long enough");
}

TEST(StringTools, CompareReturnsTheSignOnly) {
  EXPECT_EQ(String("hello").compare("hallo"), 1);
  EXPECT_EQ(String("hello").compare("hello world"), -1);
  EXPECT_EQ(String("hello").compare(String("hello")), 0);
}

TEST(StringTools, EscapeStringJSON) {
  EXPECT_EQ(ffi::EscapeStringJSON("plain"), "\"plain\"");
  EXPECT_EQ(ffi::EscapeStringJSON("a\"b\\c\nd\te\r"), "\"a\\\"b\\\\c\\nd\\te\\r\"");
  EXPECT_EQ(ffi::EscapeStringJSON(String(std::string("\x01\x1f", 2))), "\"\\u0001\\u001f\"");
}

TEST(StringTools, EscapedStringPy) {
  EXPECT_EQ(ffi::EscapedStringPy("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(ffi::EscapedStringPy(String(std::string("\x1b[0m\x7f", 5))), "\"\\x1b[0m\\x7f\"");
  EXPECT_EQ(ffi::EscapedStringPy("\xc3\xa9\xe4\xb8\x96\xf0\x9f\x98\x80"),
            "\"\\u00e9\\u4e16\\U0001f600\"");
  // Bytes that are not UTF-8 (a lone continuation, a cut sequence, an overlong form, a surrogate)
  // come out one \xNN each.
  EXPECT_EQ(ffi::EscapedStringPy("\x80"), "\"\\x80\"");
  EXPECT_EQ(ffi::EscapedStringPy("\xe4\xb8 "), "\"\\xe4\\xb8 \"");
  EXPECT_EQ(ffi::EscapedStringPy("\xc0\xaf"), "\"\\xc0\\xaf\"");
  EXPECT_EQ(ffi::EscapedStringPy("\xed\xa0\x80"), "\"\\xed\\xa0\\x80\"");
}
TEST(String, ToStringViewReadsAByteArray) {
  const char text[] = "ab\0c";
  TVMFFIByteArray bytes{text, 4};
  std::string_view view = ffi::ToStringView(bytes);
  EXPECT_EQ(view.data(), text);
  EXPECT_EQ(view, std::string_view(text, 4));
  EXPECT_TRUE(ffi::ToStringView(TVMFFIByteArray{nullptr, 0}).empty());
}

}  // namespace
