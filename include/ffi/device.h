/*
 * ffi/device.h - DLDevice: comparison, printing ("cpu", "cuda:1") and parsing.
 */
#ifndef FFI_DEVICE_H_
#define FFI_DEVICE_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "detail/parse.h"
#include "error.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
/*! \brief The name of a device type: "cpu", "cuda", "rocm", ... */
inline std::string DLDeviceTypeToString(int32_t type) {
  for (const auto& d : detail::kDeviceNames) {
    if (d.type == type) return d.name;
  }
  return "device_type" + std::to_string(type);
}

/*! \brief "cpu" for the host's device 0, "<type>:<id>" otherwise (e.g. "cuda:1"). */
inline std::string DLDeviceToString(DLDevice d) {
  std::string s = DLDeviceTypeToString(d.device_type);
  if (d.device_type == kDLCPU && d.device_id == 0) return s;
  return s + ":" + std::to_string(d.device_id);
}

/*!
 * \brief Parses "cpu", "cuda", "cuda:1", "mps", ... (see detail::TryParseDevice); throws ValueError
 * when it is not a device.
 */
inline DLDevice DLDeviceFromString(std::string_view str) {
  DLDevice d;
  if (!detail::TryParseDevice(str, &d)) {
    FFI_THROW(ValueError) << "Cannot parse device string `" << str << "`";
  }
  return d;
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Equality of devices (type and id), in the global namespace beside DLDevice. Templates, so
 * that a user's own non-template `operator==` for DLDevice (which code written for the reference's
 * headers may define: those have none) is preferred instead of clashing with this one.
 */
template <typename Device, typename = std::enable_if_t<std::is_same_v<Device, DLDevice>>>
inline bool operator==(const Device& a, const Device& b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}
template <typename Device, typename = std::enable_if_t<std::is_same_v<Device, DLDevice>>>
inline bool operator!=(const Device& a, const Device& b) {
  return !(a.device_type == b.device_type && a.device_id == b.device_id);
}
/*! \brief Prints a device as "cpu" or "cuda:1" (a template for the reason given in dtype.h). */
template <typename Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const DLDevice& d) {
  return os << ffi::DLDeviceToString(d);
}

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {
/*! \brief Error messages write a device as "cpu" or "cuda:1". */
template <>
struct TextFormatter<DLDevice> {
  static void Append(std::string* out, const DLDevice& d) { out->append(DLDeviceToString(d)); }
};
}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DEVICE_H_
