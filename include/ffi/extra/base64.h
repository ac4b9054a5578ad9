/*
 * ffi/extra/base64.h - Base64 (RFC 4648, standard alphabet, '=' padding) between bytes and text:
 *
 *   ffi::String text = ffi::Base64Encode(ffi::Bytes("\x00\xff", 2));  // "AP8="
 *   ffi::Bytes data = ffi::Base64Decode(text);                         // the two bytes again
 *
 * Decoding accepts exactly what encoding produces (no line breaks or other whitespace): anything
 * else is an InternalError (the kind TVM-FFI raises) saying what is wrong and where.
 */
#ifndef FFI_EXTRA_BASE64_H_
#define FFI_EXTRA_BASE64_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "../c_api.h"
#include "../error.h"
#include "../string.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief The 64 digits of Base64, digit value 0 first. */
inline constexpr char kBase64Digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*! \brief The value (0-63) of Base64 digit `c`, or -1 when `c` is not a digit. */
constexpr int Base64DigitValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/*! \brief Throws the InternalError for a Base64 text whose length is not a multiple of 4. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowBase64BadLength(size_t size) {
  FFI_THROW(InternalError) << "invalid base64 encoding: its length " << size
                           << " is not a multiple of 4";
}

/*! \brief Throws the InternalError for the character at `offset`, which is no Base64 digit
 * there: a '=' before the final padding, or a byte outside the alphabet. */
[[noreturn]] FFI_COLD_NOINLINE inline void ThrowBase64BadChar(TVMFFIByteArray text, size_t offset) {
  char c = text.data[offset];
  if (c == '=') {
    FFI_THROW(InternalError) << "invalid base64 encoding: padding '=' at offset " << offset
                             << " is not at the end of the text";
  }
  char shown[16];
  if (c >= 0x20 && c < 0x7F) {
    std::snprintf(shown, sizeof(shown), "'%c'", c);
  } else {
    std::snprintf(shown, sizeof(shown), "byte 0x%02X", static_cast<unsigned char>(c));
  }
  FFI_THROW(InternalError) << "invalid base64 encoding: " << static_cast<const char*>(shown)
                           << " at offset " << offset << " is not a base64 digit";
}
}  // namespace detail

/*!
 * \brief The Base64 text of `bytes`: 4 digits per 3 bytes, the last group padded with '='.
 * \param bytes The bytes to encode (data may be null when size is 0).
 * \return The encoded text; empty for no bytes.
 */
inline String Base64Encode(TVMFFIByteArray bytes) {
  const char* digits = detail::kBase64Digits;
  const unsigned char* in = reinterpret_cast<const unsigned char*>(bytes.data);
  std::string out((bytes.size + 2) / 3 * 4, '=');
  size_t i = 0, o = 0;
  for (; i + 3 <= bytes.size; i += 3, o += 4) {
    uint32_t group = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    out[o] = digits[group >> 18];
    out[o + 1] = digits[(group >> 12) & 0x3F];
    out[o + 2] = digits[(group >> 6) & 0x3F];
    out[o + 3] = digits[group & 0x3F];
  }
  if (size_t rest = bytes.size - i; rest != 0) {  // 1 or 2 bytes: "xy==" or "xyz="
    uint32_t group = (uint32_t{in[i]} << 16) | (rest == 2 ? uint32_t{in[i + 1]} << 8 : 0);
    out[o] = digits[group >> 18];
    out[o + 1] = digits[(group >> 12) & 0x3F];
    if (rest == 2) out[o + 2] = digits[(group >> 6) & 0x3F];
  }
  return String(std::move(out));
}

/*!
 * \brief The Base64 text of the bytes `data` holds.
 * \param data The bytes to encode.
 * \return The encoded text.
 */
inline String Base64Encode(const Bytes& data) {
  return Base64Encode(TVMFFIByteArray{data.data(), data.size()});
}

/*!
 * \brief The bytes a Base64 text encodes.
 * \param text The text: groups of 4 digits, the last one possibly ending in "=" or "==".
 * \return The decoded bytes; empty for an empty text.
 * \throws Error InternalError when `text` is not such a text (its length is not a multiple of
 *         4, a byte is not a digit, or '=' appears before the end).
 */
inline Bytes Base64Decode(TVMFFIByteArray text) {
  if (text.size % 4 != 0) detail::ThrowBase64BadLength(text.size);
  std::string out;
  out.reserve(text.size / 4 * 3);
  for (size_t i = 0; i < text.size; i += 4) {
    size_t padding = 0;
    if (i + 4 == text.size && text.data[i + 3] == '=') padding = text.data[i + 2] == '=' ? 2 : 1;
    uint32_t group = 0;
    for (size_t j = 0; j < 4; ++j) {
      int value = j < 4 - padding ? detail::Base64DigitValue(text.data[i + j]) : 0;
      if (value < 0) detail::ThrowBase64BadChar(text, i + j);
      group = (group << 6) | static_cast<uint32_t>(value);
    }
    out.push_back(static_cast<char>(group >> 16));
    if (padding < 2) out.push_back(static_cast<char>((group >> 8) & 0xFF));
    if (padding < 1) out.push_back(static_cast<char>(group & 0xFF));
  }
  return Bytes(std::move(out));
}

/*!
 * \brief The bytes the Base64 text `text` encodes; see Base64Decode(TVMFFIByteArray).
 * \param text The encoded text.
 * \return The decoded bytes.
 */
inline Bytes Base64Decode(const String& text) {
  return Base64Decode(TVMFFIByteArray{text.data(), text.size()});
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_BASE64_H_
