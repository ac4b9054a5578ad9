// dtype strings: TVMFFIDataTypeFromString and TVMFFIDataTypeToString. The header functions
// (DLDataTypeFromString / DLDataTypeToString) call these, so every library in the process, built
// with either package's headers, reads and writes dtype strings the same way.
#include <ffi/dtype.h>
#include <ffi/function.h>
#include <ffi/string.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief A dtype whose name carries its width (the narrow floats): the name alone, no bits. */
struct NamedDType {
  uint8_t code;
  uint8_t bits;
  const char* name;
};
constexpr NamedDType kNarrowFloats[] = {
    {kDLFloat8_e3m4, 8, "float8_e3m4"},
    {kDLFloat8_e4m3, 8, "float8_e4m3"},
    {kDLFloat8_e4m3b11fnuz, 8, "float8_e4m3b11fnuz"},
    {kDLFloat8_e4m3fn, 8, "float8_e4m3fn"},
    {kDLFloat8_e4m3fnuz, 8, "float8_e4m3fnuz"},
    {kDLFloat8_e5m2, 8, "float8_e5m2"},
    {kDLFloat8_e5m2fnuz, 8, "float8_e5m2fnuz"},
    {kDLFloat8_e8m0fnu, 8, "float8_e8m0fnu"},
    {kDLFloat6_e2m3fn, 6, "float6_e2m3fn"},
    {kDLFloat6_e3m2fn, 6, "float6_e3m2fn"},
    {kDLFloat4_e2m1fn, 4, "float4_e2m1fn"},
};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/*!
 * \brief Spells out the short names: "i32" -> "int32", "u8", "f16", "bf16", and the narrow floats
 * "f8_e4m3fn" / "fp8_e4m3fn" -> "float8_e4m3fn" (likewise 6- and 4-bit). Others are unchanged.
 */
std::string ExpandShortName(std::string_view s) {
  if (s.empty()) return std::string();
  auto digit_at = [&](size_t i) { return s.size() > i && IsDigit(s[i]); };
  std::string_view family, rest;
  if (s.size() >= 4 && StartsWith(s, "fp") && (s[2] == '8' || s[2] == '6' || s[2] == '4') &&
      s[3] == '_') {
    family = "float", rest = s.substr(2);
  } else if (s[0] == 'f' && digit_at(1)) {
    family = "float", rest = s.substr(1);
  } else if (s[0] == 'i' && digit_at(1)) {
    family = "int", rest = s.substr(1);
  } else if (s[0] == 'u' && digit_at(1)) {
    family = "uint", rest = s.substr(1);
  } else if (StartsWith(s, "bf") && digit_at(2)) {
    family = "bfloat", rest = s.substr(2);
  } else {
    return std::string(s);
  }
  return std::string(family).append(rest);
}

/*! \brief Parses the dtype string `s` (short names already spelled out). */
class DTypeParser {
 public:
  explicit DTypeParser(const std::string& s) : s_(s) {}

  DLDataType Parse() {
    if (s_.empty() || s_ == "void") return DLDataType{kDLOpaqueHandle, 0, 0};
    DLDataType t{kDLInt, 32, 1};
    bool named = false;  // narrow floats: the name fixes the bits
    if (StartsWith(s_, "custom")) {
      t.code = CustomCode();
    } else if (StartsWith(s_, "int")) {
      pos_ = 3;
    } else if (StartsWith(s_, "uint")) {
      t.code = kDLUInt, pos_ = 4;
    } else if (StartsWith(s_, "float8_") || StartsWith(s_, "float6_") ||
               StartsWith(s_, "float4_")) {
      t = NarrowFloat();
      named = true;
    } else if (StartsWith(s_, "float")) {
      t.code = kDLFloat, pos_ = 5;
    } else if (StartsWith(s_, "bfloat")) {
      t.code = kDLBfloat, t.bits = 16, pos_ = 6;
    } else if (StartsWith(s_, "handle")) {
      t.code = kDLOpaqueHandle, t.bits = 64, pos_ = 6;
    } else if (StartsWith(s_, "bool")) {
      t.code = kDLBool, t.bits = 8, pos_ = 4;
    } else if (StartsWith(s_, "complex")) {
      // Beyond the reference, which knows no complex types: NumPy and PyTorch tensors can be
      // complex, and their dtype must print and parse back.
      t.code = kDLComplex, t.bits = 64, pos_ = 7;
    } else {
      FFI_THROW(ValueError) << "unknown dtype `" << s_ << "`";
    }
    bool scalable = false;
    if (!named) {
      uint32_t bits = 0;
      bool has_bits = ReadNumber(&bits);
      if (has_bits && bits > 255) {
        FFI_THROW(ValueError) << "Bits value " << bits << " is out of range for uint8_t in dtype '"
                              << s_ << "'";
      }
      // No number keeps the family's default width ("int" is int32); an explicit 0 bits is no
      // type (it would have read as the default).
      if (has_bits && bits == 0) {
        FFI_THROW(ValueError) << "Invalid bits in dtype '" << s_ << "': a width of 0 bits";
      }
      if (has_bits) t.bits = static_cast<uint8_t>(bits);
      if (s_.compare(pos_, 7, "xvscale") == 0) scalable = true, pos_ += 7;
    }
    if (pos_ < s_.size() && s_[pos_] == 'x') {
      ++pos_;
      uint32_t lanes = 0;
      if (!ReadNumber(&lanes) || lanes == 0) {
        FFI_THROW(ValueError) << "Invalid lanes specification in dtype '" << s_
                              << "'. Lanes must be a positive integer.";
      }
      // DLPack's lanes are 16 bits, read as signed: negative values mark scalable vectors, so
      // a fixed vector has at most 32767 lanes (more would read back as a scalable one) and a
      // scalable one a multiplier of at most 32768.
      if (lanes > (scalable ? 0x8000u : 0x7FFFu)) {
        FFI_THROW(ValueError) << "Lanes value " << lanes << " is out of range in dtype '" << s_
                              << "': a vector has at most 32767 lanes";
      }
      // A scalable vector stores its lane multiplier negated.
      t.lanes = static_cast<uint16_t>(scalable ? 0x10000 - lanes : lanes);
    }
    if (pos_ != s_.size()) FFI_THROW(ValueError) << "unknown dtype `" << s_ << "`";
    return t;
  }

 private:
  /*! \brief Reads the decimal digits at pos_ (false when there are none); they must fit 32 bits. */
  bool ReadNumber(uint32_t* out) {
    size_t begin = pos_;
    uint64_t v = 0;
    for (; pos_ < s_.size() && IsDigit(s_[pos_]); ++pos_) {
      if (v <= 0xFFFFFFFFu) v = v * 10 + static_cast<uint64_t>(s_[pos_] - '0');
    }
    if (v > 0xFFFFFFFFu) {
      FFI_THROW(ValueError) << "Integer value in dtype string '" << s_.substr(begin, pos_ - begin)
                            << "' is out of range for uint32_t";
    }
    *out = static_cast<uint32_t>(v);
    return pos_ != begin;
  }

  /*! \brief "float8_e4m3fn", ... : the name must be followed by the end or the lanes. */
  DLDataType NarrowFloat() {
    bool fp4 = s_[5] == '4';
    for (const NamedDType& n : kNarrowFloats) {
      std::string_view name = n.name;
      if (!StartsWith(s_, name)) continue;
      char next = s_.size() > name.size() ? s_[name.size()] : 'x';
      // PyTorch spells packed 4-bit floats "float4_e2m1fn_x2": one '_' may precede the lanes.
      if (next != 'x' && !(fp4 && next == '_')) continue;
      pos_ = name.size() + (next == '_' ? 1 : 0);
      return DLDataType{n.code, n.bits, 1};
    }
    FFI_THROW(ValueError) << "unknown float" << s_[5] << " type `" << s_ << "`";
  }

  /*! \brief "custom[name]": the code comes from the registered dtype.get_custom_type_code. */
  uint8_t CustomCode() {
    if (s_.size() <= 6 || s_[6] != '[') {
      FFI_THROW(ValueError) << "expected opening brace after 'custom' type in" << s_;
    }
    size_t close = s_.find(']', 7);
    if (close == std::string::npos) {
      FFI_THROW(ValueError) << "expected closing brace after 'custom' type in" << s_;
    }
    Optional<Function> f = Function::GetGlobal("dtype.get_custom_type_code");
    if (!f.has_value()) FFI_THROW(ValueError) << "Function dtype.get_custom_type_code not found";
    pos_ = close + 1;
    return static_cast<uint8_t>((*f)(String(s_.substr(7, close - 7))).cast<int64_t>());
  }

  const std::string& s_;
  size_t pos_ = 0;
};

/*!
 * \brief The name of a code's family; bits are appended to it when `with_bits`.
 *
 * A code that names no dtype throws ValueError, worded as the reference's: 18..128 (codes DLPack
 * has not assigned, or a producer's own) "DLDataType contains unknown type_code=N", and a custom
 * code (129..255) with no dtype.get_custom_type_name registered "Function
 * dtype.get_custom_type_name not found"; the registered function's own error passes through. This
 * is reached only through TVMFFIDataTypeToString, whose FFI_SAFE_CALL turns any of them into an
 * error return: callers get -1 and the error raised, never an exception through the C ABI. Code
 * that prints a dtype it did not check must handle that return (the header's DLDataTypeToString
 * rethrows it; TextFormatter<DLDataType> writes the fields instead).
 */
std::string FamilyName(DLDataType t, bool* with_bits) {
  *with_bits = true;
  switch (t.code) {
    case kDLInt:
      return "int";
    case kDLUInt:
      return "uint";
    case kDLFloat:
      return "float";
    case kDLBfloat:
      return "bfloat";
    case kDLComplex:
      return "complex";
    case kDLBool:
      *with_bits = t.bits != 8;
      return "bool";
    default:
      break;
  }
  *with_bits = false;
  for (const NamedDType& n : kNarrowFloats) {
    if (n.code == t.code) return n.name;
  }
  if (t.code >= kDLExtCustomBegin) {
    Optional<Function> f = Function::GetGlobal("dtype.get_custom_type_name");
    if (!f.has_value()) FFI_THROW(ValueError) << "Function dtype.get_custom_type_name not found";
    String name = (*f)(static_cast<int64_t>(t.code)).cast<String>();
    return std::string("custom[").append(name.view()).append("]");
  }
  FFI_THROW(ValueError) << "DLDataType contains unknown type_code=" << static_cast<int>(t.code);
}

std::string ToString(DLDataType t) {
  if (t.code == kDLOpaqueHandle) {
    // The void type prints as nothing; a handle prints without its bits or lanes.
    return t.bits == 0 && t.lanes == 0 ? std::string() : std::string("handle");
  }
  bool with_bits = false;
  std::string out = FamilyName(t, &with_bits);
  if (with_bits) out += std::to_string(t.bits);
  // Lanes are read as signed: a negative count is a scalable vector's multiplier.
  int lanes = static_cast<int16_t>(t.lanes);
  if (lanes > 1) out.append("x").append(std::to_string(lanes));
  if (lanes < -1) out.append("xvscalex").append(std::to_string(-lanes));
  return out;
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

extern "C" {

int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out) {
  FFI_SAFE_CALL_BEGIN();
  if (str == nullptr || out == nullptr || (str->data == nullptr && str->size != 0)) {
    FFI_THROW(ValueError) << "TVMFFIDataTypeFromString: NULL argument";
  }
  // The bytes need not end in NUL: only `size` of them are read.
  std::string text = ffi::runtime::ExpandShortName(std::string_view(str->data, str->size));
  *out = ffi::runtime::DTypeParser(text).Parse();
  FFI_SAFE_CALL_END();
}

int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out) {
  FFI_SAFE_CALL_BEGIN();
  if (dtype == nullptr || out == nullptr) {
    FFI_THROW(ValueError) << "TVMFFIDataTypeToString: NULL argument";
  }
  std::string s = ffi::runtime::ToString(*dtype);
  ffi::detail::BytesToAny<ffi::StringObj>(s, kTVMFFISmallStr, out);
  FFI_SAFE_CALL_END();
}

}  // extern "C"
