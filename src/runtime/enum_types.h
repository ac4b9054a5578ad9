// Internal to the runtime: what other parts need to know about enum singletons (enum_types.cc).
// Deep copy shares them (each is the one value of its kind) and the printer writes them by name.
#ifndef FFI_RUNTIME_ENUM_TYPES_H_
#define FFI_RUNTIME_ENUM_TYPES_H_

#include <ffi/object.h>
#include <ffi/string.h>

#include <cstdint>

namespace tvm {
namespace ffi {
namespace runtime {

/*! \brief Whether objects of `type_index` are enum singletons (the type derives from ffi.Enum). */
bool IsEnumType(int32_t type_index);

/*! \brief The canonical string index (the name) of an enum singleton; IsEnumType must hold. */
String EnumName(const Object* obj);

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
#endif  // FFI_RUNTIME_ENUM_TYPES_H_
