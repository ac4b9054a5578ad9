// Structural walking: the global ffi.StructuralWalk, which visits every part of a value the way
// structural equality sees it (structural.h) and calls typed callbacks on the parts, and the type
// ffi.VisitInterrupt (with its constructor global) that a callback returns to stop the walk.
//
// The rules:
// - Children: an array's or list's elements; a map's or dict's keys and values (entry by entry,
//   key first); a reflected object's fields in order, leaving out those flagged SEqHashIgnore.
//   Strings, bytes, shapes, tensors, functions, errors and Python objects have none.
// - Def regions as in structural equality: a field flagged SEqHashDefPattern / SEqHashDefSimple
//   is walked in that region (a pattern region propagates), and a free variable's own fields are
//   walked outside a simple region. Callbacks of the second list receive the region a part is
//   met in.
// - Each part goes to the first entry that matches it, plain entries before region-aware ones.
//   An entry's type index matches its own type and those derived from it (ffi.Object: every
//   object); -1 (Any) matches everything. Strings and bytes match as ffi.String / ffi.Bytes
//   whatever their storage.
// - Pre-order calls a part's callback before its children, post-order after them. A callback
//   returns None or WalkResult.ADVANCE (0) to go on, WalkResult.SKIP (1) to leave out the part's
//   children (pre-order only; post-order has walked them already), or a VisitInterrupt, which
//   ends the walk and is what the global returns (otherwise None).
// - Every occurrence of a shared part is visited (the walk keeps no memory across branches); an
//   object met again inside itself (a cycle) is visited but not entered again.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/structural_walk.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>

#include <unordered_set>
#include <vector>

#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {
namespace {

/*! \brief The type index an entry gives to match any value (typing.Any on the Python side). */
constexpr int64_t kAnyTypeIndex = -1;

/*! \brief One callback and the type it is for. */
struct WalkEntry {
  int32_t type_index;
  Function callback;
  bool with_region;
};

/*! \brief The index a value matches entries as: strings and bytes by their object kind. */
int32_t MatchIndex(int32_t index) {
  if (IsString(index)) return kTVMFFIStr;
  if (IsBytes(index)) return kTVMFFIBytes;
  return index;
}

/*! \brief Whether an entry for `target` takes a value of type `index` (its own or derived). */
bool Matches(int32_t target, int32_t index) {
  if (target == kAnyTypeIndex || target == index) return true;
  if (target < kTVMFFIStaticObjectBegin || index < kTVMFFIStaticObjectBegin) return false;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  const TVMFFITypeInfo* base = TVMFFIGetTypeInfo(target);
  if (info == nullptr || base == nullptr || base->type_depth >= info->type_depth) return false;
  return info->type_ancestors[base->type_depth]->type_index == target;
}

/*! \brief The entries of one list: each a (type index, callback) pair. */
void ParseEntries(const Array<Any>& items, bool with_region, std::vector<WalkEntry>* out) {
  for (const Any& item : items) {
    auto pair = item.try_cast<Array<Any>>();
    if (!pair.has_value() || pair->size() != 2) {
      FFI_THROW(TypeError) << "ffi.StructuralWalk: each entry is a (type_index, callback) pair, "
                           << "got `" << TypeKey(item.type_index()) << "`";
    }
    auto index = (*pair)[0].try_cast<int64_t>();
    auto callback = (*pair)[1].try_cast<Function>();
    if (!index.has_value() || !callback.has_value()) {
      FFI_THROW(TypeError) << "ffi.StructuralWalk: an entry is (int type_index, callback), got ("
                           << TypeKey((*pair)[0].type_index()) << ", "
                           << TypeKey((*pair)[1].type_index()) << ")";
    }
    if (*index != kAnyTypeIndex && (*index < 0 || *index > INT32_MAX ||
                                    TVMFFIGetTypeInfo(static_cast<int32_t>(*index)) == nullptr)) {
      FFI_THROW(TypeError) << "ffi.StructuralWalk: no type has index " << *index
                           << " (-1 stands for any value)";
    }
    out->push_back({static_cast<int32_t>(*index), *std::move(callback), with_region});
  }
}

/*! \brief One walk over one root. */
class StructuralWalker {
 public:
  StructuralWalker(std::vector<WalkEntry> entries, bool pre_order)
      : entries_(std::move(entries)), pre_order_(pre_order) {}

  /*! \brief Walks `v`; true when a callback interrupted (the interrupt is then in `result`). */
  bool Walk(const AnyView& v) {
    const WalkEntry* entry = Find(MatchIndex(v.type_index()));
    if (pre_order_ && entry != nullptr) {
      Action action = Call(*entry, v);
      if (action == Action::kInterrupt) return true;
      if (action == Action::kSkip) return false;
    }
    if (WalkChildren(v)) return true;
    if (!pre_order_ && entry != nullptr) return Call(*entry, v) == Action::kInterrupt;
    return false;
  }

  /*! \brief The VisitInterrupt a callback returned, or None. */
  Any result;

 private:
  enum class Action { kAdvance, kSkip, kInterrupt };

  const WalkEntry* Find(int32_t index) const {
    for (const WalkEntry& entry : entries_) {
      if (Matches(entry.type_index, index)) return &entry;
    }
    return nullptr;
  }

  Action Call(const WalkEntry& entry, const AnyView& v) {
    Any out =
        entry.with_region ? entry.callback(v, static_cast<int64_t>(region_)) : entry.callback(v);
    switch (out.type_index()) {
      case kTVMFFINone:
        return Action::kAdvance;
      case kTVMFFIVisitInterrupt:
        result = std::move(out);
        return Action::kInterrupt;
      case kTVMFFIInt: {
        int64_t code = out.cast<int64_t>();
        if (code == static_cast<int64_t>(WalkResult::kAdvance)) return Action::kAdvance;
        if (code == static_cast<int64_t>(WalkResult::kSkip)) return Action::kSkip;
        FFI_THROW(ValueError) << "ffi.StructuralWalk: a callback returned " << code
                              << "; a WalkResult is 0 (ADVANCE) or 1 (SKIP)";
      }
      default:
        FFI_THROW(TypeError) << "ffi.StructuralWalk: a callback returns None, a WalkResult or a "
                             << "VisitInterrupt, not `" << TypeKey(out.type_index()) << "`";
    }
  }

  /*! \brief Walks the children of `v`, each object at most once on the current path. */
  bool WalkChildren(const AnyView& v) {
    int32_t index = v.type_index();
    if (index < kTVMFFIStaticObjectBegin) return false;
    // A cycle: visited, not entered again.
    OpenScope<decltype(open_)> scope(&open_, v.raw()->v_obj);
    return scope.entered() && WalkChildrenOf(v);
  }

  bool WalkChildrenOf(const AnyView& v) {
    switch (v.type_index()) {
      case kTVMFFIStr:
      case kTVMFFIBytes:
      case kTVMFFIError:
      case kTVMFFIFunction:
      case kTVMFFIShape:
      case kTVMFFITensor:
      case kTVMFFIModule:
      case kTVMFFIOpaquePyObject:
        return false;
      case kTVMFFIArray:
        return WalkSequence(v.cast<Array<Any>>());
      case kTVMFFIList:
        return WalkSequence(v.cast<List<Any>>());
      case kTVMFFIMap:
        return WalkMapping(v.cast<Map<Any, Any>>());
      case kTVMFFIDict:
        return WalkMapping(v.cast<Dict<Any, Any>>());
      default:
        return WalkFields(v);
    }
  }

  template <typename Seq>
  bool WalkSequence(const Seq& items) {
    for (const Any& item : items) {
      if (Walk(item)) return true;
    }
    return false;
  }

  template <typename M>
  bool WalkMapping(const M& map) {
    for (const auto& kv : map) {
      if (Walk(kv.first) || Walk(kv.second)) return true;
    }
    return false;
  }

  /*! \brief A reflected object's fields, each in the def region its flags ask for; a free
   * variable's own fields outside a simple region (as structural equality binds it). */
  bool WalkFields(const AnyView& v) {
    int32_t index = v.type_index();
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
    if (info == nullptr) return false;
    const Object* obj = ObjectOf(v);
    TVMFFIDefRegionKind outer = region_;
    if (region_ == kTVMFFIDefRegionKindSimple && KindOf(index) == kTVMFFISEqHashKindFreeVar) {
      outer = kTVMFFIDefRegionKindNone;
    }
    return reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return false;
      Any value = reflection::FieldGetter(field)(obj);
      RegionScope scope(&region_, EnterRegion(outer, FieldRegionKind(field->flags)));
      return Walk(value);
    });
  }

  std::vector<WalkEntry> entries_;
  bool pre_order_;
  TVMFFIDefRegionKind region_ = kTVMFFIDefRegionKindNone;
  std::unordered_set<const void*> open_;
};

Any StructuralWalk(AnyView root, const Array<Any>& entries,
                   const Array<Any>& entries_with_def_region_kind, int64_t order) {
  if (order != static_cast<int64_t>(WalkOrder::kPreOrder) &&
      order != static_cast<int64_t>(WalkOrder::kPostOrder)) {
    FFI_THROW(ValueError) << "ffi.StructuralWalk: order is 0 (pre-order) or 1 (post-order), got "
                          << order;
  }
  std::vector<WalkEntry> parsed;
  ParseEntries(entries, false, &parsed);
  ParseEntries(entries_with_def_region_kind, true, &parsed);
  StructuralWalker walker(std::move(parsed), order == static_cast<int64_t>(WalkOrder::kPreOrder));
  walker.Walk(root);
  return std::move(walker.result);
}

FFI_STATIC_INIT_BLOCK() {
  namespace refl = reflection;
  refl::ObjectDef<VisitInterruptObj>("The signal that stops a structural walk, with a payload.")
      .def(refl::init<Any>(), "An interrupt carrying a payload.")
      .def_ro("value", &VisitInterruptObj::value, "The payload handed back to the caller.");
  refl::GlobalDef()
      .def(
          "ffi.VisitInterrupt", [](Any value) { return VisitInterrupt(std::move(value)); },
          "VisitInterrupt(value): an interrupt carrying `value`.")
      .def("ffi.StructuralWalk", &StructuralWalk,
           "StructuralWalk(root, entries, entries_with_def_region_kind, order): calls the first "
           "matching (type_index, callback) entry on every part of `root` (pre-order 0, "
           "post-order 1); returns the VisitInterrupt a callback returned, or None.");
}

}  // namespace
}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
