/*
 * ffi/detail/attr_column.h - reading a type attribute column while the runtime may grow it
 * (internal to any_hash.h and reflection/).
 */
#ifndef FFI_DETAIL_ATTR_COLUMN_H_
#define FFI_DETAIL_ATTR_COLUMN_H_

#include <cstdint>

#include "../c_api.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {

/*!
 * \brief The value slot of `type_index` in `column` (a non-null column), or null past its end.
 * A thread may register a value for a new type meanwhile: the runtime publishes a grown column
 * buffer first and size last, each with release, so the size is read first (acquire) and the
 * buffer read after it holds at least that many values.
 */
inline const TVMFFIAny* AttrColumnSlot(const TVMFFITypeAttrColumn* column, int32_t type_index) {
  int64_t offset = static_cast<int64_t>(type_index) - column->begin_index;
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  if (offset < 0 || offset >= size) return nullptr;
  return &__atomic_load_n(&column->data, __ATOMIC_ACQUIRE)[offset];
}

}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_ATTR_COLUMN_H_
