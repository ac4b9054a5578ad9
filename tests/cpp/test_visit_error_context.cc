// VisitErrorContext (extra/visit_error_context.h): the object's type and layout, the visit macros
// building the record as an error unwinds (innermost first), a previous extra context kept, the
// throw macro, the Expected form, the overloads the engines use, the error owning the context it
// was given in place, the global ffi.VisitErrorContext.FindAccessPaths (attributes, array and list
// items, map and dict values, shared nodes, sparse records, prefix matches, cleanup of the record,
// cycles), and the runtime's structural walk and map recording where their callbacks failed.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/visit_error_context.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>
#include <tvm/ffi/extra/visit_error_context.h>

#include <cstdint>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::AnyView;
using ffi::Array;
using ffi::Error;
using ffi::Function;
using ffi::List;
using ffi::ObjectRef;
using ffi::Optional;
using ffi::String;
using ffi::VisitErrorContext;
using ffi::VisitErrorContextObj;
using refl::AccessPath;

/*! \brief A node with two parts of any kind. */
class VPairObj : public ffi::Object {
 public:
  Any lhs;
  Any rhs;
  VPairObj(Any lhs, Any rhs) : lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.visit_error.Pair", VPairObj, ffi::Object);
};

class VPair : public ObjectRef {
 public:
  VPair() : VPair(nullptr, nullptr) {}
  // Two parts always: `VPair(other_pair)` would be the copy constructor.
  VPair(Any lhs, Any rhs) : ObjectRef(ffi::make_object<VPairObj>(std::move(lhs), std::move(rhs))) {}
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(VPair, ObjectRef, VPairObj);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VPairObj>().def_ro("lhs", &VPairObj::lhs).def_ro("rhs", &VPairObj::rhs);
}

/*! \brief Visits `node` and its VPair parts, failing at `bad`; each level records itself. */
void Check(const ObjectRef& node, const ObjectRef& bad) {
  FFI_VISIT_BEGIN();
  if (node.same_as(bad)) FFI_THROW(ValueError) << "bad node";
  if (const VPairObj* pair = node.as<VPairObj>()) {
    for (const Any* part : {&pair->lhs, &pair->rhs}) {
      if (part->type_index() >= kTVMFFIStaticObjectBegin) Check(part->cast<ObjectRef>(), bad);
    }
  }
  FFI_VISIT_END(node);
}

/*! \brief The record of `err` (which must carry one), as a vector of nodes. */
std::vector<ObjectRef> Record(const Error& err) {
  Optional<VisitErrorContext> context = VisitErrorContext::TryGetFromError(err);
  EXPECT_TRUE(context.has_value());
  std::vector<ObjectRef> nodes;
  if (!context.has_value()) return nodes;
  for (const ObjectRef& node : context.value()->reverse_visit_pattern) nodes.push_back(node);
  return nodes;
}

bool SameNodes(const std::vector<ObjectRef>& got, const std::vector<ObjectRef>& expected) {
  if (got.size() != expected.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i].same_as(expected[i])) return false;
  }
  return true;
}

/*! \brief A context recording `nodes` (innermost first). */
VisitErrorContext Context(std::vector<ObjectRef> nodes) {
  auto obj = ffi::make_object<VisitErrorContextObj>();
  for (ObjectRef& node : nodes) obj->reverse_visit_pattern.push_back(std::move(node));
  return VisitErrorContext(std::move(obj));
}

/*! \brief The paths as text ("", ".lhs[1]", ...), for comparisons that print nicely. */
std::vector<std::string> Texts(const Array<AccessPath>& paths) {
  std::vector<std::string> texts;
  for (const AccessPath& path : paths) {
    std::string text;
    for (const refl::AccessStep& step : path->ToSteps()) {
      if (step->kind == refl::AccessKind::kAttr) {
        text += "." + std::string(step->key.cast<String>().view());
      } else if (step->kind == refl::AccessKind::kArrayItem) {
        text += "[" + std::to_string(step->key.cast<int64_t>()) + "]";
      } else {
        text += "{" + std::string(step->key.cast<String>().view()) + "}";
      }
    }
    texts.push_back(text);
  }
  return texts;
}

std::vector<std::string> Find(const ObjectRef& root, std::vector<ObjectRef> nodes,
                              bool allow_prefix_match = false) {
  return Texts(
      VisitErrorContext::FindAccessPaths(root, Context(std::move(nodes)), allow_prefix_match));
}

using Paths = std::vector<std::string>;

TEST(VisitErrorContext, TypeAndLayout) {
  // The reference's layout: the object header, then the two fields.
  auto obj = ffi::make_object<VisitErrorContextObj>();
  const char* base = reinterpret_cast<const char*>(obj.get());
  EXPECT_EQ(reinterpret_cast<const char*>(&obj->reverse_visit_pattern) - base, 24);
  EXPECT_EQ(reinterpret_cast<const char*>(&obj->prev_error_context) - base, 32);
  EXPECT_EQ(std::string(VisitErrorContextObj::_type_key), "ffi.VisitErrorContext");
  int32_t index = 0;
  TVMFFIByteArray key = Bytes("ffi.VisitErrorContext");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, VisitErrorContextObj::RuntimeTypeIndex());
  EXPECT_NE(refl::GetFieldInfo("ffi.VisitErrorContext", "reverse_visit_pattern"), nullptr);
  EXPECT_NE(refl::GetFieldInfo("ffi.VisitErrorContext", "prev_error_context"), nullptr);
  EXPECT_TRUE(Function::GetGlobal("ffi.VisitErrorContext.FindAccessPaths").has_value());
}

TEST(VisitErrorContext, MacrosRecordInnermostFirst) {
  VPair leaf, other;
  VPair mid(leaf, other);
  VPair root(other, mid);
  Error err = CatchError([&] { Check(root, leaf); });
  EXPECT_EQ(err.kind(), "ValueError");
  EXPECT_EQ(err.message(), "bad node");
  EXPECT_TRUE(SameNodes(Record(err), {leaf, mid, root}));
  EXPECT_FALSE(VisitErrorContext::TryGetFromError(err).value()->prev_error_context.has_value());
  EXPECT_EQ(
      Texts(VisitErrorContext::FindAccessPaths(root, *VisitErrorContext::TryGetFromError(err))),
      (Paths{".rhs.lhs"}));
  // Without a failure nothing is recorded or thrown.
  EXPECT_FALSE(TryCatchError([&] { Check(root, VPair()); }).has_value());
}

TEST(VisitErrorContext, PreviousExtraContextIsKept) {
  VPair payload, leaf, root(leaf, nullptr);
  Error err("RuntimeError", "failed", "", std::nullopt, ObjectRef(payload));
  EXPECT_FALSE(VisitErrorContext::TryGetFromError(err).has_value());  // something else
  ffi::detail::UpdateVisitErrorContext(err, leaf);
  Optional<VisitErrorContext> context = VisitErrorContext::TryGetFromError(err);
  ASSERT_TRUE(context.has_value());
  ASSERT_TRUE(context.value()->prev_error_context.has_value());
  EXPECT_TRUE(context.value()->prev_error_context.value().same_as(payload));
  // A second frame goes into the same context.
  ffi::details::UpdateVisitErrorContext(err, root);
  EXPECT_TRUE(VisitErrorContext::TryGetFromError(err).value().same_as(context.value()));
  EXPECT_TRUE(SameNodes(Record(err), {leaf, root}));
  EXPECT_EQ(err.kind(), "RuntimeError");
  EXPECT_EQ(err.message(), "failed");
}

TEST(VisitErrorContext, ErrorOwnsTheContextPutInPlace) {
  VPair payload, node;
  std::optional<VisitErrorContext> context;
  {
    Error err("RuntimeError", "failed", "", std::nullopt, ObjectRef(payload));
    EXPECT_EQ(payload.use_count(), 2u);
    ffi::detail::UpdateVisitErrorContext(err, node);
    context = VisitErrorContext::TryGetFromError(err).value();
    EXPECT_EQ(payload.use_count(), 2u);  // now held by the context instead of the error
    EXPECT_EQ(context->use_count(), 2u);
  }
  EXPECT_EQ(context->use_count(), 1u);  // the error released the context it was given
  context.reset();
  EXPECT_EQ(payload.use_count(), 1u);
  EXPECT_EQ(node.use_count(), 1u);
}

TEST(VisitErrorContext, ThrowMacroStartsTheRecord) {
  VPair part, root(part, nullptr);
  Error alone = CatchError([&] { FFI_VISIT_THROW(TypeError, part) << "bad part " << 7; });
  EXPECT_EQ(alone.kind(), "TypeError");
  EXPECT_EQ(alone.message(), "bad part 7");
  EXPECT_TRUE(SameNodes(Record(alone), {part}));
  EXPECT_FALSE(alone.backtrace().empty());
  Error bare = CatchError([&] { FFI_VISIT_THROW(ValueError, part); });
  EXPECT_EQ(bare.message(), "");
  EXPECT_TRUE(SameNodes(Record(bare), {part}));
  // Inside a level: the level appends its node. The TVM-FFI spelling of each macro.
  Error nested = CatchError([&] {
    TVM_FFI_VISIT_BEGIN();
    TVM_FFI_VISIT_THROW(ValueError, part) << "bad";
    TVM_FFI_VISIT_END(root);
  });
  EXPECT_TRUE(SameNodes(Record(nested), {part, root}));
  EXPECT_EQ(
      Texts(VisitErrorContext::FindAccessPaths(root, *VisitErrorContext::TryGetFromError(nested))),
      (Paths{".lhs"}));
}

ffi::Expected<int> CheckedSize(const ObjectRef& node, bool fail) {
  FFI_VISIT_BEGIN();
  if (fail) FFI_THROW(IndexError) << "out of range";
  return 1;
  FFI_VISIT_END_RETURN_EXPECTED(node);
}

TEST(VisitErrorContext, ExpectedFormReturnsTheError) {
  VPair node;
  EXPECT_EQ(CheckedSize(node, false).value(), 1);
  ffi::Expected<int> failed = CheckedSize(node, true);
  ASSERT_TRUE(failed.is_err());
  EXPECT_EQ(failed.error().kind(), "IndexError");
  EXPECT_TRUE(SameNodes(Record(failed.error()), {node}));
}

TEST(VisitErrorContext, ValuesOfAnyKind) {
  VPair node;
  Error err("ValueError", "x");
  // A value that is not an object has no identity to record.
  ffi::detail::UpdateVisitErrorContext(err, AnyView(42));
  ffi::detail::UpdateVisitErrorContext(err, AnyView(nullptr));
  EXPECT_FALSE(VisitErrorContext::TryGetFromError(err).has_value());
  ffi::detail::UpdateVisitErrorContext(err, AnyView(node));
  Any held = node;
  ffi::detail::UpdateVisitErrorContext(err, AnyView(held));
  EXPECT_TRUE(SameNodes(Record(err), {node, node}));
  // The raw form the engines use: only a result holding an Error is annotated.
  Any as_result = err;
  VPair outer;
  ffi::detail::UpdateVisitErrorContext(*as_result.raw(), AnyView(outer));
  EXPECT_TRUE(SameNodes(Record(err), {node, node, outer}));
  Any not_an_error = 1;
  ffi::detail::UpdateVisitErrorContext(*not_an_error.raw(), AnyView(outer));
}

TEST(FindAccessPaths, AttributesAndSharedNodes) {
  VPair leaf, mid(leaf, nullptr), root(mid, nullptr);
  EXPECT_EQ(Find(root, {leaf, mid, root}), (Paths{".lhs.lhs"}));
  EXPECT_EQ(Find(root, {leaf, root}), (Paths{".lhs.lhs"}));  // sparse: mid not recorded
  EXPECT_EQ(Find(root, {leaf, mid}), (Paths{".lhs.lhs"}));   // the root need not be recorded
  EXPECT_EQ(Find(root, {root}), (Paths{""}));
  VPair shared, pair(shared, shared);
  EXPECT_EQ(Find(pair, {shared, pair}), (Paths{".lhs", ".rhs"}));
}

TEST(FindAccessPaths, ContainerSteps) {
  VPair a, b, c, d;
  VPair root(
      Array<Any>{1, a, List<Any>{b}},
      ffi::Map<Any, Any>{{String("k"), c}, {String("n"), ffi::Dict<Any, Any>{{String("m"), d}}}});
  EXPECT_EQ(Find(root, {a, root}), (Paths{".lhs[1]"}));
  EXPECT_EQ(Find(root, {b, root}), (Paths{".lhs[2][0]"}));
  EXPECT_EQ(Find(root, {c, root}), (Paths{".rhs{k}"}));
  EXPECT_EQ(Find(root, {d, root}), (Paths{".rhs{n}{m}"}));
  // A container recorded by a walk is matched like any node.
  Array<Any> items{a};
  VPair holder(items, nullptr);
  EXPECT_EQ(Find(holder, {a, items, holder}), (Paths{".lhs[0]"}));
  // An Array root.
  EXPECT_EQ(Find(items, {a}), (Paths{"[0]"}));
}

TEST(FindAccessPaths, AnchorsNarrowTheMatch) {
  VPair inner;
  VPair branch_a(inner, nullptr);
  VPair anchor(VPair(inner, nullptr), nullptr);
  VPair branch_b(anchor, nullptr);
  VPair root(branch_a, branch_b);
  EXPECT_EQ(Find(root, {inner, root}), (Paths{".lhs.lhs", ".rhs.lhs.lhs.lhs"}));
  EXPECT_EQ(Find(root, {inner, anchor, root}), (Paths{".rhs.lhs.lhs.lhs"}));
}

TEST(FindAccessPaths, PrefixMatches) {
  VPair missing, child(VPair(), nullptr), root(child, VPair());
  EXPECT_EQ(Find(root, {missing, child, root}), Paths{});
  // The deepest node reached in order: the child, not the nodes below or beside it.
  EXPECT_EQ(Find(root, {missing, child, root}, true), (Paths{".lhs"}));
  // Never the root alone.
  EXPECT_EQ(Find(root, {missing, root}, true), Paths{});
  // A full match below a node leaves that node unreported.
  VPair leaf, parent(leaf, nullptr), top(parent, VPair(missing, nullptr));
  EXPECT_EQ(Find(top, {leaf, parent, top}, true), (Paths{".lhs.lhs"}));
}

TEST(FindAccessPaths, RecordCleanupAndEdges) {
  VPair leaf, root(leaf, nullptr);
  ObjectRef null;
  EXPECT_EQ(Find(root, {}), Paths{});
  EXPECT_EQ(Find(root, {null, null}), Paths{});
  EXPECT_EQ(Find(root, {leaf, leaf, root, root}), (Paths{".lhs"}));
  EXPECT_EQ(Find(root, {null, leaf, null, root, null}), (Paths{".lhs"}));
  EXPECT_EQ(Find(root, {leaf, null, leaf, root, root, null}), (Paths{".lhs"}));
  EXPECT_EQ(Find(root, {VPair(), root}), Paths{});
  // A cycle is not followed forever.
  List<Any> loop;
  loop.push_back(loop);
  loop.push_back(leaf);
  EXPECT_EQ(Find(loop, {leaf, loop}), (Paths{"[1]"}));
  loop.clear();  // break the cycle so that the list is freed
}

Any Entry(int64_t type_index, Function fn) { return Array<Any>{type_index, std::move(fn)}; }

TEST(VisitErrorContext, StructuralWalkRecordsWhereItFailed) {
  VPair bad, mid(1, Array<Any>{VPair(), bad}), root(mid, nullptr);
  Function fail_at_bad = Function::FromTyped([&](const ObjectRef& node) -> Any {
    if (node.same_as(bad)) FFI_THROW(ValueError) << "bad node";
    return Any();
  });
  for (int64_t order : {0, 1}) {
    Error err = CatchError([&] {
      Function::GetGlobalRequired("ffi.StructuralWalk")(
          root, Array<Any>{Entry(VPairObj::RuntimeTypeIndex(), fail_at_bad)}, Array<Any>{}, order);
    });
    EXPECT_EQ(err.kind(), "ValueError");
    Optional<VisitErrorContext> context = VisitErrorContext::TryGetFromError(err);
    ASSERT_TRUE(context.has_value());
    EXPECT_EQ(Texts(VisitErrorContext::FindAccessPaths(root, *context)), (Paths{".lhs.rhs[1]"}));
    EXPECT_TRUE(Record(err).front().same_as(bad));
    EXPECT_TRUE(Record(err).back().same_as(root));
  }
}

TEST(VisitErrorContext, StructuralMapRecordsWhereItFailed) {
  VPair bad, root(VPair(Array<Any>{bad}, nullptr), nullptr);
  Function fail_at_bad = Function::FromTyped([&](const ObjectRef& node) -> Any {
    if (node.same_as(bad)) FFI_THROW(ValueError) << "cannot rewrite";
    return node;
  });
  Error err = CatchError([&] {
    Function::GetGlobalRequired("ffi.StructuralMap")(
        root, Array<Any>{Entry(VPairObj::RuntimeTypeIndex(), fail_at_bad)}, Array<Any>{}, 1);
  });
  EXPECT_EQ(err.message(), "cannot rewrite");
  Optional<VisitErrorContext> context = VisitErrorContext::TryGetFromError(err);
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ(Texts(VisitErrorContext::FindAccessPaths(root, *context)), (Paths{".lhs.lhs[0]"}));
}

}  // namespace
