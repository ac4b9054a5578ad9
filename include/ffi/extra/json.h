/*
 * ffi/extra/json.h - JSON text to and from FFI values, through the runtime's standard global
 * functions ffi.json.Parse and ffi.json.Stringify (so any TVM-FFI runtime serves them):
 *
 *   json::Value v = json::Parse(R"({"a": [1, 2.5, true, null]})");  // Map{"a": Array{...}}
 *   String text = json::Stringify(v, 2);                             // indented by 2 spaces
 *
 * Objects read as Map<Any, Any>, arrays as Array<Any>, numbers as int64_t or double.
 * Opt-in (not in ffi.h).
 */
#ifndef FFI_EXTRA_JSON_H_
#define FFI_EXTRA_JSON_H_

#include "../any.h"
#include "../container/array.h"
#include "../container/map.h"
#include "../function.h"
#include "../optional.h"
#include "../string.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace json {

/*! \brief A JSON value: None, bool, int64_t, double, String, json::Array or json::Object. */
using Value = Any;
/*! \brief A JSON object. */
using Object = ffi::Map<Any, Any>;
/*! \brief A JSON array. */
using Array = ffi::Array<Any>;

/*!
 * \brief The value `json_str` holds. A malformed text throws ValueError, or, when `error_msg` is
 * given, sets it to the message and returns None.
 */
inline Value Parse(const String& json_str, String* error_msg = nullptr) {
  static const Function parse = Function::GetGlobalRequired("ffi.json.Parse");
  if (error_msg == nullptr) return parse(json_str);
  try {
    return parse(json_str);
  } catch (const Error& e) {
    *error_msg = String(e.message());
    return Value();
  }
}

/*!
 * \brief `value` as JSON text: compact without `indent`, else one item per line indented by
 * `indent` spaces per level. ValueError for values JSON cannot hold.
 */
inline String Stringify(const Value& value, const Optional<int>& indent = std::nullopt) {
  static const Function stringify = Function::GetGlobalRequired("ffi.json.Stringify");
  return stringify(value, indent).cast<String>();
}

}  // namespace json
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_JSON_H_
