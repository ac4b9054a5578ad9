/*
 * ffi/detail/parse.h - small text parsers shared by the dtype and device string conversions.
 * Internal: included by ffi headers, never by users.
 */
#ifndef FFI_DETAIL_PARSE_H_
#define FFI_DETAIL_PARSE_H_

#include <cstdint>
#include <string_view>

#include "../base.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {

/*! \brief Parses a decimal number filling all of `s` (at most 9 digits); -1 when it does not. */
inline int64_t ParseDecimal(std::string_view s) {
  if (s.empty() || s.size() > 9) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_PARSE_H_
