/*
 * ffi/dtype.h - DLDataType: comparison, printing and parsing of dtype strings.
 *
 * Strings follow the usual ML spelling: "bool", "int8".."int64", "uint8".."uint64", "float16",
 * "float32", "float64", "bfloat16", the narrow floats ("float8_e4m3fn", "float6_e2m3fn",
 * "float4_e2m1fn", ...), "handle" for opaque handles, and a lane suffix for vectors ("float32x4").
 * The runtime's TVMFFIDataTypeFromString / TVMFFIDataTypeToString use these same functions.
 */
#ifndef FFI_DTYPE_H_
#define FFI_DTYPE_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "detail/parse.h"
#include "error.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {

/*! \brief The name of a dtype family whose width is part of the name (narrow floats). */
struct NamedCode {
  uint8_t code;
  uint8_t bits;
  const char* name;
};
inline constexpr NamedCode kNarrowFloats[] = {
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

}  // namespace detail

/*! \brief The dtype's string, e.g. "float32", "bfloat16", "int8x4", "float8_e4m3fn". */
inline std::string DLDataTypeToString(DLDataType t) {
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return "void";
  // One snprintf keeps this small: it is inlined into every kernel that prints a dtype.
  const char* family = nullptr;
  bool with_bits = true;
  switch (t.code) {
    case kDLInt:
      family = "int";
      break;
    case kDLUInt:
      family = "uint";
      break;
    case kDLFloat:
      family = "float";
      break;
    case kDLBfloat:
      family = "bfloat";
      break;
    case kDLComplex:
      family = "complex";
      break;
    case kDLOpaqueHandle:
      family = "handle", with_bits = t.bits != 64;
      break;
    case kDLBool:
      family = "bool", with_bits = t.bits != 8;
      break;
    default:
      for (const auto& n : detail::kNarrowFloats) {
        if (n.code == t.code) family = n.name, with_bits = false;
      }
  }
  char buf[48];
  int n = family ? std::snprintf(buf, sizeof(buf), with_bits ? "%s%u" : "%s", family,
                                 static_cast<unsigned>(t.bits))
                 : std::snprintf(buf, sizeof(buf), "unknown_code%u_%u",
                                 static_cast<unsigned>(t.code), static_cast<unsigned>(t.bits));
  if (t.lanes != 1) {
    n += std::snprintf(buf + n, sizeof(buf) - static_cast<size_t>(n), "x%u",
                       static_cast<unsigned>(t.lanes));
  }
  return std::string(buf, static_cast<size_t>(n));
}

/*! \brief Parses a dtype string; throws ValueError naming the string when it is not one. */
inline DLDataType DLDataTypeFromString(std::string_view str) {
  // Parses a scalar name ("float32", "complex64", "bool", ...) with `lanes` lanes.
  auto parse_scalar = [](std::string_view s, uint16_t lanes, DLDataType* out) {
    if (s == "bool") return *out = DLDataType{kDLBool, 8, lanes}, true;
    if (s == "handle") return *out = DLDataType{kDLOpaqueHandle, 64, lanes}, true;
    for (const auto& n : detail::kNarrowFloats) {
      if (s == n.name) return *out = DLDataType{n.code, n.bits, lanes}, true;
    }
    const std::pair<std::string_view, uint8_t> families[] = {{"uint", kDLUInt},
                                                             {"int", kDLInt},
                                                             {"bfloat", kDLBfloat},
                                                             {"float", kDLFloat},
                                                             {"complex", kDLComplex}};
    for (const auto& [prefix, code] : families) {
      if (s.rfind(prefix, 0) != 0) continue;
      int64_t bits = detail::ParseDecimal(s.substr(prefix.size()));
      if (bits <= 0 || bits > 255) return false;
      return *out = DLDataType{code, static_cast<uint8_t>(bits), lanes}, true;
    }
    return false;
  };
  DLDataType t{};
  if (str == "void") return DLDataType{kDLOpaqueHandle, 0, 0};
  if (parse_scalar(str, 1, &t)) return t;
  // A vector type: "<scalar>x<lanes>".
  if (size_t x = str.rfind('x'); x != std::string_view::npos) {
    int64_t lanes = detail::ParseDecimal(str.substr(x + 1));
    std::string_view scalar = str.substr(0, x);
    // PyTorch spells packed 4-bit floats "float4_e2m1fn_x2"; the reference accepts that too.
    if (scalar == "float4_e2m1fn_") scalar.remove_suffix(1);
    if (lanes > 0 && lanes <= 0xFFFF && parse_scalar(scalar, static_cast<uint16_t>(lanes), &t)) {
      return t;
    }
  }
  FFI_THROW(ValueError) << "Cannot parse dtype string `" << str << "`";
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*! \brief Equality of dtypes (code, bits and lanes). In the global namespace, beside DLDataType. */
inline bool operator==(const DLDataType& a, const DLDataType& b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
inline bool operator!=(const DLDataType& a, const DLDataType& b) { return !(a == b); }
/*!
 * \brief Prints a dtype as its string (found by argument lookup for the global DLDataType). A
 * template, so that these headers need no <ostream>: the stream's own header declares what it uses.
 */
template <typename Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const DLDataType& t) {
  return os << ffi::DLDataTypeToString(t);
}

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {
/*! \brief Error messages write a dtype as its string. */
template <>
struct TextFormatter<DLDataType> {
  static void Append(std::string* out, const DLDataType& t) { out->append(DLDataTypeToString(t)); }
};
}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DTYPE_H_
