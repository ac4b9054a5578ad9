/*
 * ffi/reflection/access_path.h - AccessPath: where a value sits inside another, as the steps
 * (attribute, array index, map key) that reach it from a root.
 *
 * Structural equality reports its first mismatch as a pair of paths (one into each side), and
 * diagnostics print them. A path is an immutable linked list from its last step back to the root,
 * so extending one shares its prefix. Both classes are registered by the runtime (type keys
 * "ffi.reflection.AccessStep" / "ffi.reflection.AccessPath") with the layout TVM-FFI declares, so
 * paths cross between libraries built with either header set.
 */
#ifndef FFI_REFLECTION_ACCESS_PATH_H_
#define FFI_REFLECTION_ACCESS_PATH_H_

#include <cstdint>
#include <utility>

#include "../any.h"
#include "../any_hash.h"
#include "../container/array.h"
#include "../container/tuple.h"
#include "../object.h"
#include "../optional.h"
#include "../string.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {

/*! \brief How one step goes from a value to a part of it. */
enum class AccessKind : int32_t {
  /*! \brief The field named by the step's key (a String). */
  kAttr = 0,
  /*! \brief The array or list element at the step's key (an int). */
  kArrayItem = 1,
  /*! \brief The map or dict value under the step's key. */
  kMapItem = 2,
  /*! \brief A field the other side has and this side lacks (for mismatch reports). */
  kAttrMissing = 3,
  /*! \brief An element past this side's end that the other side has. */
  kArrayItemMissing = 4,
  /*! \brief A key this side lacks that the other side has. */
  kMapItemMissing = 5,
};

/*! \brief One step of a path: its kind and its key (field name, index or map key). */
class AccessStepObj : public Object {
 public:
  /*! \brief What the step accesses. */
  AccessKind kind = AccessKind::kAttr;
  /*! \brief The field name, index or map key. */
  Any key;

  AccessStepObj() = default;
  /*! \brief A step of `kind` with `key`. */
  AccessStepObj(AccessKind kind, Any key) : kind(kind), key(std::move(key)) {}

  /*! \brief Same kind and the same key (keys compare as map keys do). */
  bool StepEqual(const AccessStepObj* other) const {
    return kind == other->kind && AnyEqual()(key, other->key);
  }

  /// \cond Doxygen_Suppress
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessStep", AccessStepObj, Object);
  /// \endcond
};

/*! \brief Reference to an AccessStepObj; never null. */
class AccessStep : public ObjectRef {
 public:
  /*! \brief A step of `kind` with `key`. */
  AccessStep(AccessKind kind, Any key)
      : ObjectRef(make_object<AccessStepObj>(kind, std::move(key))) {}
  /*! \brief The field `name`. */
  static AccessStep Attr(String name) { return AccessStep(AccessKind::kAttr, std::move(name)); }
  /*! \brief The field `name`, missing on this side. */
  static AccessStep AttrMissing(String name) {
    return AccessStep(AccessKind::kAttrMissing, std::move(name));
  }
  /*! \brief The element at `index`. */
  static AccessStep ArrayItem(int64_t index) { return AccessStep(AccessKind::kArrayItem, index); }
  /*! \brief The element at `index`, past this side's end. */
  static AccessStep ArrayItemMissing(int64_t index) {
    return AccessStep(AccessKind::kArrayItemMissing, index);
  }
  /*! \brief The value under `key`. */
  static AccessStep MapItem(Any key) { return AccessStep(AccessKind::kMapItem, std::move(key)); }
  /*! \brief The value under `key`, absent on this side (None when the key is unknown). */
  static AccessStep MapItemMissing(Any key = nullptr) {
    return AccessStep(AccessKind::kMapItemMissing, std::move(key));
  }

  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(AccessStep, ObjectRef, AccessStepObj);
  /// \endcond
};

class AccessPath;

/*!
 * \brief A path: its parent path and its last step, or neither for the root. `parent` is typed
 * ObjectRef (not AccessPath) because the class refers to itself; it always holds a path.
 */
class AccessPathObj : public Object {
 public:
  /*! \brief The path without its last step; None for the root. */
  Optional<ObjectRef> parent;
  /*! \brief The last step; None for the root. */
  Optional<AccessStep> step;
  /*! \brief The number of steps (0 for the root). */
  int32_t depth = 0;

  AccessPathObj() = default;
  /*! \brief A path from its parts. */
  AccessPathObj(Optional<ObjectRef> parent, Optional<AccessStep> step, int32_t depth)
      : parent(std::move(parent)), step(std::move(step)), depth(depth) {}

  /*! \brief The parent path; None for the root. */
  inline Optional<AccessPath> GetParent() const;
  /*! \brief This path followed by `step`. */
  inline AccessPath Extend(AccessStep step) const;
  /*! \brief This path followed by the field `name`. */
  inline AccessPath Attr(String name) const;
  /*! \brief This path followed by the missing field `name`. */
  inline AccessPath AttrMissing(String name) const;
  /*! \brief This path followed by the element at `index`. */
  inline AccessPath ArrayItem(int64_t index) const;
  /*! \brief This path followed by the missing element at `index`. */
  inline AccessPath ArrayItemMissing(int64_t index) const;
  /*! \brief This path followed by the value under `key`. */
  inline AccessPath MapItem(Any key) const;
  /*! \brief This path followed by the missing value under `key`. */
  inline AccessPath MapItemMissing(Any key) const;
  /*! \brief The steps from the root, first step first. */
  inline Array<AccessStep> ToSteps() const;
  /*! \brief The same steps as `other`. */
  inline bool PathEqual(const AccessPath& other) const;
  /*! \brief `other` starts with this path's steps (a path is a prefix of itself). */
  inline bool IsPrefixOf(const AccessPath& other) const;

  /// \cond Doxygen_Suppress
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessPath", AccessPathObj, Object);
  /// \endcond

 private:
  /*! \brief The ancestor of `path` `levels` steps up. */
  static const AccessPathObj* Up(const AccessPathObj* path, int32_t levels) {
    for (; levels > 0; --levels) {
      path = static_cast<const AccessPathObj*>(path->parent.value().get());
    }
    return path;
  }
  /*! \brief Paths of equal depth with the same steps. */
  static bool SameSteps(const AccessPathObj* a, const AccessPathObj* b) {
    for (; a != b; a = Up(a, 1), b = Up(b, 1)) {
      if (a->depth == 0) return b->depth == 0;
      if (!a->step.value()->StepEqual(b->step.value().get())) return false;
    }
    return true;
  }
  friend class AccessPath;
};

/*! \brief Reference to an AccessPathObj; never null. `AccessPath::Root()` starts a path. */
class AccessPath : public ObjectRef {
 public:
  /*! \brief The empty path: the root value itself. */
  static AccessPath Root() { return AccessPath(make_object<AccessPathObj>(nullptr, nullptr, 0)); }
  /*! \brief The path of `steps`, from the root. */
  static AccessPath FromSteps(const Array<AccessStep>& steps) {
    AccessPath path = Root();
    for (const AccessStep& step : steps) path = path->Extend(step);
    return path;
  }

  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(AccessPath, ObjectRef, AccessPathObj);
  /// \endcond
};

/*! \brief The two paths of a structural mismatch: into the left and into the right value. */
using AccessPathPair = Tuple<AccessPath, AccessPath>;

inline Optional<AccessPath> AccessPathObj::GetParent() const {
  if (!parent.has_value()) return std::nullopt;
  return AccessPath(
      ::tvm::ffi::detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(parent.value()));
}

inline AccessPath AccessPathObj::Extend(AccessStep step) const {
  ObjectRef self(::tvm::ffi::detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(
      const_cast<AccessPathObj*>(this)));
  return AccessPath(make_object<AccessPathObj>(std::move(self), std::move(step), depth + 1));
}
inline AccessPath AccessPathObj::Attr(String name) const {
  return Extend(AccessStep::Attr(std::move(name)));
}
inline AccessPath AccessPathObj::AttrMissing(String name) const {
  return Extend(AccessStep::AttrMissing(std::move(name)));
}
inline AccessPath AccessPathObj::ArrayItem(int64_t index) const {
  return Extend(AccessStep::ArrayItem(index));
}
inline AccessPath AccessPathObj::ArrayItemMissing(int64_t index) const {
  return Extend(AccessStep::ArrayItemMissing(index));
}
inline AccessPath AccessPathObj::MapItem(Any key) const {
  return Extend(AccessStep::MapItem(std::move(key)));
}
inline AccessPath AccessPathObj::MapItemMissing(Any key) const {
  return Extend(AccessStep::MapItemMissing(std::move(key)));
}

inline Array<AccessStep> AccessPathObj::ToSteps() const {
  if (depth == 0) return Array<AccessStep>();
  Array<AccessStep> steps = Up(this, 1)->ToSteps();  // a path's depth bounds the recursion
  steps.push_back(step.value());
  return steps;
}

inline bool AccessPathObj::PathEqual(const AccessPath& other) const {
  return depth == other->depth && SameSteps(this, other.get());
}

inline bool AccessPathObj::IsPrefixOf(const AccessPath& other) const {
  return depth <= other->depth && SameSteps(this, Up(other.get(), other->depth - depth));
}

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_ACCESS_PATH_H_
