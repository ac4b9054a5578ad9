/*
 * ffi/extra/structural_walk.h - VisitInterrupt: the signal a structural walk callback returns to
 * stop the walk, carrying a payload back to the caller.
 *
 * The runtime's global ffi.StructuralWalk(root, entries, entries_with_def_region_kind, order)
 * walks a value as structural equality sees it (containers' elements, map keys and values,
 * reflected fields not flagged SEqHashIgnore) and calls the first callback whose type matches
 * each part. A callback returns None (or kWalkAdvance) to go on, kWalkSkip to leave out the
 * children of the part (pre-order), or a VisitInterrupt, which ends the walk and is returned.
 * The rules are in docs/structural_walk.md.
 */
#ifndef FFI_EXTRA_STRUCTURAL_WALK_H_
#define FFI_EXTRA_STRUCTURAL_WALK_H_

#include <cstdint>
#include <utility>

#include "../any.h"
#include "../object.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Where a walk calls a part's callback: before or after walking its children. */
enum class WalkOrder : int32_t { kPreOrder = 0, kPostOrder = 1 };

/*! \brief What a walk callback returns to go on, or to leave out the part's children. */
enum class WalkResult : int32_t { kAdvance = 0, kSkip = 1 };

/*! \brief The object behind VisitInterrupt (type index kTVMFFIVisitInterrupt). */
class VisitInterruptObj : public Object {
 public:
  /*! \brief What the walk hands back to its caller (None when there is nothing to say). */
  Any value;

  VisitInterruptObj() = default;
  /*! \brief An interrupt carrying `value`. */
  explicit VisitInterruptObj(Any value) : value(std::move(value)) {}

  /// \cond Doxygen_Suppress
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.VisitInterrupt", VisitInterruptObj, Object,
                                 kTVMFFIVisitInterrupt);
  /// \endcond
};

/*! \brief Reference to a VisitInterruptObj; never null. */
class VisitInterrupt : public ObjectRef {
 public:
  /*! \brief An interrupt without a payload. */
  VisitInterrupt() : ObjectRef(make_object<VisitInterruptObj>()) {}
  /*! \brief An interrupt carrying `value`. */
  explicit VisitInterrupt(Any value)
      : ObjectRef(make_object<VisitInterruptObj>(std::move(value))) {}

  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(VisitInterrupt, ObjectRef, VisitInterruptObj);
  /// \endcond
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_STRUCTURAL_WALK_H_
