// Structural mutation: the mutator engines behind the globals ffi.StructuralMap and
// ffi.StructuralMutate, the mutator's method globals, and the containers' `__s_mutate__` /
// `__s_maybe_inplace_mutate__` hooks.
//
// The rules (extra/structural_mutate.h has the mutator itself):
// - Parts as in structural visiting: elements of arrays and lists, values of maps and dicts,
//   reflected fields not flagged SEqHashIgnore. A value whose parts do not change comes back as
//   itself; otherwise a copy with the new parts (an array, list, map or dict of the same kind; a
//   reflected object through its `__ffi_shallow_copy__`).
// - Free variables and DAG nodes are rewritten once per rewrite: the result is remembered in the
//   variable remap and reused at later occurrences. A free variable met outside any def region is
//   a use, rewritten only through the remap (its definition's rewrite).
// - Map: the first matching entry's callback replaces a value, after its parts were rewritten
//   (post-order, the default) or before (pre-order: the replacement's parts are then rewritten).
//   Plain entries come before region-aware ones, which also receive the def region.
// - Mutate: the first matching entry's callback receives (value, mutator[, inplace_mode]) and its
//   result is final; it recurses through mutator.mutate / mutator.default_mutate itself.
// - In-place: a root handed over by its only owner may be changed in place where its type allows
//   (lists and dicts change their elements in place); everything else is copy on write.
// - An object met again inside itself (a cycle) is kept as it is there, not descended into.
// - An Error leaving a value (a callback's, or a step's) has that value, when it is an object,
//   appended to the error's VisitErrorContext (extra/visit_error_context.h): innermost first.
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/structural_mutate.h>
#include <ffi/extra/visit_error_context.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>

#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "stack_guard.h"
#include "structural.h"
#include "structural_callbacks.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {
namespace {

using ffi::detail::SameValue;
using ffi::detail::UniquelyOwned;

/*!
 * \brief A mutator whose dispatch table calls `Derived::Step(value, mode)` (which throws on
 * failure), with the variable remap kept by object identity and a guard against cycles.
 */
template <typename Derived>
class EngineBase : public StructuralMutatorObj {
 public:
  EngineBase() : StructuralMutatorObj(&kTable) {}

 protected:
  /*! \brief The default rebuild of `v`, unless `v` is an object already being rebuilt. */
  Any Descend(const AnyView& v, InplaceMode mode) {
    if (v.type_index() < kTVMFFIStaticObjectBegin) return DefaultMutateExpected(v, mode).value();
    CheckStackDepth("ffi.StructuralMutate");
    OpenScope<decltype(open_)> scope(&open_, v.raw()->v_obj);
    if (!scope.entered()) return Unchanged();
    return DefaultMutateExpected(v, mode).value();
  }

  /*! \brief This mutator as a reference, to hand to callbacks. */
  StructuralMutator Self() {
    return ffi::detail::ObjectUnsafe::RefFromBorrowedHeader<StructuralMutator>(
        ffi::detail::ObjectUnsafe::Header(this));
  }

 private:
  template <InplaceMode mode>
  static TVMFFIAny Dispatch(StructuralMutatorObj* self, AnyView value) noexcept {
    TVMFFIAny result = ffi::detail::CatchAsExpected<Any>([&]() {
                         return Expected<Any>(static_cast<Derived*>(self)->Step(value, mode));
                       })
                           .data()
                           .release();
    // An error leaving a value names it in the error's visit context (innermost first).
    if (FFI_UNLIKELY(result.type_index == kTVMFFIError)) {
      ffi::detail::UpdateVisitErrorContext(result, value);
    }
    return result;
  }

  static TVMFFIAny RemapGet(StructuralMutatorObj* self, AnyView var) noexcept {
    return ffi::detail::CatchAsExpected<Any>([&]() -> Expected<Any> {
             auto& remap = static_cast<EngineBase*>(self)->remap_;
             auto it = remap.find(KeyOf(var));
             return it == remap.end() ? Any() : it->second.second;
           })
        .data()
        .release();
  }

  static TVMFFIAny RemapSet(StructuralMutatorObj* self, AnyView var, AnyView mapped) noexcept {
    return ffi::detail::CatchAsExpected<Any>([&]() -> Expected<Any> {
             auto& remap = static_cast<EngineBase*>(self)->remap_;
             remap[KeyOf(var)] = {var.cast<ObjectRef>(), Any(mapped)};
             return Any();
           })
        .data()
        .release();
  }

  /*! \brief The remap key of `var`: the object's identity. */
  static const void* KeyOf(const AnyView& var) {
    if (var.type_index() < kTVMFFIStaticObjectBegin) {
      FFI_THROW(TypeError) << "A variable remap key is an object, not `" << var.GetTypeName()
                           << "`";
    }
    return var.raw()->v_obj;
  }

  static constexpr StructuralMutatorVTable kTable{
      &Dispatch<InplaceMode::kDisallow>, &Dispatch<InplaceMode::kAllow>, &RemapGet, &RemapSet};
  // Each key holds its object alive, so that an address is never reused while remembered.
  std::unordered_map<const void*, std::pair<ObjectRef, Any>> remap_;
  std::unordered_set<const void*> open_;
};

/*! \brief The engine of ffi.StructuralMap: replacement callbacks before or after the rebuild. */
class MapEngine : public EngineBase<MapEngine> {
 public:
  MapEngine(std::vector<CallbackEntry> entries, bool pre_order)
      : entries_(std::move(entries)), pre_order_(pre_order) {}

  Any Step(const AnyView& v, InplaceMode mode) {
    if (!pre_order_) {
      Any rebuilt = Descend(v, mode);
      AnyView current = Unchanged::In(rebuilt) ? v : AnyView(rebuilt);
      const CallbackEntry* entry = FindEntry(entries_, current.type_index());
      return entry == nullptr ? rebuilt : Call(*entry, current);
    }
    const CallbackEntry* entry = FindEntry(entries_, v.type_index());
    if (entry == nullptr) return Descend(v, mode);
    Any replaced = Call(*entry, v);
    Any rebuilt;
    if (SameValue(replaced, v)) {
      rebuilt = Descend(v, mode);
    } else {
      bool inplace = mode == InplaceMode::kAllow && UniquelyOwned(replaced);
      rebuilt = Descend(replaced, inplace ? InplaceMode::kAllow : InplaceMode::kDisallow);
    }
    return Unchanged::In(rebuilt) ? replaced : rebuilt;
  }

 private:
  Any Call(const CallbackEntry& entry, const AnyView& v) {
    return entry.flag ? entry.callback(v, static_cast<int64_t>(def_region_kind()))
                      : entry.callback(v);
  }

  std::vector<CallbackEntry> entries_;
  bool pre_order_;
};

/*! \brief The engine of ffi.StructuralMutate: a matching callback owns the rebuild. */
class MutateEngine : public EngineBase<MutateEngine> {
 public:
  explicit MutateEngine(std::vector<CallbackEntry> entries) : entries_(std::move(entries)) {}

  Any Step(const AnyView& v, InplaceMode mode) {
    const CallbackEntry* entry = FindEntry(entries_, v.type_index());
    if (entry == nullptr) return Descend(v, mode);
    // The entry's flag: whether its callback takes the in-place mode too.
    return entry->flag ? entry->callback(v, Self(), static_cast<int64_t>(mode))
                       : entry->callback(v, Self());
  }

 private:
  std::vector<CallbackEntry> entries_;
};

/*! \brief Runs a container hook body, returning its result (or Error) as an owned raw value. */
template <typename F>
TVMFFIAny RunHook(F&& body) noexcept {
  return ffi::detail::CatchAsExpected<Any>([&]() { return Expected<Any>(body()); })
      .data()
      .release();
}

/*! \brief Mutates `item` copy-on-write; the new value, or nullopt when it stays the same. */
std::optional<Any> MutatedOrSame(StructuralMutatorObj* mutator, const Any& item) {
  Any out = mutator->MutateExpected(item).value();
  if (Unchanged::In(out) || SameValue(out, item)) return std::nullopt;
  return out;
}

/*! \brief `__s_mutate__` of arrays and lists: a new one when an element changes. */
template <typename Seq>
TVMFFIAny MutateSequence(StructuralMutatorObj* mutator, AnyView value) noexcept {
  return RunHook([&]() -> Any {
    Seq source = value.cast<Seq>();
    std::vector<Any> items(source.begin(), source.end());
    bool changed = false;
    for (Any& item : items) {
      if (std::optional<Any> out = MutatedOrSame(mutator, item)) {
        item = *std::move(out);
        changed = true;
      }
    }
    if (!changed) return Unchanged();
    return Seq(items.begin(), items.end());
  });
}

/*! \brief `__s_mutate__` of maps and dicts: a new one when a value changes. */
template <typename M>
TVMFFIAny MutateMapping(StructuralMutatorObj* mutator, AnyView value) noexcept {
  return RunHook([&]() -> Any {
    std::vector<std::pair<Any, Any>> entries;
    for (const auto& kv : value.cast<M>()) entries.emplace_back(kv.first, kv.second);
    bool changed = false;
    for (auto& kv : entries) {
      if (std::optional<Any> out = MutatedOrSame(mutator, kv.second)) {
        kv.second = *std::move(out);
        changed = true;
      }
    }
    if (!changed) return Unchanged();
    return M(entries);
  });
}

/*! \brief Both hooks of an immutable leaf (strings, bytes, big integers): always unchanged, so a
 * mutator never walks into them (they have no fields and no shallow copy). */
TVMFFIAny MutateImmutableLeaf(StructuralMutatorObj*, AnyView) noexcept {
  return RunHook([]() -> Any { return Unchanged(); });
}

/*! \brief Registers `hook` as both mutation hooks of the leaf type `T`. */
template <typename T>
void RegisterLeafHooks(const Any& hook) {
  reflection::TypeAttrDef<T>()
      .attr(type_attr::kStructuralMutate, hook)
      .attr(type_attr::kStructuralMaybeInplaceMutate, hook);
}

/*! \brief `__s_maybe_inplace_mutate__` of lists: the elements replaced in place. */
TVMFFIAny MutateListInPlace(StructuralMutatorObj* mutator, AnyView value) noexcept {
  return RunHook([&]() -> Any {
    List<Any> list = value.cast<List<Any>>();
    for (size_t i = 0; i < list.size(); ++i) {
      if (std::optional<Any> out = MutatedOrSame(mutator, list[i])) {
        if (i < list.size()) list.Set(static_cast<int64_t>(i), *std::move(out));
      }
    }
    return Unchanged();
  });
}

/*! \brief `__s_maybe_inplace_mutate__` of dicts: the values replaced in place. */
TVMFFIAny MutateDictInPlace(StructuralMutatorObj* mutator, AnyView value) noexcept {
  return RunHook([&]() -> Any {
    Dict<Any, Any> dict = value.cast<Dict<Any, Any>>();
    std::vector<std::pair<Any, Any>> entries(dict.begin(), dict.end());
    for (auto& kv : entries) {
      if (std::optional<Any> out = MutatedOrSame(mutator, kv.second)) {
        dict.Set(kv.first, *std::move(out));
      }
    }
    return Unchanged();
  });
}

/*! \brief Runs a rewrite of `root`, handing the root over in place when the caller did. */
Any Rewrite(StructuralMutatorObj* mutator, Any root) {
  Any out = mutator->MutateExpected(root, InplaceMode::kAllow).value();
  return Unchanged::In(out) ? root : out;
}

Any StructuralMap(Any root, const Array<Any>& entries,
                  const Array<Any>& entries_with_def_region_kind, int64_t order) {
  if (order != static_cast<int64_t>(WalkOrder::kPreOrder) &&
      order != static_cast<int64_t>(WalkOrder::kPostOrder)) {
    FFI_THROW(ValueError) << "ffi.StructuralMap: order is 0 (pre-order) or 1 (post-order), got "
                          << order;
  }
  std::vector<CallbackEntry> parsed;
  ParseCallbackEntries("ffi.StructuralMap", entries, false, false, &parsed);
  ParseCallbackEntries("ffi.StructuralMap", entries_with_def_region_kind, false, true, &parsed);
  StructuralMutator mutator(make_object<MapEngine>(
      std::move(parsed), order == static_cast<int64_t>(WalkOrder::kPreOrder)));
  return Rewrite(mutator.get(), std::move(root));
}

Any StructuralMutate(Any root, const Array<Any>& entries) {
  std::vector<CallbackEntry> parsed;
  ParseCallbackEntries("ffi.StructuralMutate", entries, true, false, &parsed);
  StructuralMutator mutator(make_object<MutateEngine>(std::move(parsed)));
  return Rewrite(mutator.get(), std::move(root));
}

FFI_STATIC_INIT_BLOCK() {
  namespace refl = reflection;
  StructuralMutatorObj::RuntimeTypeIndex();
  refl::GlobalDef()
      .def("ffi.StructuralMap", &StructuralMap,
           "StructuralMap(root, entries, entries_with_def_region_kind, order): `root` rebuilt "
           "with the first matching (type_index, callback) entry replacing each part "
           "(pre-order 0, post-order 1).")
      .def("ffi.StructuralMutate", &StructuralMutate,
           "StructuralMutate(root, entries): `root` rebuilt; the first matching "
           "(type_index, callback, takes_inplace_mode) entry receives (value, mutator[, mode]) "
           "and returns the part's replacement.")
      .def(
          "ffi.StructuralMutatorMutate",
          [](const StructuralMutator& mutator, AnyView value) { return mutator->Mutate(value); },
          "StructuralMutatorMutate(mutator, value): `value` rewritten (copy on write).")
      .def(
          "ffi.StructuralMutatorDefaultMutate",
          [](const StructuralMutator& mutator, AnyView value) {
            return mutator->DefaultMutate(value);
          },
          "StructuralMutatorDefaultMutate(mutator, value): `value` rebuilt from its rewritten "
          "parts.")
      .def(
          "ffi.StructuralMutatorVarRemapGet",
          [](const StructuralMutator& mutator, AnyView var) {
            return StructuralMutatorObj::Resolve(mutator->VarRemapGetExpected(var).value(), var);
          },
          "StructuralMutatorVarRemapGet(mutator, var): what `var` was rewritten into, or None.")
      .def(
          "ffi.StructuralMutatorVarRemapSet",
          [](const StructuralMutator& mutator, AnyView var, AnyView mapped) {
            mutator->VarRemapSetExpected(var, mapped).value();
          },
          "StructuralMutatorVarRemapSet(mutator, var, mapped): records `var`'s rewrite.")
      .def(
          "ffi.StructuralMutatorDefRegionKind",
          [](const StructuralMutator& mutator) {
            return static_cast<int64_t>(mutator->def_region_kind());
          },
          "StructuralMutatorDefRegionKind(mutator): the def region the rewrite is in.")
      .def(
          "ffi.StructuralMutatorWithDefRegionKind",
          [](const StructuralMutator& mutator, int64_t kind, const Function& callback) {
            return mutator->WithDefRegionKind(DefRegionFromInt(kind), [&] { return callback(); });
          },
          "StructuralMutatorWithDefRegionKind(mutator, kind, callback): calls callback() in "
          "def region `kind`.");
  refl::EnsureTypeAttrColumn(type_attr::kStructuralMutate);
  refl::EnsureTypeAttrColumn(type_attr::kStructuralMaybeInplaceMutate);
  auto hook = [](FStructuralMutateABI fn) { return Any(reinterpret_cast<void*>(fn)); };
  // As the reference's runtime registers them, for the mutators of every client's headers: an
  // Array or Map is immutable once shared, so "maybe in place" is copy-on-write for them.
  RegisterLeafHooks<StringObj>(hook(&MutateImmutableLeaf));
  RegisterLeafHooks<BytesObj>(hook(&MutateImmutableLeaf));
  RegisterLeafHooks<detail::BigIntObj>(hook(&MutateImmutableLeaf));
  refl::TypeAttrDef<ArrayObj>()
      .attr(type_attr::kStructuralMutate, hook(&MutateSequence<Array<Any>>))
      .attr(type_attr::kStructuralMaybeInplaceMutate, hook(&MutateSequence<Array<Any>>));
  refl::TypeAttrDef<ListObj>()
      .attr(type_attr::kStructuralMutate, hook(&MutateSequence<List<Any>>))
      .attr(type_attr::kStructuralMaybeInplaceMutate, hook(&MutateListInPlace));
  refl::TypeAttrDef<MapObj>()
      .attr(type_attr::kStructuralMutate, hook(&MutateMapping<Map<Any, Any>>))
      .attr(type_attr::kStructuralMaybeInplaceMutate, hook(&MutateMapping<Map<Any, Any>>));
  refl::TypeAttrDef<DictObj>()
      .attr(type_attr::kStructuralMutate, hook(&MutateMapping<Dict<Any, Any>>))
      .attr(type_attr::kStructuralMaybeInplaceMutate, hook(&MutateDictInPlace));
}

}  // namespace
}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
