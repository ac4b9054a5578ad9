// Structural visiting: the visitor engines behind the globals ffi.StructuralWalk and
// ffi.StructuralVisit, the visitor's method globals, the containers' `__s_visit__` hooks, and the
// type ffi.VisitInterrupt (with its constructor global).
//
// The rules (extra/structural_visit.h has the visitor itself):
// - Parts: an array's or list's elements; a map's or dict's values; a reflected object's fields in
//   order, leaving out those flagged SEqHashIgnore, each in the def region its flags ask for (a
//   pattern region covers everything under it; a free variable's own fields are uses, walked
//   outside a simple region). A type may register its own `__s_visit__` hook. Strings, bytes,
//   shapes, tensors, functions, errors and Python objects have no parts. None is never visited.
// - Walk: each value goes to the first matching entry, plain entries before region-aware ones
//   (which also receive the def region). Pre-order calls a value's callback before its parts,
//   post-order after them. A callback returns None or WalkResult.ADVANCE (0) to go on,
//   WalkResult.SKIP (1) to leave out the value's parts (pre-order), or a VisitInterrupt, which ends
//   the walk and is what the global returns (otherwise None).
// - Visit: the first matching entry's callback receives (value, visitor) and owns the descent into
//   the value (visitor.visit / visitor.default_visit); a value no entry matches is descended into
//   by default.
// - Every occurrence of a shared part is visited (no memory across branches); an object met again
//   inside itself (a cycle) is visited but not descended into again.
// - An Error leaving a value (a callback's, or a step's) has that value, when it is an object,
//   appended to the error's VisitErrorContext (extra/visit_error_context.h): innermost first.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/structural_visit.h>
#include <ffi/extra/visit_error_context.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>

#include <unordered_set>
#include <vector>

#include "stack_guard.h"
#include "structural.h"
#include "structural_callbacks.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {
namespace {

/*!
 * \brief A visitor whose dispatch table calls `Derived::Step(value)` (which throws on failure)
 * and which descends into each object at most once on the current path.
 */
template <typename Derived>
class EngineBase : public StructuralVisitorObj {
 public:
  EngineBase() : StructuralVisitorObj(&kTable) {}

 protected:
  /*! \brief The default descent into `v`, unless `v` is an object already being descended into. */
  Optional<VisitInterrupt> Descend(const AnyView& v) {
    if (v.type_index() < kTVMFFIStaticObjectBegin) return DefaultVisit(v);
    CheckStackDepth("ffi.StructuralVisit");
    OpenScope<decltype(open_)> scope(&open_, v.raw()->v_obj);
    if (!scope.entered()) return std::nullopt;
    return DefaultVisit(v);
  }

  /*! \brief This visitor as a reference, to hand to callbacks. */
  StructuralVisitor Self() {
    return ffi::detail::ObjectUnsafe::RefFromBorrowedHeader<StructuralVisitor>(
        ffi::detail::ObjectUnsafe::Header(this));
  }

 private:
  static TVMFFIAny Dispatch(StructuralVisitorObj* self, AnyView value) noexcept {
    TVMFFIAny result =
        ffi::detail::VisitResultToRaw(ffi::detail::CatchAsExpected<Optional<VisitInterrupt>>([&]() {
          return Expected<Optional<VisitInterrupt>>(static_cast<Derived*>(self)->Step(value));
        }));
    // An error leaving a value names it in the error's visit context (innermost first).
    if (FFI_UNLIKELY(result.type_index == kTVMFFIError)) {
      ffi::detail::UpdateVisitErrorContext(result, value);
    }
    return result;
  }

  static constexpr StructuralVisitorVTable kTable{&EngineBase::Dispatch};
  std::unordered_set<const void*> open_;
};

/*! \brief The engine of ffi.StructuralWalk: typed callbacks before or after each value's parts. */
class WalkEngine : public EngineBase<WalkEngine> {
 public:
  WalkEngine(std::vector<CallbackEntry> entries, bool pre_order)
      : entries_(std::move(entries)), pre_order_(pre_order) {}

  Optional<VisitInterrupt> Step(const AnyView& v) {
    if (v.type_index() == kTVMFFINone) return std::nullopt;
    const CallbackEntry* entry = FindEntry(entries_, v.type_index());
    if (pre_order_ && entry != nullptr) {
      Any action = Call(*entry, v);
      if (action.type_index() == kTVMFFIVisitInterrupt) return action.cast<VisitInterrupt>();
      if (action.type_index() == kTVMFFIInt) return std::nullopt;  // SKIP
    }
    if (Optional<VisitInterrupt> found = Descend(v)) return found;
    if (!pre_order_ && entry != nullptr) {
      Any action = Call(*entry, v);
      if (action.type_index() == kTVMFFIVisitInterrupt) return action.cast<VisitInterrupt>();
    }
    return std::nullopt;
  }

 private:
  /*! \brief Calls the entry's callback on `v`: None to go on, an int (SKIP) or the interrupt. */
  Any Call(const CallbackEntry& entry, const AnyView& v) {
    Any out =
        entry.flag ? entry.callback(v, static_cast<int64_t>(def_region_kind())) : entry.callback(v);
    switch (out.type_index()) {
      case kTVMFFINone:
        return Any();
      case kTVMFFIVisitInterrupt:
        return out;
      case kTVMFFIInt:
      case kTVMFFIBool: {
        int64_t code = out.cast<int64_t>();
        if (code == static_cast<int64_t>(WalkResult::kAdvance)) return Any();
        if (code == static_cast<int64_t>(WalkResult::kSkip)) return out;
        FFI_THROW(ValueError) << "ffi.StructuralWalk: a callback returned " << code
                              << "; a WalkResult is 0 (ADVANCE) or 1 (SKIP)";
      }
      default:
        FFI_THROW(TypeError) << "ffi.StructuralWalk: a callback returns None, a WalkResult or a "
                             << "VisitInterrupt, not `" << TypeKey(out.type_index()) << "`";
    }
  }

  std::vector<CallbackEntry> entries_;
  bool pre_order_;
};

/*! \brief The engine of ffi.StructuralVisit: a matching callback owns the descent. */
class VisitEngine : public EngineBase<VisitEngine> {
 public:
  explicit VisitEngine(std::vector<CallbackEntry> entries) : entries_(std::move(entries)) {}

  Optional<VisitInterrupt> Step(const AnyView& v) {
    if (v.type_index() == kTVMFFINone) return std::nullopt;
    const CallbackEntry* entry = FindEntry(entries_, v.type_index());
    if (entry == nullptr) return Descend(v);
    Any out = entry->callback(v, Self());
    if (out.type_index() == kTVMFFINone) return std::nullopt;
    if (out.type_index() == kTVMFFIVisitInterrupt) return out.cast<VisitInterrupt>();
    FFI_THROW(TypeError) << "ffi.StructuralVisit: a callback returns None or a VisitInterrupt, "
                         << "not `" << TypeKey(out.type_index()) << "`";
  }

 private:
  std::vector<CallbackEntry> entries_;
};

/*! \brief `__s_visit__` of arrays and lists: their elements, in order. */
template <typename Seq>
TVMFFIAny VisitSequence(StructuralVisitorObj* visitor, AnyView value) noexcept {
  return ffi::detail::VisitResultToRaw(
      ffi::detail::CatchAsExpected<Optional<VisitInterrupt>>([&]() {
        Seq items = value.cast<Seq>();
        // By index: a callback may change a list while it is visited.
        for (size_t i = 0; i < items.size(); ++i) {
          Any item = items[i];
          if (Optional<VisitInterrupt> found = visitor->Visit(item)) {
            return Expected<Optional<VisitInterrupt>>(std::move(found));
          }
        }
        return Expected<Optional<VisitInterrupt>>(Optional<VisitInterrupt>());
      }));
}

/*! \brief `__s_visit__` of maps and dicts: their values, in iteration order. */
template <typename M>
TVMFFIAny VisitMapping(StructuralVisitorObj* visitor, AnyView value) noexcept {
  return ffi::detail::VisitResultToRaw(
      ffi::detail::CatchAsExpected<Optional<VisitInterrupt>>([&]() {
        // A snapshot: a callback may change a dict while it is visited.
        std::vector<Any> values;
        for (const auto& kv : value.cast<M>()) values.push_back(kv.second);
        for (const Any& item : values) {
          if (Optional<VisitInterrupt> found = visitor->Visit(item)) {
            return Expected<Optional<VisitInterrupt>>(std::move(found));
          }
        }
        return Expected<Optional<VisitInterrupt>>(Optional<VisitInterrupt>());
      }));
}

Optional<VisitInterrupt> StructuralWalk(AnyView root, const Array<Any>& entries,
                                        const Array<Any>& entries_with_def_region_kind,
                                        int64_t order) {
  if (order != static_cast<int64_t>(WalkOrder::kPreOrder) &&
      order != static_cast<int64_t>(WalkOrder::kPostOrder)) {
    FFI_THROW(ValueError) << "ffi.StructuralWalk: order is 0 (pre-order) or 1 (post-order), got "
                          << order;
  }
  std::vector<CallbackEntry> parsed;
  ParseCallbackEntries("ffi.StructuralWalk", entries, false, false, &parsed);
  ParseCallbackEntries("ffi.StructuralWalk", entries_with_def_region_kind, false, true, &parsed);
  StructuralVisitor visitor(make_object<WalkEngine>(
      std::move(parsed), order == static_cast<int64_t>(WalkOrder::kPreOrder)));
  return visitor->Visit(root);
}

Optional<VisitInterrupt> StructuralVisit(AnyView root, const Array<Any>& entries) {
  std::vector<CallbackEntry> parsed;
  ParseCallbackEntries("ffi.StructuralVisit", entries, false, false, &parsed);
  StructuralVisitor visitor(make_object<VisitEngine>(std::move(parsed)));
  return visitor->Visit(root);
}

FFI_STATIC_INIT_BLOCK() {
  namespace refl = reflection;
  refl::ObjectDef<VisitInterruptObj>(
      "The signal that stops a structural traversal, with a payload.")
      .def(refl::init<Any>(), "An interrupt carrying a payload.")
      .def_ro("value", &VisitInterruptObj::value, "The payload handed back to the caller.");
  StructuralVisitorObj::RuntimeTypeIndex();
  refl::GlobalDef()
      .def(
          "ffi.VisitInterrupt", [](Any value) { return VisitInterrupt(std::move(value)); },
          "VisitInterrupt(value): an interrupt carrying `value`.")
      .def("ffi.StructuralWalk", &StructuralWalk,
           "StructuralWalk(root, entries, entries_with_def_region_kind, order): calls the first "
           "matching (type_index, callback) entry on every part of `root` (pre-order 0, "
           "post-order 1); returns the VisitInterrupt a callback returned, or None.")
      .def("ffi.StructuralVisit", &StructuralVisit,
           "StructuralVisit(root, entries): the first matching (type_index, callback) entry "
           "receives (value, visitor) and owns the descent; returns the VisitInterrupt that "
           "stopped the visit, or None.")
      .def(
          "ffi.StructuralVisitorVisit",
          [](const StructuralVisitor& visitor, AnyView value) { return visitor->Visit(value); },
          "StructuralVisitorVisit(visitor, value): visits `value` with the visitor.")
      .def(
          "ffi.StructuralVisitorDefaultVisit",
          [](const StructuralVisitor& visitor, AnyView value) {
            return visitor->DefaultVisit(value);
          },
          "StructuralVisitorDefaultVisit(visitor, value): descends into the parts of `value`.")
      .def(
          "ffi.StructuralVisitorDefRegionKind",
          [](const StructuralVisitor& visitor) {
            return static_cast<int64_t>(visitor->def_region_kind());
          },
          "StructuralVisitorDefRegionKind(visitor): the def region the traversal is in.")
      .def(
          "ffi.StructuralVisitorWithDefRegionKind",
          [](const StructuralVisitor& visitor, int64_t kind, const Function& callback) {
            return visitor->WithDefRegionKind(DefRegionFromInt(kind), [&] { return callback(); });
          },
          "StructuralVisitorWithDefRegionKind(visitor, kind, callback): calls callback() in "
          "def region `kind`.");
  refl::EnsureTypeAttrColumn(type_attr::kStructuralVisit);
  auto hook = [](FStructuralVisitABI fn) { return FStructuralVisit::FromABI(fn); };
  refl::TypeAttrDef<ArrayObj>().attr(type_attr::kStructuralVisit, hook(&VisitSequence<Array<Any>>));
  refl::TypeAttrDef<ListObj>().attr(type_attr::kStructuralVisit, hook(&VisitSequence<List<Any>>));
  refl::TypeAttrDef<MapObj>().attr(type_attr::kStructuralVisit, hook(&VisitMapping<Map<Any, Any>>));
  refl::TypeAttrDef<DictObj>().attr(type_attr::kStructuralVisit,
                                    hook(&VisitMapping<Dict<Any, Any>>));
}

}  // namespace
}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
