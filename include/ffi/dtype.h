/*
 * ffi/dtype.h - DLDataType: comparison, printing and parsing of dtype strings.
 *
 * Strings follow the usual ML spelling: "bool", "int8".."int64", "uint8".."uint64", "float16",
 * "float32", "float64", "bfloat16", the narrow floats ("float8_e4m3fn", "float6_e2m3fn",
 * "float4_e2m1fn", ...), "handle" for opaque handles, a lane suffix for vectors ("float32x4") and
 * for scalable vectors ("int32xvscalex4", lanes stored negated), and "custom[name]" for types
 * registered through the global functions dtype.get_custom_type_code / get_custom_type_name.
 * Short names parse too: "i32", "u8", "f16", "bf16", "f8_e4m3fn" / "fp8_e4m3fn", "f4_e2m1fn_x2".
 * The runtime's TVMFFIDataTypeFromString / TVMFFIDataTypeToString do the work, so every library in
 * a process agrees on the spelling.
 */
#ifndef FFI_DTYPE_H_
#define FFI_DTYPE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "error.h"
#include "string.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Type codes from this one on are custom types, named by dtype.get_custom_type_name. */
enum DLExtDataTypeCode { kDLExtCustomBegin = 129 };

namespace detail {
/*! \brief Appends the runtime's text for `t`; non-zero (the error left raised) if it has none. */
inline int AppendDType(DLDataType t, std::string* out) {
  TVMFFIAny text;
  if (int rc = TVMFFIDataTypeToString(&t, &text)) return rc;
  String s = *TypeTraits<String>::TryCastFromAnyView(&text);
  if (text.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(text.v_obj);
  out->append(s.view());
  return 0;
}
}  // namespace detail

/*!
 * \brief The dtype's string, e.g. "float32", "bfloat16", "int8x4", "float8_e4m3fn"; the void
 * type {kDLOpaqueHandle, 0, 0} prints as "". Throws ValueError for an unknown type code.
 */
inline std::string DLDataTypeToString(DLDataType t) {
  std::string out;
  if (int rc = detail::AppendDType(t, &out)) detail::ThrowRaised(rc);
  return out;
}

/*! \brief Parses a dtype string; throws ValueError naming the string when it is not one. */
inline DLDataType DLDataTypeFromString(std::string_view str) {
  TVMFFIByteArray bytes{str.data(), str.size()};
  DLDataType out;
  FFI_CHECK_SAFE_CALL(TVMFFIDataTypeFromString(&bytes, &out));
  return out;
}

/*! \brief Whether `t` is a floating-point type: float, bfloat or a narrow float. */
inline bool DTypeIsFloat(DLDataType t) {
  return t.code == kDLFloat || t.code == kDLBfloat ||
         (t.code >= kDLFloat8_e3m4 && t.code <= kDLFloat4_e2m1fn);
}
/*! \brief Whether `t` is a signed or unsigned integer type. */
inline bool DTypeIsInt(DLDataType t) { return t.code == kDLInt || t.code == kDLUInt; }
/*! \brief Whether `t` is the boolean type. */
inline bool DTypeIsBool(DLDataType t) { return t.code == kDLBool; }

/*!
 * \brief The dtype's compact name for text formats: "i32", "u8", "f16", "bf16", "f8_e4m3fn",
 * "bool", "void", "handle"; custom types keep their full name.
 */
inline std::string DTypeAbbrev(DLDataType t) {
  std::string s = DLDataTypeToString(t);
  if (s.empty()) return "void";
  // The long family names shorten; the rest of the string (bits, lanes) stays as printed.
  const std::string_view families[][2] = {
      {"uint", "u"}, {"int", "i"}, {"bfloat", "bf"}, {"float", "f"}};
  for (const auto& f : families) {
    if (s.compare(0, f[0].size(), f[0]) == 0) return s.replace(0, f[0].size(), f[1]);
  }
  return s;
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
/*!
 * \brief Error messages write a dtype as its string. A code that names no dtype is written by its
 * fields instead: the message being built must not be replaced by a printing error.
 */
template <>
struct TextFormatter<DLDataType> {
  static void Append(std::string* out, const DLDataType& t) {
    if (AppendDType(t, out) == 0) return;
    TVMFFIObjectHandle error = nullptr;
    TVMFFIErrorMoveFromRaised(&error);
    if (error != nullptr) TVMFFIObjectDecRef(error);
    out->append("DataType(code=");
    AppendInt(out, t.code);
    out->append(", bits=");
    AppendInt(out, t.bits);
    out->append(", lanes=");
    AppendInt(out, t.lanes);
    out->append(")");
  }
};
}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DTYPE_H_
