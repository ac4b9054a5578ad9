// Base64 (extra/base64.h): the RFC 4648 test vectors, round trips of every length (each remainder
// mod 3) and of every byte value, the overloads on TVMFFIByteArray, Bytes and String, and the
// InternalError (the reference's kind) for each way a text can be malformed; bytes in the JSON
// object graph go through the same code.
#include <ffi/extra/base64.h>
#include <ffi/function.h>
#include <gtest/gtest.h>
#include <tvm/ffi/extra/base64.h>

#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
using ffi::Base64Decode;
using ffi::Base64Encode;
using ffi::Bytes;
using ffi::String;

std::string Encode(const std::string& data) {
  return std::string(Base64Encode(TVMFFIByteArray{data.data(), data.size()}).view());
}
std::string Decode(const std::string& text) {
  return std::string(Base64Decode(TVMFFIByteArray{text.data(), text.size()}).view());
}

TEST(Base64, StandardVectors) {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [data, text] : vectors) {
    EXPECT_EQ(Encode(data), text);
    EXPECT_EQ(Decode(text), data);
  }
  // Both ends of the alphabet, '+' and '/'.
  EXPECT_EQ(Encode(std::string("\xfb\xff\xbf", 3)), "+/+/");
  EXPECT_EQ(Decode("+/+/"), std::string("\xfb\xff\xbf", 3));
  EXPECT_EQ(Encode(std::string(3, '\0')), "AAAA");
}

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (size_t n = 0; n <= all.size(); ++n) {
    std::string data = all.substr(all.size() - n);  // starts at a different byte each time
    std::string text = Encode(data);
    ASSERT_EQ(text.size(), (n + 2) / 3 * 4) << n;
    size_t padding = (3 - n % 3) % 3;
    EXPECT_EQ(text.find('='), padding == 0 ? std::string::npos : text.size() - padding) << n;
    ASSERT_EQ(Decode(text), data) << n;
  }
}

TEST(Base64, Overloads) {
  Bytes data("\x00\x01\xfe\xff", 4);
  String text = Base64Encode(data);
  EXPECT_EQ(text, "AAH+/w==");
  Bytes back = Base64Decode(text);
  EXPECT_EQ(back.view(), data.view());
  EXPECT_EQ(Base64Decode(String("")).size(), 0u);
  EXPECT_EQ(Base64Encode(Bytes()).size(), 0u);
  // A null data pointer with no bytes is fine.
  EXPECT_EQ(Base64Encode(TVMFFIByteArray{nullptr, 0}).size(), 0u);
  EXPECT_EQ(Base64Decode(TVMFFIByteArray{nullptr, 0}).size(), 0u);
  // The reference's spelling: tvm::ffi.
  EXPECT_EQ(tvm::ffi::Base64Decode(tvm::ffi::Base64Encode(data)).view(), data.view());
}

TEST(Base64, MalformedTextIsAnInternalError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Zm9", "its length 3 is not a multiple of 4"},
      {"Zm9vY", "its length 5 is not a multiple of 4"},
      {"Zm9v\nYmFy", "its length 9 is not a multiple of 4"},
      {"Zm 9", "' ' at offset 2 is not a base64 digit"},
      {"Zm9-", "'-' at offset 3 is not a base64 digit"},
      {"Zm9_", "'_' at offset 3 is not a base64 digit"},
      {std::string("Zm\0v", 4), "byte 0x00 at offset 2 is not a base64 digit"},
      {"Zm9\xc3", "byte 0xC3 at offset 3 is not a base64 digit"},
      {"Zg==Zm9v", "padding '=' at offset 2 is not at the end of the text"},
      {"Z===", "padding '=' at offset 1 is not at the end of the text"},
      {"====", "padding '=' at offset 0 is not at the end of the text"},
      {"Zm=v", "padding '=' at offset 2 is not at the end of the text"},
  };
  for (const auto& [text, why] : cases) {
    ffi::Error err = CatchError([&, text = text] { Decode(text); });
    EXPECT_EQ(err.kind(), "InternalError") << text;
    EXPECT_EQ(err.message(), "invalid base64 encoding: " + why) << text;
  }
}

TEST(Base64, JSONGraphBytes) {
  Bytes data(std::string("\x00\x10\x83\xff payload", 12));
  ffi::Function to_json = ffi::Function::GetGlobalRequired("ffi.ToJSONGraphString");
  ffi::Function from_json = ffi::Function::GetGlobalRequired("ffi.FromJSONGraphString");
  String json = to_json(data, nullptr).cast<String>();
  // JSON writes '/' as "\/".
  EXPECT_NE(std::string(json.view()).find(R"("data":"ABCD\/yBwYXlsb2Fk")"), std::string::npos);
  EXPECT_EQ(from_json(json).cast<Bytes>().view(), data.view());
  ffi::Error err = CatchError([&] {
    from_json(String(R"({"root_index": 0, "nodes": [{"type": "ffi.Bytes", "data": "A*=="}]})"));
  });
  EXPECT_EQ(err.kind(), "RuntimeError");
  EXPECT_EQ(err.message(),
            "Invalid JSON Object Graph: invalid base64 encoding: '*' at offset 1 is not a base64 "
            "digit");
}

}  // namespace
