/*
 * ffi/extra/visit_error_context.h - VisitErrorContext: where in a tree of objects a recursive
 * visit was when it failed, carried by the Error itself (its extra context, the ABI's
 * TVMFFIErrorCell::extra_context), so that whoever catches it can say where the problem is.
 *
 * A visitor brackets each level with FFI_VISIT_BEGIN() / FFI_VISIT_END(node): when an Error
 * passes through a level on its way out, that level's node is appended to the error's context.
 * The context therefore lists the nodes innermost first: the failing node, its parent, ...,
 * the root. FFI_VISIT_THROW(kind, node) throws an error whose context starts at `node`.
 *
 *   void Check(const ObjectRef& node) {
 *     FFI_VISIT_BEGIN();
 *     if (IsBad(node)) FFI_THROW(ValueError) << "bad node";
 *     for (const ObjectRef& child : ChildrenOf(node)) Check(child);
 *     FFI_VISIT_END(node);
 *   }
 *
 *   try {
 *     Check(root);
 *   } catch (const ffi::Error& err) {
 *     if (auto context = ffi::VisitErrorContext::TryGetFromError(err)) {
 *       for (auto path : ffi::VisitErrorContext::FindAccessPaths(root, *context)) ...  // .body[2]
 *     }
 *   }
 *
 * The runtime's structural walks and mutations (ffi.StructuralWalk, ffi.StructuralMap, ...) add
 * the same record at each value an Error passes. The type ("ffi.VisitErrorContext") and the global
 * ffi.VisitErrorContext.FindAccessPaths are the runtime's, with TVM-FFI's names and object layout,
 * so contexts cross between libraries built with either header set. The TVM_FFI_VISIT_* spellings
 * of the macros are defined here as well.
 */
#ifndef FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
#define FFI_EXTRA_VISIT_ERROR_CONTEXT_H_

#include <optional>
#include <utility>

#include "../any.h"
#include "../container/array.h"
#include "../container/list.h"
#include "../error.h"
#include "../expected.h"
#include "../function.h"
#include "../object.h"
#include "../optional.h"
#include "../reflection/access_path.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The object behind a VisitErrorContext (type key "ffi.VisitErrorContext"). */
class VisitErrorContextObj : public Object {
 public:
  /*!
   * \brief The nodes the failed visit was in, innermost first (the failing node, then its
   * enclosing nodes up to the root). Best effort: only the levels that record themselves appear.
   */
  List<ObjectRef> reverse_visit_pattern;
  /*! \brief The error's extra context from before this context replaced it, if it had one. */
  Optional<ObjectRef> prev_error_context;

  /// \cond Doxygen_Suppress
  static constexpr bool _type_mutable = true;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  FFI_DECLARE_OBJECT_INFO_FINAL("ffi.VisitErrorContext", VisitErrorContextObj, Object);
  /// \endcond
};

/*!
 * \brief Where a recursive visit was when it failed, attached to the Error as its extra context
 * (see the file comment); never null.
 */
class VisitErrorContext : public ObjectRef {
 public:
  /*!
   * \brief The visit context `err` carries, or None when its extra context is absent or is
   * something else.
   * \param err The error to look at.
   */
  static Optional<VisitErrorContext> TryGetFromError(const Error& err) {
    std::optional<ObjectRef> extra = err.extra_context();
    if (!extra || extra->as<VisitErrorContextObj>() == nullptr) return std::nullopt;
    return VisitErrorContext(
        detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(std::move(*extra)));
  }

  /*!
   * \brief The paths from `root` to the places the context's nodes describe.
   *
   * A path matches when, walking down from `root` through reflected fields, array and list
   * elements and map and dict values, it passes the context's nodes in order, outermost first;
   * nodes between them need not be recorded (a sparse record still matches), undefined entries are
   * ignored and a run of the same node counts once. A node reachable along several paths (a
   * shared subtree) gives one path for each.
   *
   * \param root The value the failed visit started from.
   * \param visit_context The context the error carried.
   * \param allow_prefix_match Also report, where a path passed some of the nodes in order but
   *        nothing was found below, the path to the last node it passed (never the root alone).
   * \return The matching paths (empty when none matches).
   */
  static Array<reflection::AccessPath> FindAccessPaths(const ObjectRef& root,
                                                       const VisitErrorContext& visit_context,
                                                       bool allow_prefix_match = false) {
    static const Function find =
        Function::GetGlobalRequired("ffi.VisitErrorContext.FindAccessPaths");
    return find(root, visit_context, allow_prefix_match).cast<Array<reflection::AccessPath>>();
  }

  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(VisitErrorContext, ObjectRef, VisitErrorContextObj);
  /// \endcond
};

namespace detail {
/*! \brief A new visit context whose only node is `node`. */
FFI_COLD_NOINLINE inline VisitErrorContext MakeVisitErrorContext(const ObjectRef& node) {
  ObjectPtr<VisitErrorContextObj> context = make_object<VisitErrorContextObj>();
  context->reverse_visit_pattern.push_back(node);
  return VisitErrorContext(std::move(context));
}

/*!
 * \brief Appends `node` to the visit context of `err`, first giving `err` a new context (which
 * keeps the extra context it replaces as prev_error_context) when it has none. What
 * FFI_VISIT_END does; the calling convention may change, so users write the macros instead.
 *
 * The error object is changed in place: this runs while the error is thrown, when only the
 * unwinding thread holds it.
 */
FFI_COLD_NOINLINE inline void UpdateVisitErrorContext(Error& err,  // NOLINT(runtime/references)
                                                      const ObjectRef& node) {
  std::optional<ObjectRef> extra = err.extra_context();
  if (extra) {
    if (VisitErrorContextObj* context =
            const_cast<VisitErrorContextObj*>(extra->as<VisitErrorContextObj>())) {
      context->reverse_visit_pattern.push_back(node);
      return;
    }
  }
  ObjectPtr<VisitErrorContextObj> context = make_object<VisitErrorContextObj>();
  context->reverse_visit_pattern.push_back(node);
  if (extra) context->prev_error_context = *extra;
  TVMFFIErrorCell* cell = const_cast<TVMFFIErrorCell*>(err.cell());
  TVMFFIObjectHandle replaced = cell->extra_context;
  cell->extra_context = ObjectUnsafe::MoveToHeader(VisitErrorContext(std::move(context)));
  if (replaced != nullptr) ObjectUnsafe::DecRef(replaced);
}

/*!
 * \brief UpdateVisitErrorContext for a visited value of any kind: a value that is not an object
 * (a number, a string) has no identity to record and is skipped. Never throws: when recording
 * fails (out of memory) the error goes on without this frame.
 */
FFI_COLD_NOINLINE inline void UpdateVisitErrorContext(Error& err,  // NOLINT(runtime/references)
                                                      AnyView node) noexcept {
  if (node.type_index() < kTVMFFIStaticObjectBegin) return;
  try {
    UpdateVisitErrorContext(err, ObjectUnsafe::RefFromBorrowedHeader<ObjectRef>(node.raw()->v_obj));
  } catch (...) {
  }
}

/*!
 * \brief UpdateVisitErrorContext for a raw failed result (`result` holds an Error): what the
 * structural visit and mutate engines call when a step fails at `node`. The Error is shared, so
 * the result carries the change.
 */
FFI_COLD_NOINLINE inline void UpdateVisitErrorContext(const TVMFFIAny& result,
                                                      AnyView node) noexcept {
  if (result.type_index != kTVMFFIError || node.type_index() < kTVMFFIStaticObjectBegin) return;
  Error err(ObjectPtr<Object>::Borrow(ObjectUnsafe::FromHeader(result.v_obj)));
  UpdateVisitErrorContext(err, node);
}

/*!
 * \brief The left operand of `&` in FFI_VISIT_THROW: throws what the ErrorBuilder collected with
 * a new visit context naming `node` as its extra context.
 */
struct VisitErrorThrower {
  /*! \brief The node the error is about. */
  ObjectRef node;
  [[noreturn]] friend void operator&(const VisitErrorThrower& thrower, ErrorBuilder& builder) {
    builder.ThrowWithExtraContext(MakeVisitErrorContext(thrower.node));
  }
  [[noreturn]] friend void operator&(const VisitErrorThrower& thrower, ErrorBuilder&& builder) {
    builder.ThrowWithExtraContext(MakeVisitErrorContext(thrower.node));
  }
};
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Opens one level of a recursive visit; FFI_VISIT_END(node) closes it (a missing END is a
 * compile error: an unclosed try block).
 */
#define FFI_VISIT_BEGIN() try {
/*!
 * \brief Closes FFI_VISIT_BEGIN(): an ffi::Error leaving the level gets `node` (the level's
 * ObjectRef, or an Any/AnyView, recorded when it holds an object) appended to its visit context
 * and is rethrown.
 */
#define FFI_VISIT_END(node)                                                \
  }                                                                        \
  catch (::tvm::ffi::Error & ffi_visit_error_) {                           \
    ::tvm::ffi::detail::UpdateVisitErrorContext(ffi_visit_error_, (node)); \
    throw;                                                                 \
  }
/*!
 * \brief As FFI_VISIT_END, for a function returning an Expected: the error, with `node` recorded,
 * is returned instead of rethrown.
 */
#define FFI_VISIT_END_RETURN_EXPECTED(node)                                \
  }                                                                        \
  catch (::tvm::ffi::Error & ffi_visit_error_) {                           \
    ::tvm::ffi::detail::UpdateVisitErrorContext(ffi_visit_error_, (node)); \
    return ::tvm::ffi::Unexpected(ffi_visit_error_);                       \
  }
/*!
 * \brief Throws an error of `ErrorKind` whose visit context starts at `node` (an ObjectRef), with
 * a streamed message as FFI_THROW: `FFI_VISIT_THROW(ValueError, pair->lhs) << "bad lhs";`. For
 * pointing at a part of the current node (enclosing FFI_VISIT_END levels append theirs).
 */
#define FFI_VISIT_THROW(ErrorKind, node)          \
  ::tvm::ffi::detail::VisitErrorThrower{(node)} & \
      ::tvm::ffi::detail::ErrorBuilder(           \
          #ErrorKind, ::tvm::ffi::detail::BacktraceHere(__FILE__, __LINE__, FFI_FUNC_NAME))

/*! \brief TVM-FFI's spellings of the macros above. */
#define TVM_FFI_VISIT_BEGIN() FFI_VISIT_BEGIN()
#define TVM_FFI_VISIT_END(node) FFI_VISIT_END(node)
#define TVM_FFI_VISIT_END_RETURN_EXPECTED(node) FFI_VISIT_END_RETURN_EXPECTED(node)
#define TVM_FFI_VISIT_THROW(ErrorKind, node) FFI_VISIT_THROW(ErrorKind, node)

#endif  // FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
