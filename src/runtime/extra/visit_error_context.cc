// The type ffi.VisitErrorContext (reflected fields reverse_visit_pattern and prev_error_context)
// and the standard global ffi.VisitErrorContext.FindAccessPaths(root, context, allow_prefix_match):
// the paths from `root` that pass the context's recorded nodes in order (extra/
// visit_error_context.h has the rules and the header-side API).
//
// The search walks every path from the root (a shared node is reached along each path to it) and
// keeps, per path, how many of the recorded nodes it has passed, outermost first; a node that is
// the next recorded one advances the count (taking the first fit is never worse for matching a
// subsequence). A path is reported where it passes the last one, and not followed further. With
// allow_prefix_match, a node that advanced the count but under which nothing was reported is
// reported too (unless it is the root). An object met again inside itself (a cycle) is not
// entered twice.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/visit_error_context.h>
#include <ffi/function.h>
#include <ffi/reflection/access_path.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>

#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

#include "stack_guard.h"
#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

namespace refl = ::tvm::ffi::reflection;

class AccessPathFinder {
 public:
  AccessPathFinder(const VisitErrorContext& context, bool allow_prefix_match)
      : allow_prefix_match_(allow_prefix_match) {
    // Outermost first, without undefined entries, a run of one node kept once.
    const List<ObjectRef>& recorded = context->reverse_visit_pattern;
    for (int64_t i = static_cast<int64_t>(recorded.size()) - 1; i >= 0; --i) {
      ObjectRef node = recorded[i];
      if (!node.defined() || (!pattern_.empty() && node.same_as(pattern_.back()))) continue;
      pattern_.push_back(std::move(node));
    }
  }

  Array<refl::AccessPath> Find(const ObjectRef& root) {
    if (!pattern_.empty()) Visit(AnyView(root));
    return Array<refl::AccessPath>(results_.begin(), results_.end());
  }

 private:
  /*! \brief One step of the current path, made into an AccessStep only when it is reported. */
  struct Step {
    refl::AccessKind kind;
    const TVMFFIFieldInfo* field;  // kAttr
    int64_t index;                 // kArrayItem
    Any key;                       // kMapItem
  };

  void Visit(const AnyView& value) {
    if (value.type_index() < kTVMFFIStaticObjectBegin) return;
    const void* obj = value.raw()->v_obj;
    structural::OpenScope<std::unordered_set<const void*>> scope(&open_, obj);
    if (!scope.entered()) return;
    CheckStackDepth("ffi.VisitErrorContext.FindAccessPaths");
    bool advanced = ffi::detail::ObjectUnsafe::HeaderOf(pattern_[passed_]) == obj;
    if (advanced && ++passed_ == pattern_.size()) {
      results_.push_back(PathHere());
      --passed_;
      return;
    }
    size_t found_before = results_.size();
    VisitParts(value);
    if (advanced) {
      if (allow_prefix_match_ && results_.size() == found_before && !steps_.empty()) {
        results_.push_back(PathHere());
      }
      --passed_;
    }
  }

  /*! \brief Follows each part of `value`: elements, map values or reflected fields. */
  void VisitParts(const AnyView& value) {
    switch (value.type_index()) {
      case kTVMFFIArray:
        return VisitSequence(value.cast<Array<Any>>());
      case kTVMFFIList:
        return VisitSequence(value.cast<List<Any>>());
      case kTVMFFIMap:
        return VisitMapping(value.cast<Map<Any, Any>>());
      case kTVMFFIDict:
        return VisitMapping(value.cast<Dict<Any, Any>>());
      default:
        break;
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(value.type_index());
    if (info == nullptr) return;
    const Object* obj = ffi::detail::ObjectUnsafe::FromHeader(value.raw()->v_obj);
    refl::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      Any part;
      try {
        part = refl::FieldGetter(field)(obj);
      } catch (const Error&) {
        return;  // a field that cannot be read leads nowhere
      }
      Follow(Step{refl::AccessKind::kAttr, field, 0, Any()}, part);
    });
  }

  template <typename Seq>
  void VisitSequence(const Seq& items) {
    for (size_t i = 0; i < items.size(); ++i) {
      Follow(Step{refl::AccessKind::kArrayItem, nullptr, static_cast<int64_t>(i), Any()}, items[i]);
    }
  }

  template <typename M>
  void VisitMapping(const M& entries) {
    for (const auto& kv : entries) {
      Follow(Step{refl::AccessKind::kMapItem, nullptr, 0, kv.first}, kv.second);
    }
  }

  void Follow(Step step, const Any& part) {
    if (part.type_index() < kTVMFFIStaticObjectBegin) return;
    steps_.push_back(std::move(step));
    Visit(part);
    steps_.pop_back();
  }

  refl::AccessPath PathHere() const {
    refl::AccessPath path = refl::AccessPath::Root();
    for (const Step& step : steps_) {
      switch (step.kind) {
        case refl::AccessKind::kAttr:
          path = path->Attr(String(step.field->name.data, step.field->name.size));
          break;
        case refl::AccessKind::kArrayItem:
          path = path->ArrayItem(step.index);
          break;
        default:
          path = path->MapItem(step.key);
          break;
      }
    }
    return path;
  }

  bool allow_prefix_match_;
  std::vector<ObjectRef> pattern_;  // the recorded nodes, outermost first
  size_t passed_ = 0;               // how many of them the current path has passed
  std::vector<Step> steps_;         // the current path
  std::unordered_set<const void*> open_;
  std::vector<refl::AccessPath> results_;
};

Array<refl::AccessPath> FindAccessPaths(const ObjectRef& root, const VisitErrorContext& context,
                                        bool allow_prefix_match) {
  return AccessPathFinder(context, allow_prefix_match).Find(root);
}

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VisitErrorContextObj>(
      "Where a recursive visit was when it failed: an Error's extra context.")
      .def_ro("reverse_visit_pattern", &VisitErrorContextObj::reverse_visit_pattern,
              "The nodes the visit was in, innermost first.")
      .def_ro("prev_error_context", &VisitErrorContextObj::prev_error_context,
              "The error's extra context before this one replaced it, or None.");
  refl::GlobalDef().def("ffi.VisitErrorContext.FindAccessPaths", &FindAccessPaths,
                        "FindAccessPaths(root, context, allow_prefix_match): the access paths "
                        "from `root` that pass the context's recorded nodes in order.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
