/*
 * ffi/extra/structural_key.h - StructuralKey: a value wrapped so that maps (ffi::Map, std
 * containers, Python dicts) find it by structure instead of identity.
 *
 * The key caches its structural hash; two keys are equal when their values are structurally
 * equal. The runtime registers the type ("ffi.StructuralKey", fields `key` and `hash_i64`) with
 * the `__any_hash__` / `__any_equal__` attributes that ffi::Map consults.
 */
#ifndef FFI_EXTRA_STRUCTURAL_KEY_H_
#define FFI_EXTRA_STRUCTURAL_KEY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "../any.h"
#include "../object.h"
#include "structural_equal.h"
#include "structural_hash.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief A value and its structural hash. */
class StructuralKeyObj : public Object {
 public:
  /*! \brief The value. */
  Any key;
  /*! \brief StructuralHash::Hash(key), as int64. */
  int64_t hash_i64 = 0;

  StructuralKeyObj() = default;
  /*! \brief Wraps `key`, hashing it. */
  explicit StructuralKeyObj(Any key)
      : key(std::move(key)), hash_i64(static_cast<int64_t>(StructuralHash::Hash(this->key))) {}

  /// \cond Doxygen_Suppress
  FFI_DECLARE_OBJECT_INFO_FINAL("ffi.StructuralKey", StructuralKeyObj, Object);
  /// \endcond
};

/*! \brief Reference to a StructuralKeyObj; never null. */
class StructuralKey : public ObjectRef {
 public:
  /*! \brief Wraps `key`. */
  explicit StructuralKey(Any key) : ObjectRef(make_object<StructuralKeyObj>(std::move(key))) {}

  /*! \brief The same key, or structurally equal values (hashes compared first). */
  bool operator==(const StructuralKey& other) const {
    if (same_as(other)) return true;
    return get()->hash_i64 == other->hash_i64 && StructuralEqual::Equal(get()->key, other->key);
  }
  /*! \brief !operator==. */
  bool operator!=(const StructuralKey& other) const { return !(*this == other); }

  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(StructuralKey, ObjectRef, StructuralKeyObj);
  /// \endcond
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*! \brief std::hash of a StructuralKey: its cached structural hash. */
template <>
struct std::hash<tvm::ffi::StructuralKey> {
  size_t operator()(const tvm::ffi::StructuralKey& key) const {
    return static_cast<size_t>(static_cast<uint64_t>(key->hash_i64));
  }
};

#endif  // FFI_EXTRA_STRUCTURAL_KEY_H_
