/*
 * ffi/extra/structural_hash.h - StructuralHash: a hash consistent with StructuralEqual
 * (structurally equal values hash alike), implemented by the runtime (the global
 * ffi.StructuralHash). A type may take over with the `__s_hash__` type attribute
 * (type_attr::kSHash).
 */
#ifndef FFI_EXTRA_STRUCTURAL_HASH_H_
#define FFI_EXTRA_STRUCTURAL_HASH_H_

#include <cstdint>

#include "../any.h"
#include "../function.h"
#include "../reflection/registry.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Structural hashing of values; also a function object for hash containers. */
class StructuralHash {
 public:
  /*!
   * \brief The structural hash of `value`; options and errors as StructuralEqual::Equal.
   * Stable across processes except for values compared by identity (functions, unbound free
   * variables, unique instances).
   */
  static uint64_t Hash(const Any& value, bool map_free_vars = false,
                       bool skip_tensor_content = false) {
    static const Function hash = Function::GetGlobalRequired("ffi.StructuralHash");
    return static_cast<uint64_t>(hash(value, map_free_vars, skip_tensor_content).cast<int64_t>());
  }

  /*! \brief Hash(value) with the default options. */
  uint64_t operator()(const Any& value) const { return Hash(value); }
};

namespace type_attr {
/*!
 * \brief A type's own structural hash: `(obj, init_hash, hash) -> int64`, where
 * `hash(part, init, def_region_kind)` combines a part's hash into `init`.
 */
inline constexpr reflection::AttrKey<TypedFunction<int64_t(
    const Object*, int64_t, const TypedFunction<int64_t(AnyView, int64_t, int)>&)>>
    kSHash{"__s_hash__"};
}  // namespace type_attr

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_STRUCTURAL_HASH_H_
