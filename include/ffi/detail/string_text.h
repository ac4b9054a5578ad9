/*
 * ffi/detail/string_text.h - text helpers behind String: the pieces String::Split returns, and the
 * JSON and Python string literals EscapeStringJSON / EscapedStringPy make. They work on string
 * views and need only the standard library. Included by string.h; not for users to include.
 */
#ifndef FFI_DETAIL_STRING_TEXT_H_
#define FFI_DETAIL_STRING_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*!
 * \brief What String::Split returns: the pieces as string views, indexable and iterable, and
 * convertible to any container built from an iterator pair (std::vector<std::string_view>, ...).
 */
class StringPieces {
 public:
  StringPieces(const StringPieces&) = delete;
  StringPieces& operator=(const StringPieces&) = delete;
  StringPieces(StringPieces&& other) noexcept
      : pieces_(std::exchange(other.pieces_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  ~StringPieces() { delete[] pieces_; }
  StringPieces(std::string_view text, char delim) {
    size_ = 1;
    for (char c : text) size_ += c == delim;
    pieces_ = new std::string_view[size_];
    size_t begin = 0, n = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == delim) {
        pieces_[n++] = text.substr(begin, i - begin);
        begin = i + 1;
      }
    }
  }
  /*! \brief The number of pieces (at least one). */
  size_t size() const { return size_; }
  /*! \brief Piece `i` (unchecked). */
  std::string_view operator[](size_t i) const { return pieces_[i]; }
  const std::string_view* begin() const { return pieces_; }
  const std::string_view* end() const { return pieces_ + size_; }
  /*! \brief The pieces in any container constructible from an iterator range. */
  template <typename Container,
            typename = decltype(Container(std::declval<const std::string_view*>(),
                                          std::declval<const std::string_view*>()))>
  operator Container() const {
    return Container(begin(), end());
  }

 private:
  std::string_view* pieces_ = nullptr;
  size_t size_ = 0;
};

/*! \brief `s` as a JSON string literal: quoted; quotes, backslashes, `/` and controls escaped. */
inline std::string JSONString(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '/':
        out += "\\/";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

/*! \brief `s` as a Python string literal, escaped as EscapedStringPy documents. */
inline std::string PyString(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  auto hex = [&](uint32_t v, int digits) {
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xf];
  };
  auto continuation = [&](size_t i) {
    return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
  };
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n' || c == '\t' || c == '\r') {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      hex(c, 2);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // A whole, shortest-form UTF-8 sequence becomes one escape; anything else one \xNN.
      size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
      uint32_t cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
      bool ok = len != 0;
      for (size_t k = 1; ok && k < len; ++k) {
        ok = continuation(i + k);
        if (ok) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      }
      ok = ok && !(len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) &&
           !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF));
      if (!ok) {
        out += "\\x";
        hex(c, 2);
      } else {
        out += cp <= 0xFFFF ? "\\u" : "\\U";
        hex(cp, cp <= 0xFFFF ? 4 : 8);
        i += len;
        continue;
      }
    }
    ++i;
  }
  out += '"';
  return out;
}
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_STRING_TEXT_H_
