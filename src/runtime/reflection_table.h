/*
 * src/runtime/reflection_table.h - private to the runtime: changes to reflection records that only
 * the runtime itself makes (reflection.cc keeps the records).
 */
#ifndef FFI_SRC_RUNTIME_REFLECTION_TABLE_H_
#define FFI_SRC_RUNTIME_REFLECTION_TABLE_H_

#include <cstdint>
#include <string_view>

namespace tvm {
namespace ffi {
namespace runtime {

/*!
 * \brief Renames the reflected field `from` of a type to `to` (nothing when it is already named
 * `to`). The type's field array is republished, so a concurrent reader sees either name, whole.
 * \throws KeyError when the type has neither field.
 */
void RenameTypeField(int32_t type_index, std::string_view from, std::string_view to);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_REFLECTION_TABLE_H_
