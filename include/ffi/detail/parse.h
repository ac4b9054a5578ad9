/*
 * ffi/detail/parse.h - small text parsers shared by the dtype and device string conversions
 * (device.h, and TypeTraits<DLDevice>, which takes device strings).
 * Internal: included by ffi headers, never by users.
 */
#ifndef FFI_DETAIL_PARSE_H_
#define FFI_DETAIL_PARSE_H_

#include <cstdint>
#include <string_view>

#include "../base.h"
#include "../dlpack.h"

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

/*! \brief A device type's name as device strings spell it. */
struct DeviceName {
  DLDeviceType type;
  const char* name;
};
/*! \brief Device type names; the first entry of a type is the one printed, later ones aliases. */
inline constexpr DeviceName kDeviceNames[] = {
    {kDLCPU, "cpu"},
    {kDLCUDA, "cuda"},
    {kDLCUDAHost, "cuda_host"},
    {kDLOpenCL, "opencl"},
    {kDLVulkan, "vulkan"},
    {kDLMetal, "metal"},
    {kDLVPI, "vpi"},
    {kDLROCM, "rocm"},
    {kDLROCMHost, "rocm_host"},
    {kDLExtDev, "ext_dev"},
    {kDLCUDAManaged, "cuda_managed"},
    {kDLOneAPI, "oneapi"},
    {kDLWebGPU, "webgpu"},
    {kDLHexagon, "hexagon"},
    {kDLMAIA, "maia"},
    {kDLTrn, "trn"},
    {kDLMetal, "mps"},
    {kDLWebGPU, "wgpu"},
};

/*!
 * \brief Parses "cpu", "cuda", "cuda:1", ... (text from the first space on is ignored, as in
 * "cuda:0 (NVIDIA H100)"); false when it is not a device.
 */
inline bool TryParseDevice(std::string_view str, DLDevice* out) {
  str = str.substr(0, str.find(' '));
  std::string_view type = str, id;
  size_t colon = str.find(':');
  if (colon != std::string_view::npos) {
    type = str.substr(0, colon);
    id = str.substr(colon + 1);
  }
  for (const DeviceName& d : kDeviceNames) {
    if (type != d.name) continue;
    int64_t n = 0;  // the ordinal: digits only, at most INT32_MAX
    if (colon != std::string_view::npos) {
      if (id.empty()) return false;
      for (char c : id) {
        if (c < '0' || c > '9') return false;
        n = n * 10 + (c - '0');
        if (n > INT32_MAX) return false;
      }
    }
    *out = DLDevice{d.type, static_cast<int32_t>(n)};
    return true;
  }
  return false;
}

}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_PARSE_H_
