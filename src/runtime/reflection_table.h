/*
 * src/runtime/reflection_table.h - private to the runtime: changes to reflection records that only
 * the runtime itself makes (reflection.cc keeps the records), and what it stores for a type
 * attribute.
 */
#ifndef FFI_SRC_RUNTIME_REFLECTION_TABLE_H_
#define FFI_SRC_RUNTIME_REFLECTION_TABLE_H_

#include <ffi/any.h>

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

/*!
 * \brief What the runtime stores for the type attribute `name` of a type, given `value`: a native
 * map-key hook (`__any_hash__`, `__any_equal__`) becomes a Function that calls it, which code built
 * against any reference release calls alike (key_hooks.cc); any other value is kept as it is.
 */
Any KeyHookToStore(int32_t type_index, std::string_view name, const TVMFFIAny& value);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_REFLECTION_TABLE_H_
