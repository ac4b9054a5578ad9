// The standard global functions ffi.json.Parse and ffi.json.Stringify: JSON text to and from the
// values the FFI holds (objects as Map, arrays as Array, strings, 64-bit ints, doubles, bools,
// null). Behaviour follows the reference runtime so that text written by either reads the same:
// its extensions (NaN, Infinity, -Infinity, a leading '+' or zeros in numbers), its number
// formatting (17 significant digits, ".0" on integral doubles below 2^53) and its error messages
// (Python's json wording, with line, column and byte offset), all raised as ValueError.
#include <ffi/any.h>
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/optional.h>
#include <ffi/reflection/registry.h>
#include <ffi/string.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "stack_guard.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief Reads one JSON value from a text, reporting errors at byte offsets. */
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  /*! \brief The value the whole text holds; ValueError when it holds anything else. */
  Any ParseAll() {
    Any value = ParseValue();
    SkipSpace();
    if (pos_ != s_.size()) Fail("Extra data", pos_);
    return value;
  }

 private:
  [[noreturn]] void Fail(const char* what, size_t at) const {
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    FFI_THROW(ValueError) << what << ": line " << line << " column " << (at - line_start + 1)
                          << " (char " << at << ")";
  }

  bool AtEnd() const { return pos_ >= s_.size(); }

  void SkipSpace() {
    while (!AtEnd() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Match(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Any ParseValue() {
    SkipSpace();
    if (AtEnd()) Fail("Expecting value", pos_);
    size_t start = pos_;
    // The first character decides what can follow.
    switch (s_[pos_]) {
      case '{':
        return ParseObject();
      case '[':
        return ParseArray();
      case '"':
        return ParseString();
      case 't':
        if (Match("true")) return true;
        break;
      case 'f':
        if (Match("false")) return false;
        break;
      case 'n':
        if (Match("null")) return nullptr;
        break;
      case 'N':
        if (Match("NaN")) return std::nan("");
        break;
      case 'I':
        if (Match("Infinity")) return HUGE_VAL;
        break;
      case '-':
        if (Match("-Infinity")) return -HUGE_VAL;
        return ParseNumber();
      case '+':
      case '.':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        return ParseNumber();
      default:
        break;
    }
    Fail("Expecting value", start);
  }

  // A number is the longest run of number characters, read whole as an int64 when it has no
  // fraction or exponent and fits, else as a finite double.
  Any ParseNumber() {
    size_t start = pos_;
    bool is_float = false;
    while (!AtEnd()) {
      char c = s_[pos_];
      if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
      } else if (!((c >= '0' && c <= '9') || c == '+' || c == '-')) {
        break;
      }
      ++pos_;
    }
    std::string_view token = s_.substr(start, pos_ - start);
    if (!is_float) {
      if (std::optional<int64_t> v = ParseInt64(token)) return *v;
    }
    // strtod needs a terminated copy; short numbers (nearly all) stay on the stack.
    char buffer[64];
    std::string long_token;
    const char* text = buffer;
    if (token.size() < sizeof(buffer)) {
      std::memcpy(buffer, token.data(), token.size());
      buffer[token.size()] = '\0';
    } else {
      long_token.assign(token);
      text = long_token.c_str();
    }
    char* end = nullptr;
    double d = std::strtod(text, &end);
    if (end != text + token.size() || std::isinf(d)) Fail("Expecting value", start);
    return d;
  }

  /*! \brief `token` as an int64 (what strtoll reads: an optional sign, then decimal digits), or
   * nothing when it is not one or does not fit. */
  static std::optional<int64_t> ParseInt64(std::string_view token) {
    size_t i = 0;
    bool negative = false;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) negative = token[i++] == '-';
    if (i == token.size()) return std::nullopt;
    uint64_t magnitude = 0;
    constexpr uint64_t kLimit = uint64_t{1} << 63;  // |INT64_MIN|
    for (; i < token.size(); ++i) {
      char c = token[i];
      if (c < '0' || c > '9') return std::nullopt;
      uint64_t digit = static_cast<uint64_t>(c - '0');
      if (magnitude > (kLimit - digit) / 10) return std::nullopt;
      magnitude = magnitude * 10 + digit;
    }
    if (negative) return magnitude == kLimit ? INT64_MIN : -static_cast<int64_t>(magnitude);
    if (magnitude == kLimit) return std::nullopt;
    return static_cast<int64_t>(magnitude);
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // The four hex digits at `at`, or -1.
  int Hex4(size_t at) const {
    if (at + 4 > s_.size()) return -1;
    int v = 0;
    for (size_t i = at; i < at + 4; ++i) {
      int d = HexDigit(s_[i]);
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // A \uXXXX escape whose 'u' is at `u`, with its low surrogate when it starts a pair.
  void ParseUnicodeEscape(size_t u, std::string* out) {
    int hi = Hex4(u + 1);
    if (hi < 0) Fail("Invalid \\uXXXX escape", u);
    uint32_t cp = static_cast<uint32_t>(hi);
    pos_ = u + 5;
    if (cp >= 0xDC00 && cp <= 0xDFFF) Fail("Invalid surrogate pair of \\uXXXX escapes", u);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!Match("\\u")) Fail("Invalid surrogate pair of \\uXXXX escapes", u);
      int lo = Hex4(pos_);
      if (lo < 0) Fail("Invalid \\uXXXX escape", pos_ - 1);
      if (lo < 0xDC00 || lo > 0xDFFF) Fail("Invalid surrogate pair of \\uXXXX escapes", pos_);
      cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(lo) - 0xDC00);
      pos_ += 4;
    }
    AppendUtf8(out, cp);
  }

  /*! \brief The string at `pos_` (its opening quote); without escapes it is made from the text
   * in place. */
  String ParseString() {
    size_t start = pos_;
    for (size_t i = start + 1; i < s_.size(); ++i) {
      char c = s_[i];
      if (c == '"') {
        pos_ = i + 1;
        return String(s_.data() + start + 1, i - start - 1);
      }
      if (c == '\\' || static_cast<unsigned char>(c) < 0x20) break;
    }
    return String(ParseEscapedString());
  }

  std::string ParseEscapedString() {
    size_t start = pos_++;
    std::string out;
    while (true) {
      if (AtEnd()) Fail("Unterminated string starting at", start);
      char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) Fail("Invalid control character at", pos_);
      if (c != '\\') {
        // The run up to the next quote, escape or control character, at once.
        size_t run = pos_;
        while (run < s_.size() && s_[run] != '"' && s_[run] != '\\' &&
               static_cast<unsigned char>(s_[run]) >= 0x20) {
          ++run;
        }
        out.append(s_.data() + pos_, run - pos_);
        pos_ = run;
        continue;
      }
      size_t e = pos_ + 1;
      if (e >= s_.size()) Fail("Invalid \\escape", e);
      pos_ = e + 1;
      switch (s_[e]) {
        case '"':
        case '\\':
        case '/':
          out += s_[e];
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          ParseUnicodeEscape(e, &out);
          break;
        default:
          Fail("Invalid \\escape", e);
      }
    }
  }

  // Consumes `close` (true) or a ',' followed by more text (false) after a container's item;
  // the text ending right after a ',' is reported as a syntax error.
  bool CloseOrComma(char close) {
    SkipSpace();
    if (!AtEnd() && s_[pos_] == close) {
      ++pos_;
      return true;
    }
    if (AtEnd() || s_[pos_] != ',') Fail("Expecting ',' delimiter", pos_);
    ++pos_;
    SkipSpace();
    if (AtEnd()) Fail("Syntax error near", pos_);
    return false;
  }

  // Consumes the opening bracket and tells whether `close` follows at once (an empty container).
  bool OpenEmpty(char close) {
    ++pos_;
    SkipSpace();
    if (AtEnd() || s_[pos_] != close) return false;
    ++pos_;
    return true;
  }

  Any ParseArray() {
    stack_.Check();
    Array<Any> items;
    if (OpenEmpty(']')) return items;
    do {
      items.push_back(ParseValue());
    } while (!CloseOrComma(']'));
    return items;
  }

  Any ParseObject() {
    stack_.Check();
    Map<Any, Any> object;
    if (OpenEmpty('}')) return object;
    do {
      if (AtEnd() || s_[pos_] != '"') {
        Fail("Expecting property name enclosed in double quotes", pos_);
      }
      String key = ParseString();
      SkipSpace();
      if (AtEnd() || s_[pos_] != ':') Fail("Expecting ':' delimiter", pos_);
      ++pos_;
      object.Set(key, ParseValue());
    } while (!CloseOrComma('}'));
    return object;
  }

  std::string_view s_;
  size_t pos_ = 0;
  StackLimit stack_{"ffi.json.Parse"};
};

/*! \brief The type key of what `v` holds, as the reference's messages name it. */
std::string TypeKeyOf(const AnyView& v) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(v.type_index());
  if (info == nullptr) return detail::TypeIndexToName(v.type_index());
  return std::string(detail::ByteView(info->type_key));
}

/*! \brief Writes values as JSON text: compact, or one item per line when indenting. */
class Writer {
 public:
  explicit Writer(Optional<int> indent) {
    if (indent.has_value() && *indent != 0) {
      pretty_ = true;
      step_ = *indent > 0 ? *indent : 0;
    }
  }

  void Write(const AnyView& v, int depth) {
    CheckStackDepth("ffi.json.Stringify");
    switch (v.type_index()) {
      case kTVMFFINone:
        out_ += "null";
        return;
      case kTVMFFIBool:
        out_ += v.cast<bool>() ? "true" : "false";
        return;
      case kTVMFFIInt:
        out_ += std::to_string(v.cast<int64_t>());
        return;
      case kTVMFFIBigInt:  // an integer literal, as JSON allows any
        out_ += v.cast<BigInt>().ToString();
        return;
      case kTVMFFIFloat:
        WriteDouble(v.cast<double>());
        return;
      case kTVMFFIRawStr:
      case kTVMFFISmallStr:
      case kTVMFFIStr:
        out_ += detail::JSONString(v.cast<String>().view());
        return;
      case kTVMFFIArray:
        WriteArray(v.cast<Array<Any>>(), depth);
        return;
      case kTVMFFIMap:
        WriteObject(v.cast<Map<Any, Any>>(), depth);
        return;
      default:
        FFI_THROW(ValueError) << "Unsupported type: `" << TypeKeyOf(v) << "`";
    }
  }

  std::string Take() { return std::move(out_); }

 private:
  // 17 significant digits read back to the same double; integral values that an int64 could hold
  // exactly keep a ".0" so that they read back as floats.
  void WriteDouble(double d) {
    if (std::isnan(d)) {
      out_ += "NaN";
      return;
    }
    if (std::isinf(d)) {
      out_ += d > 0 ? "Infinity" : "-Infinity";
      return;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", d);
    out_ += buf;
    if (d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) out_ += ".0";
  }

  void NewLine(int depth) {
    if (!pretty_) return;
    out_ += '\n';
    out_.append(static_cast<size_t>(step_) * depth, ' ');
  }

  void WriteArray(const Array<Any>& items, int depth) {
    out_ += '[';
    bool first = true;
    for (const Any& item : items) {
      if (!first) out_ += ',';
      first = false;
      NewLine(depth + 1);
      Write(item, depth + 1);
    }
    NewLine(depth);
    out_ += ']';
  }

  void WriteObject(const Map<Any, Any>& object, int depth) {
    out_ += '{';
    bool first = true;
    for (const auto& kv : object) {
      int32_t key_index = kv.first.type_index();
      if (key_index != kTVMFFISmallStr && key_index != kTVMFFIStr) {
        FFI_THROW(ValueError) << "Expect key to be string, got `" << TypeKeyOf(kv.first) << "`";
      }
      if (!first) out_ += ',';
      first = false;
      NewLine(depth + 1);
      out_ += detail::JSONString(kv.first.cast<String>().view());
      out_ += pretty_ ? ": " : ":";
      Write(kv.second, depth + 1);
    }
    NewLine(depth);
    out_ += '}';
  }

  std::string out_;
  bool pretty_ = false;
  int step_ = 0;
};

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def(
          "ffi.json.Parse", [](const String& text) { return Parser(text.view()).ParseAll(); },
          "The value a JSON text holds (objects as Map, arrays as Array); ValueError with the "
          "line, column and offset of the first error.")
      .def(
          "ffi.json.Stringify",
          [](AnyView value, Optional<int> indent) {
            Writer writer(indent);
            writer.Write(value, 0);
            return String(writer.Take());
          },
          "A value (None, bool, int, float, str, Array, Map with string keys) as JSON text; "
          "compact, or one item per line indented by `indent` spaces.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
