// Structural visiting (extra/structural_visit.h): the walk global ffi.StructuralWalk (orders,
// first-match dispatch with its catch-alls, SKIP, interrupts, def regions handed to region-aware
// callbacks, containers and map values, ignored fields, cycles, the errors for bad entries and
// bad callback results), the visit global ffi.StructuralVisit with its visitor methods, and a
// type's own `__s_visit__` hook called by visitors.
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/structural_visit.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::AnyView;
using ffi::Array;
using ffi::Function;
using ffi::String;
using ffi::VisitInterrupt;

/*! \brief A variable: its name ignored by structural comparison (and so by the walk). */
class WVarObj : public ffi::Object {
 public:
  String name;
  int64_t bits = 32;
  WVarObj(String name, int64_t bits) : name(std::move(name)), bits(bits) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.walk.Var", WVarObj, ffi::Object);
};

/*! \brief A function: its parameters define variables, its comment is ignored. */
class WFuncObj : public ffi::Object {
 public:
  Array<Any> params;
  Array<Any> body;
  String comment;
  WFuncObj(Array<Any> params, Array<Any> body, String comment)
      : params(std::move(params)), body(std::move(body)), comment(std::move(comment)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.walk.Func", WFuncObj, ffi::Object);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<WVarObj>()
      .def_ro("name", &WVarObj::name, refl::AttachFieldFlag::SEqHashIgnore())
      .def_ro("bits", &WVarObj::bits);
  refl::ObjectDef<WFuncObj>()
      .def_ro("params", &WFuncObj::params, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("body", &WFuncObj::body)
      .def_ro("comment", &WFuncObj::comment, refl::AttachFieldFlag::SEqHashIgnore());
}

Any Var(const char* name) { return ffi::ObjectRef(ffi::make_object<WVarObj>(name, 32)); }

constexpr int64_t kAny = -1;
constexpr int64_t kPre = 0;
constexpr int64_t kPost = 1;

/*! \brief An entry: a type index and a callback. */
Any Entry(int64_t type_index, Function fn) { return Array<Any>{type_index, std::move(fn)}; }

/*! \brief A callback appending `tag` and the value (as text where it is a plain value). */
Function Trace(std::vector<std::string>* trace, std::string tag) {
  return Function::FromTyped([trace, tag](AnyView v) -> Any {
    std::string text = tag;
    if (auto i = v.try_cast<int64_t>(); i.has_value() && v.type_index() == kTVMFFIInt) {
      text += ":" + std::to_string(*i);
    } else if (auto s = v.try_cast<String>(); s.has_value()) {
      text += ":" + std::string(s->view());
    } else if (auto a = v.try_cast<Array<Any>>(); a.has_value()) {
      text += ":" + std::to_string(a->size());
    }
    trace->push_back(text);
    return Any();
  });
}

Any Walk(const Any& root, Array<Any> entries, Array<Any> aware = {}, int64_t order = kPre) {
  return Function::GetGlobalRequired("ffi.StructuralWalk")(root, entries, aware, order);
}

TEST(StructuralWalk, PreAndPostOrder) {
  Any root = Array<Any>{Array<Any>{1}, 2};
  std::vector<std::string> pre, post;
  Walk(root, {Entry(kTVMFFIArray, Trace(&pre, "array")), Entry(kTVMFFIInt, Trace(&pre, "int"))});
  EXPECT_EQ(pre, (std::vector<std::string>{"array:2", "array:1", "int:1", "int:2"}));
  Any result = Walk(
      root, {Entry(kTVMFFIArray, Trace(&post, "array")), Entry(kTVMFFIInt, Trace(&post, "int"))},
      {}, kPost);
  EXPECT_EQ(result, nullptr);
  EXPECT_EQ(post, (std::vector<std::string>{"int:1", "array:1", "int:2", "array:2"}));
}

TEST(StructuralWalk, FirstMatchCatchAllsAndSkip) {
  Any root = Array<Any>{1, Array<Any>{2.5}, String("s")};
  std::vector<std::string> trace;
  // ffi.Object takes every object (strings included), Any the rest; the first match wins.
  Walk(root, {Entry(kTVMFFIObject, Trace(&trace, "object")), Entry(kAny, Trace(&trace, "any")),
              Entry(kTVMFFIInt, Trace(&trace, "never"))});
  EXPECT_EQ(trace, (std::vector<std::string>{"object:3", "any:1", "object:1", "any", "object:s"}));

  trace.clear();
  Function skip = Function::FromTyped([&](AnyView) -> Any {
    trace.push_back("skip");
    return static_cast<int64_t>(ffi::WalkResult::kSkip);
  });
  Walk(root, {Entry(kTVMFFIArray, skip), Entry(kAny, Trace(&trace, "any"))});
  EXPECT_EQ(trace, (std::vector<std::string>{"skip"}));
  // In post-order the children are walked before SKIP is seen.
  trace.clear();
  Walk(Array<Any>{1}, {Entry(kTVMFFIArray, skip), Entry(kAny, Trace(&trace, "any"))}, {}, kPost);
  EXPECT_EQ(trace, (std::vector<std::string>{"any:1", "skip"}));
}

TEST(StructuralWalk, InterruptStopsAndIsReturned) {
  std::vector<std::string> trace;
  Function stop_at_two = Function::FromTyped([&](int64_t v) -> Any {
    trace.push_back(std::to_string(v));
    if (v == 2) return VisitInterrupt(String("found two"));
    return Any();
  });
  Any result = Walk(Array<Any>{1, 2, 3}, {Entry(kTVMFFIInt, stop_at_two)});
  ASSERT_EQ(result.type_index(), kTVMFFIVisitInterrupt);
  EXPECT_EQ(result.cast<VisitInterrupt>()->value.cast<String>(), "found two");
  EXPECT_EQ(trace, (std::vector<std::string>{"1", "2"}));
  // The constructor global, and the payload as a reflected field.
  Any made = Function::GetGlobalRequired("ffi.VisitInterrupt")(Array<Any>{7});
  EXPECT_EQ(made.cast<VisitInterrupt>()->value.cast<Array<Any>>()[0].cast<int64_t>(), 7);
  EXPECT_EQ(VisitInterrupt()->value, nullptr);
}

TEST(StructuralWalk, DefRegionsIgnoredFieldsAndMaps) {
  Any x = Var("x"), y = Var("y");
  Any func = ffi::ObjectRef(
      ffi::make_object<WFuncObj>(Array<Any>{x}, Array<Any>{x, y}, String("comment")));
  std::vector<std::string> trace;
  Function region = Function::FromTyped([&](AnyView v, int64_t kind) -> Any {
    trace.push_back(std::string(v.cast<ffi::ObjectRef>().as<WVarObj>()->name.view()) + ":" +
                    std::to_string(kind));
    return Any();
  });
  Array<Any> aware{Entry(WVarObj::RuntimeTypeIndex(), region)};
  // Ignored fields (the comment, the names) are not walked; the bits are.
  Walk(func, {Entry(kTVMFFIStr, Trace(&trace, "str")), Entry(kTVMFFIInt, Trace(&trace, "int"))},
       aware);
  EXPECT_EQ(trace, (std::vector<std::string>{"x:" + std::to_string(kTVMFFIDefRegionKindSimple),
                                             "int:32", "x:0", "int:32", "y:0", "int:32"}));

  // A map's values, not its keys; short and long strings alike; None never.
  trace.clear();
  std::string long_text(64, 'k');
  Any map = ffi::Map<Any, Any>{{1, String("a")}, {2, String(long_text)}, {3, nullptr}};
  Walk(map, {Entry(kTVMFFIStr, Trace(&trace, "str")), Entry(kTVMFFIInt, Trace(&trace, "int")),
             Entry(kTVMFFINone, Trace(&trace, "none"))});
  std::sort(trace.begin(), trace.end());
  EXPECT_EQ(trace, (std::vector<std::string>{"str:a", "str:" + long_text}));
}

TEST(StructuralWalk, CyclesEnd) {
  ffi::List<Any> list{1};
  list.push_back(list);
  std::vector<std::string> trace;
  Walk(list, {Entry(kTVMFFIList, Trace(&trace, "list")), Entry(kTVMFFIInt, Trace(&trace, "int"))});
  EXPECT_EQ(trace, (std::vector<std::string>{"list:2", "int:1", "list:2"}));
  list.Set(1, Any());  // break the cycle so the list is freed
}

TEST(StructuralWalk, Errors) {
  Array<Any> none;
  EXPECT_EQ(ExpectError([&] { Walk(1, none, none, 2); }).kind(), "ValueError");
  EXPECT_EQ(ExpectError([&] { Walk(1, {Any(1)}); }).kind(), "TypeError");
  Function ok = Function::FromTyped([](AnyView) { return Any(); });
  EXPECT_EQ(ExpectError([&] { Walk(1, {Entry(-5, ok)}); }).kind(), "TypeError");
  EXPECT_EQ(ExpectError([&] {
              Walk(1, {Entry(kAny, Function::FromTyped([](AnyView) { return String("what"); }))});
            }).kind(),
            "TypeError");
  EXPECT_EQ(ExpectError([&] {
              Walk(1, {Entry(kAny, Function::FromTyped([](AnyView) -> int64_t { return 7; }))});
            }).kind(),
            "ValueError");
  // A callback's own error passes through with its kind.
  Function raise = Function::FromTyped([](AnyView) -> Any { FFI_THROW(KeyError) << "inner"; });
  EXPECT_EQ(ExpectError([&] { Walk(Array<Any>{1}, {Entry(kTVMFFIInt, raise)}); }).kind(),
            "KeyError");
}

/*! \brief A pair that descends only into `second` (its own `__s_visit__` hook). */
class HalfPairObj : public ffi::Object {
 public:
  Any first, second;
  HalfPairObj(Any first, Any second) : first(std::move(first)), second(std::move(second)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.walk.HalfPair", HalfPairObj, ffi::Object);
};

/*! \brief A pair whose hook is an ffi.Function visiting `first` only. */
class FirstPairObj : public ffi::Object {
 public:
  Any first, second;
  FirstPairObj(Any first, Any second) : first(std::move(first)), second(std::move(second)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.walk.FirstPair", FirstPairObj, ffi::Object);
};

ffi::Expected<ffi::Optional<VisitInterrupt>> VisitSecond(ffi::StructuralVisitorObj* visitor,
                                                         const HalfPairObj* pair) {
  FFI_S_VISIT_MAYBE_EARLY_RETURN(visitor->VisitExpected(pair->second));
  return ffi::Optional<VisitInterrupt>();
}

TVMFFIAny VisitHalfPair(ffi::StructuralVisitorObj* visitor, AnyView value) noexcept {
  auto pair = value.cast<ffi::ObjectRef>();
  return ffi::detail::VisitResultToRaw(VisitSecond(visitor, pair.as<HalfPairObj>()));
}

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<HalfPairObj>()
      .def_ro("first", &HalfPairObj::first)
      .def_ro("second", &HalfPairObj::second);
  refl::ObjectDef<FirstPairObj>()
      .def_ro("first", &FirstPairObj::first)
      .def_ro("second", &FirstPairObj::second);
  refl::TypeAttrDef<HalfPairObj>().attr(ffi::type_attr::kStructuralVisit,
                                        ffi::FStructuralVisit::FromABI(&VisitHalfPair));
  refl::TypeAttrDef<FirstPairObj>().attr(
      ffi::type_attr::kStructuralVisit,
      Function::FromTyped([](ffi::StructuralVisitor visitor, ffi::ObjectRef pair) {
        return visitor->Visit(pair.as<FirstPairObj>()->first);
      }));
}

TEST(StructuralVisit, TypeHooksChooseTheParts) {
  Any half = ffi::ObjectRef(ffi::make_object<HalfPairObj>(1, 2));
  Any first = ffi::ObjectRef(ffi::make_object<FirstPairObj>(3, 4));
  std::vector<std::string> trace;
  Walk(Array<Any>{half, first}, {Entry(kTVMFFIInt, Trace(&trace, "int"))});
  EXPECT_EQ(trace, (std::vector<std::string>{"int:2", "int:3"}));
}

Any Visit(const Any& root, Array<Any> entries) {
  return Function::GetGlobalRequired("ffi.StructuralVisit")(root, entries);
}

TEST(StructuralVisit, CallbacksOwnTheDescent) {
  Any x = Var("x"), y = Var("y");
  Any func = ffi::ObjectRef(
      ffi::make_object<WFuncObj>(Array<Any>{x}, Array<Any>{x, y}, String("comment")));
  std::vector<std::string> trace;
  Function default_visit = Function::GetGlobalRequired("ffi.StructuralVisitorDefaultVisit");
  Function region_of = Function::GetGlobalRequired("ffi.StructuralVisitorDefRegionKind");
  Function on_var = Function::FromTyped([&](ffi::ObjectRef var, ffi::StructuralVisitor visitor) {
    trace.push_back(std::string(var.as<WVarObj>()->name.view()) + ":" +
                    std::to_string(region_of(visitor).cast<int64_t>()));
    return Any();  // its fields are not visited: the callback did not descend
  });
  Function on_func = Function::FromTyped([&](AnyView value, ffi::StructuralVisitor visitor) {
    trace.push_back("func");
    return default_visit(visitor, value);
  });
  Any result = Visit(func, {Entry(WVarObj::RuntimeTypeIndex(), on_var),
                            Entry(WFuncObj::RuntimeTypeIndex(), on_func),
                            Entry(kTVMFFIInt, Trace(&trace, "int"))});
  EXPECT_EQ(result, nullptr);
  EXPECT_EQ(trace, (std::vector<std::string>{
                       "func", "x:" + std::to_string(kTVMFFIDefRegionKindSimple), "x:0", "y:0"}));

  // A callback that does not descend prunes; an interrupt from below comes back.
  trace.clear();
  Function prune = Function::FromTyped([&](AnyView, ffi::StructuralVisitor) { return Any(); });
  Visit(Array<Any>{Array<Any>{1}, 2}, {Entry(kTVMFFIArray, prune)});
  EXPECT_TRUE(trace.empty());
  Function stop = Function::FromTyped(
      [](int64_t v, ffi::StructuralVisitor) -> Any { return VisitInterrupt(v * 10); });
  Any found = Visit(Array<Any>{Array<Any>{5}, 6}, {Entry(kTVMFFIInt, stop)});
  EXPECT_EQ(found.cast<VisitInterrupt>()->value.cast<int64_t>(), 50);
  Function bad = Function::FromTyped([](AnyView, ffi::StructuralVisitor) { return 3; });
  EXPECT_EQ(ExpectError([&] { Visit(Array<Any>{1}, {Entry(kTVMFFIInt, bad)}); }).kind(),
            "TypeError");
}

/*! \brief A visitor written against the header alone, as a kernel library would: counts ints. */
class CountingVisitor : public ffi::StructuralVisitorObj {
 public:
  CountingVisitor() : StructuralVisitorObj(&kTable) {}
  int64_t ints = 0;

 private:
  static TVMFFIAny Step(StructuralVisitorObj* self, AnyView value) noexcept {
    if (value.type_index() == kTVMFFIInt) ++static_cast<CountingVisitor*>(self)->ints;
    return ffi::detail::VisitResultToRaw(self->DefaultVisitExpected(value));
  }
  static constexpr ffi::StructuralVisitorVTable kTable{&CountingVisitor::Step};
};

TEST(StructuralVisit, VisitorsFromTheHeaderAndRegions) {
  auto counter = ffi::make_object<CountingVisitor>();
  EXPECT_EQ(counter->Visit(Array<Any>{1, ffi::Map<Any, Any>{{String("k"), 2}}, String("s")}),
            std::nullopt);
  EXPECT_EQ(counter->ints, 2);
  // A pattern region covers everything under it; regions come back after an exception.
  EXPECT_EQ(counter->def_region_kind(), kTVMFFIDefRegionKindNone);
  counter->WithDefRegionKind(kTVMFFIDefRegionKindPattern, [&] {
    counter->WithDefRegionKind(kTVMFFIDefRegionKindSimple, [&] {
      EXPECT_EQ(counter->def_region_kind(), kTVMFFIDefRegionKindPattern);
    });
  });
  EXPECT_THROW(counter->WithDefRegionKind(kTVMFFIDefRegionKindSimple,
                                          [&]() -> int { FFI_THROW(ValueError) << "stop"; }),
               ffi::Error);
  EXPECT_EQ(counter->def_region_kind(), kTVMFFIDefRegionKindNone);
  // The visitor type is registered under the reference's key.
  EXPECT_EQ(std::string(ffi::StructuralVisitorObj::_type_key), "ffi.StructuralVisitor");
}

// The header's StructuralWalk: typed callbacks, picked by how a value is stored.
using ffi::Expected;
using ffi::WalkOrder;
using ffi::WalkResult;

Any Func(Array<Any> params, Array<Any> body) {
  return ffi::ObjectRef(ffi::make_object<WFuncObj>(params, body, "ignored"));
}

TEST(StructuralWalkHeader, OrdersSkipAndTypedCallbacks) {
  Any x = Var("x");
  Any root = Func({x}, {Any(Array<Any>{x, 3})});
  std::vector<std::string> pre, post;
  auto on_var = [](std::vector<std::string>* t) {
    return [t](const WVarObj* v) -> Expected<WalkResult> {
      t->push_back("var:" + std::string(v->name.view()));
      return WalkResult::Advance();
    };
  };
  auto on_int = [](std::vector<std::string>* t) {
    return [t](int64_t i) { t->push_back("int:" + std::to_string(i)); };  // void: go on
  };
  EXPECT_EQ(ffi::StructuralWalk<WalkOrder::kPreOrder>(root, on_var(&pre), on_int(&pre)),
            std::nullopt);
  // The var's name is ignored (SEqHashIgnore); its bits are an int part.
  EXPECT_EQ(pre, (std::vector<std::string>{"var:x", "int:32", "var:x", "int:32", "int:3"}));
  ffi::StructuralWalk<WalkOrder::kPostOrder>(root, on_var(&post), on_int(&post));
  EXPECT_EQ(post, (std::vector<std::string>{"int:32", "var:x", "int:32", "var:x", "int:3"}));
  // Skip leaves out a value's parts (pre-order); the first matching callback wins.
  std::vector<std::string> skipped;
  ffi::StructuralWalk<WalkOrder::kPreOrder>(
      root, [&](const WVarObj*) { return WalkResult::Skip(); },
      [&](AnyView v) -> WalkResult {
        skipped.push_back(v.GetTypeName());
        return WalkResult::Advance();
      });
  EXPECT_EQ(skipped,
            (std::vector<std::string>{"testing.walk.Func", "Array", "Array", "Array", "int"}));
}

TEST(StructuralWalkHeader, InterruptAndRegions) {
  Any x = Var("x");
  Any root = Func({x}, {x});
  std::vector<int> regions;
  auto found = ffi::StructuralWalk<WalkOrder::kPreOrder>(
      root, [&](const ffi::ObjectRef& node, TVMFFIDefRegionKind region) -> Expected<WalkResult> {
        if (node.as<WVarObj>() != nullptr) regions.push_back(region);
        if (regions.size() == 2) return WalkResult::Interrupt(VisitInterrupt(String("second")));
        return WalkResult::Advance();
      });
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ((*found)->value.cast<String>(), "second");
  // The parameter is defined (a simple def region); its use in the body is not.
  EXPECT_EQ(regions, (std::vector<int>{kTVMFFIDefRegionKindSimple, kTVMFFIDefRegionKindNone}));
}

TEST(StructuralWalkHeader, ErrorsCarryWhereTheyHappened) {
  Any x = Var("x");
  Any root = Func({}, {Any(Array<Any>{x})});
  auto result = ffi::StructuralWalkExpected<WalkOrder::kPostOrder>(
      root,
      [](const WVarObj*) -> Expected<WalkResult> { return ffi::Error("ValueError", "bad var"); });
  ASSERT_TRUE(result.is_err());
  ffi::Error err = result.error();
  EXPECT_EQ(err.kind(), "ValueError");
  // Innermost first: the var, the array holding it, the body array, the function.
  auto context = ffi::VisitErrorContext::TryGetFromError(err);
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ((*context)->reverse_visit_pattern.size(), 4u);
  // The throwing form throws it; a callback's C++ exception becomes the error too.
  EXPECT_THROW(ffi::StructuralWalk<WalkOrder::kPreOrder>(
                   root, [](int64_t) -> WalkResult { FFI_THROW(TypeError) << "no ints"; }),
               ffi::Error);
}

TEST(StructuralWalkHeader, WalkResultThroughAny) {
  EXPECT_EQ(Any(WalkResult::Skip()).cast<int64_t>(), WalkResult::kSkip);
  EXPECT_TRUE(Any().cast<WalkResult>().is_advance());
  WalkResult stop = Any(WalkResult::Interrupt(VisitInterrupt(1))).cast<WalkResult>();
  ASSERT_TRUE(stop.interrupt().has_value());
  EXPECT_EQ((*stop.interrupt())->value.cast<int64_t>(), 1);
  EXPECT_FALSE(Any(7).try_cast<WalkResult>().has_value());
}

}  // namespace
