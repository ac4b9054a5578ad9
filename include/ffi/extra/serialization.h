/*
 * ffi/extra/serialization.h - object graphs to and from JSON, through the runtime's standard
 * global functions ffi.ToJSONGraph and ffi.FromJSONGraph:
 *
 *   json::Value graph = ToJSONGraph(value);   // {"root_index": ..., "nodes": [...]}
 *   Any again = FromJSONGraph(graph);
 *
 * Each distinct value is one node, so shared objects stay shared. Reflected objects travel by their
 * fields; a type may instead register `__data_to_json__` / `__data_from_json__` (type_attr below).
 * Opt-in (not in ffi.h).
 */
#ifndef FFI_EXTRA_SERIALIZATION_H_
#define FFI_EXTRA_SERIALIZATION_H_

#include "../function.h"
#include "../reflection/accessor.h"
#include "json.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief `value` as a JSON graph; `metadata`, unless None, is stored beside it. */
inline json::Value ToJSONGraph(const Any& value, const Any& metadata = Any(nullptr)) {
  static const Function to_graph = Function::GetGlobalRequired("ffi.ToJSONGraph");
  return to_graph(value, metadata);
}

/*! \brief The value a JSON graph (from ToJSONGraph) holds. */
inline Any FromJSONGraph(const json::Value& value) {
  static const Function from_graph = Function::GetGlobalRequired("ffi.FromJSONGraph");
  return from_graph(value);
}

namespace type_attr {
/*! \brief A type's own encoding of an object as the JSON data of its graph node. */
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kDataToJson{"__data_to_json__"};
/*! \brief A type's own decoding of the JSON data of its graph node. */
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kDataFromJson{
    "__data_from_json__"};
}  // namespace type_attr

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_SERIALIZATION_H_
