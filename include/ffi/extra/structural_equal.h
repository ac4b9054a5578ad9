/*
 * ffi/extra/structural_equal.h - StructuralEqual: whether two values have the same structure,
 * with free variables compared up to renaming (alpha-equivalence).
 *
 * The runtime implements it (the global ffi.StructuralEqual; the rules are in docs/structural.md):
 * containers by content, reflected objects by the structural kind their type declares
 * (`_type_s_eq_hash_kind`: tree, const-tree, DAG, free variable or unique instance) and the field
 * flags SEqHashIgnore / SEqHashDefPattern / SEqHashDefSimple. A type may take over with the
 * `__s_equal__` type attribute (type_attr::kSEqual).
 */
#ifndef FFI_EXTRA_STRUCTURAL_EQUAL_H_
#define FFI_EXTRA_STRUCTURAL_EQUAL_H_

#include "../any.h"
#include "../function.h"
#include "../optional.h"
#include "../reflection/access_path.h"
#include "../reflection/registry.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Structural equality of values; also a function object for containers. */
class StructuralEqual {
 public:
  /*!
   * \brief Whether `lhs` and `rhs` are structurally equal.
   * \param map_free_vars Free variables outside any def region may bind to each other (otherwise
   *        an unbound variable equals only itself).
   * \param skip_tensor_content Tensors compare by dtype, device and shape only (their content is
   *        compared otherwise, which needs host memory: ValueError for device tensors).
   * \throws TypeError for an object whose type declares no structural kind.
   */
  static bool Equal(const Any& lhs, const Any& rhs, bool map_free_vars = false,
                    bool skip_tensor_content = false) {
    static const Function equal = Function::GetGlobalRequired("ffi.StructuralEqual");
    return equal(lhs, rhs, map_free_vars, skip_tensor_content).cast<bool>();
  }

  /*!
   * \brief Where `lhs` and `rhs` first differ, as a path into each, or None when they are
   * structurally equal. Arguments and errors as Equal.
   */
  static Optional<reflection::AccessPathPair> GetFirstMismatch(const Any& lhs, const Any& rhs,
                                                               bool map_free_vars = false,
                                                               bool skip_tensor_content = false) {
    static const Function mismatch = Function::GetGlobalRequired("ffi.GetFirstStructuralMismatch");
    return mismatch(lhs, rhs, map_free_vars, skip_tensor_content)
        .cast<Optional<reflection::AccessPathPair>>();
  }

  /*! \brief Equal(lhs, rhs) with the default options. */
  bool operator()(const Any& lhs, const Any& rhs) const { return Equal(lhs, rhs); }
};

namespace type_attr {
/*!
 * \brief A type's own structural equality: `(lhs, rhs, eq) -> bool`, where
 * `eq(l, r, def_region_kind, field_name)` compares parts (def_region_kind a TVMFFIDefRegionKind,
 * field_name a string naming the part in mismatch paths, or None).
 */
inline constexpr reflection::AttrKey<TypedFunction<bool(
    const Object*, const Object*, const TypedFunction<bool(AnyView, AnyView, int, AnyView)>&)>>
    kSEqual{"__s_equal__"};
}  // namespace type_attr

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_STRUCTURAL_EQUAL_H_
