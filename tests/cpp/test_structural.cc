// Structural equality and hashing (extra/structural_equal.h, structural_hash.h, structural_key.h)
// and access paths (reflection/access_path.h): values and containers, the structural kinds a type
// declares (tree, const-tree, DAG, free variable, unique instance, unsupported), def regions and
// ignored fields, mismatch paths, cycles, type hooks, and keys that maps find by structure.
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/structural_equal.h>
#include <ffi/extra/structural_hash.h>
#include <ffi/extra/structural_key.h>
#include <ffi/reflection/access_path.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>
#include <tvm/ffi/tvm_compat.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_set>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Array;
using ffi::Map;
using ffi::String;
using ffi::StructuralEqual;
using ffi::StructuralHash;
using refl::AccessKind;
using refl::AccessPath;
using refl::AccessStep;

/*! \brief A variable: bound by def regions, its name ignored. */
class VarObj : public ffi::Object {
 public:
  String name;
  int64_t bits = 32;
  VarObj(String name, int64_t bits) : name(std::move(name)), bits(bits) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.structural.Var", VarObj, ffi::Object);
};
class Var : public ffi::ObjectRef {
 public:
  explicit Var(String name, int64_t bits = 32)
      : ObjectRef(ffi::make_object<VarObj>(std::move(name), bits)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Var, ffi::ObjectRef, VarObj);
};

/*! \brief A function: its parameters define variables, its comment is ignored. */
class FuncObj : public ffi::Object {
 public:
  Array<Var> params;
  Array<Any> body;
  String comment;
  FuncObj(Array<Var> params, Array<Any> body, String comment)
      : params(std::move(params)), body(std::move(body)), comment(std::move(comment)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.structural.Func", FuncObj, ffi::Object);
};
class Func : public ffi::ObjectRef {
 public:
  Func(Array<Var> params, Array<Any> body, String comment = "")
      : ObjectRef(
            ffi::make_object<FuncObj>(std::move(params), std::move(body), std::move(comment))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Func, ffi::ObjectRef, FuncObj);
};

/*! \brief Nodes of one value and kind each: `Kind` picks the structural kind. */
template <TVMFFISEqHashKind Kind>
class NodeObj : public ffi::Object {
 public:
  int64_t value = 0;
  explicit NodeObj(int64_t value) : value(value) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = Kind;
  static constexpr const char* _type_key =
      Kind == kTVMFFISEqHashKindDAGNode          ? "testing.structural.Dag"
      : Kind == kTVMFFISEqHashKindConstTreeNode  ? "testing.structural.Const"
      : Kind == kTVMFFISEqHashKindUniqueInstance ? "testing.structural.Unique"
                                                 : "testing.structural.Plain";
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(NodeObj, ffi::Object);
};
using DagObj = NodeObj<kTVMFFISEqHashKindDAGNode>;
using ConstObj = NodeObj<kTVMFFISEqHashKindConstTreeNode>;
using UniqueObj = NodeObj<kTVMFFISEqHashKindUniqueInstance>;
using PlainObj = NodeObj<kTVMFFISEqHashKindUnsupported>;

template <typename T>
ffi::ObjectRef Make(int64_t value) {
  return ffi::ObjectRef(ffi::make_object<T>(value));
}

/*! \brief A pair whose own hooks compare and hash only `a`. */
class HookedObj : public ffi::Object {
 public:
  int64_t a = 0;
  int64_t b = 0;
  HookedObj(int64_t a, int64_t b) : a(a), b(b) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.structural.Hooked", HookedObj, ffi::Object);
};

/*! \brief A type whose hash hook passes its name as a borrowed C string (TVM's IRModule passes
 * std::string names so). */
class NamedObj : public ffi::Object {
 public:
  std::string name;
  explicit NamedObj(std::string name) : name(std::move(name)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.structural.Named", NamedObj, ffi::Object);
};

/*! \brief A global name, as TVM's GlobalVar: a free variable whose own hook compares its name. */
class GlobalObj : public ffi::Object {
 public:
  String name;
  explicit GlobalObj(String name) : name(std::move(name)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.structural.Global", GlobalObj, ffi::Object);
};
ffi::ObjectRef Global(const char* name) {
  return ffi::ObjectRef(ffi::make_object<GlobalObj>(String(name)));
}

/*! \brief A unit of named definitions, as TVM's IRModule: its hook first binds each global to
 * the other side's of the same name (def region `true`, the bool TVM passes), then compares the
 * definitions, a map keyed by the globals. */
class UnitObj : public ffi::Object {
 public:
  Map<Any, Any> defs;
  explicit UnitObj(Map<Any, Any> defs) : defs(std::move(defs)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.structural.Unit", UnitObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<GlobalObj>().def_ro("name", &GlobalObj::name);
  refl::ObjectDef<UnitObj>().def_ro("defs", &UnitObj::defs);
  using Equal = ffi::TypedFunction<bool(ffi::AnyView, ffi::AnyView, bool, ffi::AnyView)>;
  refl::TypeAttrDef<GlobalObj>().def(
      ffi::type_attr::kSEqual.name,
      ffi::Function::FromTyped([](const GlobalObj* l, const GlobalObj* r, Equal eq) {
        return eq(l->name, r->name, false, String("name"));
      }));
  refl::TypeAttrDef<UnitObj>().def(
      ffi::type_attr::kSEqual.name,
      ffi::Function::FromTyped([](const UnitObj* l, const UnitObj* r, Equal eq) {
        for (const auto& [lk, lv] : l->defs) {
          for (const auto& [rk, rv] : r->defs) {
            auto name = [](const Any& g) { return g.cast<ffi::ObjectRef>().as<GlobalObj>()->name; };
            if (name(lk) == name(rk) && !eq(lk, rk, true, String("defs"))) return false;
          }
        }
        return eq(l->defs, r->defs, false, String("defs"));
      }));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VarObj>()
      .def_ro("name", &VarObj::name, refl::AttachFieldFlag::SEqHashIgnore())
      .def_ro("bits", &VarObj::bits);
  refl::ObjectDef<FuncObj>()
      .def_ro("params", &FuncObj::params, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("body", &FuncObj::body)
      .def_ro("comment", &FuncObj::comment, refl::AttachFieldFlag::SEqHashIgnore());
  refl::ObjectDef<DagObj>().def_ro("value", &DagObj::value);
  refl::ObjectDef<ConstObj>().def_ro("value", &ConstObj::value);
  refl::ObjectDef<UniqueObj>().def_ro("value", &UniqueObj::value);
  refl::ObjectDef<PlainObj>().def_ro("value", &PlainObj::value);
  refl::ObjectDef<HookedObj>().def_ro("a", &HookedObj::a).def_ro("b", &HookedObj::b);
  refl::TypeAttrDef<HookedObj>()
      .def(ffi::type_attr::kSEqual.name,
           ffi::Function::FromTyped(
               [](const HookedObj* l, const HookedObj* r,
                  ffi::TypedFunction<bool(ffi::AnyView, ffi::AnyView, int, ffi::AnyView)> eq) {
                 return eq(l->a, r->a, 0, String("a"));
               }))
      .def(ffi::type_attr::kSHash.name,
           ffi::Function::FromTyped(
               [](const HookedObj* o, int64_t init,
                  ffi::TypedFunction<int64_t(ffi::AnyView, int64_t, int)> hash) {
                 return hash(o->a, init, 0);
               }));
  refl::ObjectDef<NamedObj>();
  refl::TypeAttrDef<NamedObj>().def(
      ffi::type_attr::kSHash.name,
      ffi::Function::FromTyped([](const NamedObj* o, int64_t init,
                                  ffi::TypedFunction<int64_t(ffi::AnyView, int64_t, int)> hash) {
        return hash(o->name.c_str(), init, 0);
      }));
}

bool Eq(const Any& a, const Any& b, bool map_free_vars = false) {
  return StructuralEqual::Equal(a, b, map_free_vars);
}
uint64_t H(const Any& v, bool map_free_vars = false) {
  return StructuralHash::Hash(v, map_free_vars);
}

/*! \brief The steps of a path as text: ".name", "[i]", "[key]", "!" marking a missing one. */
std::string Describe(const AccessPath& path) {
  std::string out;
  for (const AccessStep& step : path->ToSteps()) {
    switch (step->kind) {
      case AccessKind::kAttr:
      case AccessKind::kAttrMissing:
        out += "." + std::string(step->key.cast<String>());
        break;
      case AccessKind::kArrayItem:
      case AccessKind::kArrayItemMissing:
        out += "[" + std::to_string(step->key.cast<int64_t>()) + "]";
        break;
      default:
        out +=
            "[" + (step->key == nullptr ? std::string("?") : step->key.cast<std::string>()) + "]";
    }
    if (step->kind >= AccessKind::kAttrMissing) out += "!";
  }
  return out;
}

/*! \brief The mismatch of `a` and `b` as "lhs-path | rhs-path", "" when they are equal. */
std::string Mismatch(const Any& a, const Any& b) {
  auto pair = StructuralEqual::GetFirstMismatch(a, b);
  if (!pair.has_value()) return "";
  return Describe(pair.value().get<0>()) + " | " + Describe(pair.value().get<1>());
}

TEST(StructuralEqual, PlainValuesByTypeAndValue) {
  EXPECT_TRUE(Eq(1, 1));
  EXPECT_FALSE(Eq(1, 2));
  EXPECT_FALSE(Eq(1, true));  // different type indices
  EXPECT_FALSE(Eq(1, 1.0));
  EXPECT_TRUE(Eq(std::nan(""), std::nan("")));
  EXPECT_FALSE(Eq(0.0, -0.0));  // by the bits, as the reference
  EXPECT_NE(H(0.0), H(-0.0));
  EXPECT_EQ(H(std::nan("")), H(-std::nan("")));
  EXPECT_TRUE(Eq(nullptr, nullptr));
  EXPECT_TRUE(Eq(DLDataType{kDLFloat, 32, 1}, DLDataType{kDLFloat, 32, 1}));
  EXPECT_FALSE(Eq(DLDataType{kDLFloat, 32, 1}, DLDataType{kDLFloat, 16, 1}));
  EXPECT_FALSE(Eq(DLDevice{kDLCPU, 0}, DLDevice{kDLCPU, 1}));
  // A short string is stored inline, a long one in an object: content decides.
  String small("ab"), big(std::string(100, 'x'));
  EXPECT_TRUE(Eq(small, String("ab")));
  EXPECT_TRUE(Eq(big, String(std::string(100, 'x'))));
  EXPECT_EQ(H(big), H(String(std::string(100, 'x'))));
  EXPECT_FALSE(Eq(small, ffi::Bytes("ab")));
  EXPECT_NE(H(small), H(ffi::Bytes("ab")));
}

TEST(StructuralEqual, Containers) {
  Array<Any> a{1, String("x"), Array<Any>{2.5}};
  Array<Any> b{1, String("x"), Array<Any>{2.5}};
  EXPECT_TRUE(Eq(a, b));
  EXPECT_EQ(H(a), H(b));
  EXPECT_FALSE(Eq(a, Array<Any>{1, String("x")}));
  Map<Any, Any> m1{{String("a"), 1}, {String("b"), a}};
  Map<Any, Any> m2{{String("b"), b}, {String("a"), 1}};
  EXPECT_TRUE(Eq(m1, m2));
  EXPECT_EQ(H(m1), H(m2));  // entry order does not matter
  EXPECT_FALSE(Eq(m1, Map<Any, Any>{{String("a"), 1}}));
  ffi::Dict<Any, Any> d{{String("a"), 1}};
  EXPECT_FALSE(Eq(Map<Any, Any>{{String("a"), 1}}, d));  // Map and Dict differ
  EXPECT_NE(H(Map<Any, Any>{{String("a"), 1}}), H(d));
  EXPECT_TRUE(Eq(ffi::Shape({2, 3}), ffi::Shape({2, 3})));
  EXPECT_FALSE(Eq(ffi::Shape({2, 3}), ffi::Shape({3, 2})));
  EXPECT_FALSE(Eq(Array<Any>{1}, ffi::List<Any>{1}));
}

TEST(StructuralEqual, TensorsByContentUnlessSkipped) {
  auto make = [](float last) {
    ffi::Tensor t = ffi::Tensor::FromNDAlloc(CountingCPUAlloc{}, {3}, kF32, kCPU);
    float values[3] = {1, 2, last};
    std::memcpy(t.data_ptr(), values, sizeof(values));
    return t;
  };
  ffi::Tensor x = make(3), y = make(3), z = make(4);
  EXPECT_TRUE(Eq(x, y));
  EXPECT_EQ(H(x), H(y));
  EXPECT_FALSE(Eq(x, z));
  EXPECT_NE(H(x), H(z));
  EXPECT_TRUE(StructuralEqual::Equal(x, z, false, true));
  EXPECT_EQ(StructuralHash::Hash(x, false, true), StructuralHash::Hash(z, false, true));
  ffi::Tensor other_shape = ffi::Tensor::FromNDAlloc(CountingCPUAlloc{}, {1, 3}, kF32, kCPU);
  EXPECT_FALSE(StructuralEqual::Equal(x, other_shape, false, true));
}

TEST(StructuralEqual, FreeVariables) {
  Var a("a"), b("b");
  EXPECT_TRUE(Eq(a, a));
  EXPECT_FALSE(Eq(a, b));  // unbound: identity
  EXPECT_NE(H(a), H(b));
  EXPECT_TRUE(Eq(a, b, true));  // map_free_vars binds them
  EXPECT_EQ(H(a, true), H(b, true));
  EXPECT_FALSE(Eq(a, Var("c", 16), true));  // bound, but their fields differ
  // Once bound, a variable equals only its partner.
  EXPECT_FALSE(Eq(Array<Any>{a, a}, Array<Any>{a, b}, true));
  EXPECT_TRUE(Eq(Array<Any>{a, b}, Array<Any>{b, a}, true));
}

TEST(StructuralEqual, DefRegionsMakeAlphaEquivalence) {
  Var x("x"), y("y"), p("p"), q("q");
  Func f1({x}, {1, x}, "comment a");
  Func f2({y}, {1, y}, "comment b");
  EXPECT_TRUE(Eq(f1, f2));
  EXPECT_EQ(H(f1), H(f2));
  EXPECT_FALSE(Eq(f1, Func({x}, {1, 2})));
  // fun(x, y){x, x} vs fun(p, q){p, q}: inconsistent use.
  EXPECT_FALSE(Eq(Func({x, y}, {x, x}), Func({p, q}, {p, q})));
  EXPECT_TRUE(Eq(Func({x, y}, {x, y}), Func({p, q}, {p, q})));
  EXPECT_FALSE(Eq(Func({x, y}, {x, y}), Func({p, q}, {q, p})));
  EXPECT_NE(H(Func({x, y}, {x, y})), H(Func({p, q}, {q, p})));
  // Nested definitions are scoped by where they occur.
  EXPECT_TRUE(Eq(Func({}, {Func({x}, {x})}), Func({}, {Func({y}, {y})})));
  EXPECT_EQ(H(Func({}, {Func({x}, {x})})), H(Func({}, {Func({y}, {y})})));
  // A variable used but never defined is free: equal only to itself (or with map_free_vars).
  EXPECT_FALSE(Eq(Func({}, {x}), Func({}, {y})));
  EXPECT_TRUE(Eq(Func({}, {x}), Func({}, {y}), true));
}

TEST(StructuralEqual, DagNodesMatchSharing) {
  ffi::ObjectRef s1 = Make<DagObj>(1), s2 = Make<DagObj>(1);
  ffi::ObjectRef c1 = Make<DagObj>(1), c2 = Make<DagObj>(1);
  EXPECT_TRUE(Eq(Array<Any>{s1, s1}, Array<Any>{s2, s2}));
  EXPECT_EQ(H(Array<Any>{s1, s1}), H(Array<Any>{s2, s2}));
  EXPECT_FALSE(Eq(Array<Any>{s1, s1}, Array<Any>{c1, c2}));
  EXPECT_NE(H(Array<Any>{s1, s1}), H(Array<Any>{c1, c2}));
  // (a, b) vs (a, a) with a and b alike: the reverse map sees that a is already taken.
  EXPECT_FALSE(Eq(Array<Any>{c1, c2}, Array<Any>{c1, c1}));
}

TEST(StructuralEqual, KindsByIdentityOrUnsupported) {
  ffi::ObjectRef u = Make<UniqueObj>(1);
  EXPECT_TRUE(Eq(u, u));
  EXPECT_FALSE(Eq(u, Make<UniqueObj>(1)));
  ffi::ObjectRef c = Make<ConstObj>(5);
  EXPECT_TRUE(Eq(c, Make<ConstObj>(5)));
  EXPECT_FALSE(Eq(c, Make<ConstObj>(6)));
  EXPECT_EQ(H(c), H(Make<ConstObj>(5)));
  ffi::Error e = ExpectError([] { Eq(Make<PlainObj>(1), Make<PlainObj>(1)); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("testing.structural.Plain"), std::string::npos) << e.message();
  EXPECT_EQ(ExpectError([] { H(Make<PlainObj>(1)); }).kind(), "TypeError");
  // Functions compare by identity.
  ffi::Function f = ffi::Function::FromTyped([](int x) { return x; });
  EXPECT_TRUE(Eq(f, f));
  EXPECT_FALSE(Eq(f, ffi::Function::FromTyped([](int x) { return x; })));
}

TEST(StructuralEqual, TypeHooksTakeOver) {
  Any x = ffi::ObjectRef(ffi::make_object<HookedObj>(1, 2));
  Any y = ffi::ObjectRef(ffi::make_object<HookedObj>(1, 3));
  Any z = ffi::ObjectRef(ffi::make_object<HookedObj>(4, 2));
  EXPECT_TRUE(Eq(x, y));
  EXPECT_EQ(H(x), H(y));
  EXPECT_FALSE(Eq(x, z));
  EXPECT_NE(H(x), H(z));
  EXPECT_EQ(Mismatch(x, z), ".a | .a");
}

TEST(StructuralHash, HookPartsHashAsTheValuesTheyHold) {
  // A borrowed C string passed to the hash callback hashes as the string it holds, not as its
  // address: equal names in distinct buffers hash alike.
  auto named = [](const char* name) {
    return ffi::ObjectRef(ffi::make_object<NamedObj>(std::string(name)));
  };
  EXPECT_EQ(H(named("main")), H(named("main")));
  EXPECT_NE(H(named("main")), H(named("other")));
  uint64_t type_key_hash = TVMFFIGetTypeInfo(NamedObj::RuntimeTypeIndex())->type_key_hash;
  EXPECT_EQ(H(named("main")), ffi::detail::StableHashCombine(type_key_hash, H(String("main"))));
}

TEST(StructuralEqual, HooksCompareContentUnderTheKind) {
  // A free variable with its own hook is still a free variable: distinct ones differ unless
  // mapped, whatever the hook says about their content.
  ffi::ObjectRef f = Global("f"), g = Global("f");
  EXPECT_FALSE(Eq(f, g));
  EXPECT_TRUE(Eq(f, g, /*map_free_vars=*/true));
  EXPECT_FALSE(Eq(f, Global("h"), true));  // the hook compares the content
  // A hook binding variables (in a def region) before comparing a map keyed by them, as TVM's
  // IRModule does: the keys then find their partners.
  auto unit = [](const ffi::ObjectRef& global, int64_t def) {
    return ffi::ObjectRef(ffi::make_object<UnitObj>(Map<Any, Any>{{global, def}}));
  };
  EXPECT_TRUE(Eq(unit(f, 1), unit(g, 1)));
  EXPECT_FALSE(Eq(unit(f, 1), unit(g, 2)));
  // The first mismatch is the definition, found through the bound key, not a missing key.
  auto pair = StructuralEqual::GetFirstMismatch(unit(f, 1), unit(g, 2)).value();
  Array<AccessStep> steps = pair.get<1>()->ToSteps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0]->kind, AccessKind::kAttr);
  EXPECT_EQ(steps[1]->kind, AccessKind::kMapItem);
}

TEST(StructuralEqual, FirstMismatchPaths) {
  Var x("x");
  EXPECT_EQ(Mismatch(Func({x}, {1, x}), Func({x}, {1, x})), "");
  EXPECT_EQ(Mismatch(Func({x}, {1, x}), Func({x}, {1, 2})), ".body[1] | .body[1]");
  EXPECT_EQ(Mismatch(Array<Any>{1, 2, 3}, Array<Any>{1, 2}), "[2] | [2]!");
  EXPECT_EQ(Mismatch(Array<Any>{1}, Array<Any>{1, 2}), "[1]! | [1]");
  Map<Any, Any> m1{{String("k"), 1}}, m2{{String("j"), 1}};
  EXPECT_EQ(Mismatch(m1, m2), "[k] | [k]!");
  EXPECT_EQ(Mismatch(Map<Any, Any>{{String("k"), Array<Any>{1}}},
                     Map<Any, Any>{{String("k"), Array<Any>{2}}}),
            "[k][0] | [k][0]");
  EXPECT_EQ(Mismatch(1, String("1")), " | ");  // the roots themselves
}

TEST(StructuralEqual, CyclesEnd) {
  ffi::List<Any> a, b;
  a.push_back(1);
  a.push_back(a);
  b.push_back(1);
  b.push_back(b);
  EXPECT_TRUE(Eq(a, b));
  EXPECT_EQ(H(a), H(b));
  ffi::List<Any> c;
  c.push_back(2);
  c.push_back(c);
  EXPECT_FALSE(Eq(a, c));
  // Break the cycles, or the lists keep each other alive.
  a.clear();
  b.clear();
  c.clear();
}

TEST(StructuralKey, MapsFindKeysByStructure) {
  ffi::StructuralKey k1(Array<Any>{1, String("a")});
  ffi::StructuralKey k2(Array<Any>{1, String("a")});
  ffi::StructuralKey k3(Array<Any>{2});
  EXPECT_TRUE(k1 == k2);
  EXPECT_TRUE(k1 != k3);
  EXPECT_EQ(static_cast<uint64_t>(k1->hash_i64), H(k1->key));
  Map<Any, Any> m{{k1, 1}, {k2, 2}, {k3, 3}};
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m[k1].cast<int>(), 2);
  std::unordered_set<ffi::StructuralKey> set{k1, k2, k3};
  EXPECT_EQ(set.size(), 2u);
  // Built by the runtime's global, the same key.
  ffi::StructuralKey k4 =
      ffi::Function::GetGlobalRequired("ffi.StructuralKey")(Array<Any>{1, String("a")})
          .cast<ffi::StructuralKey>();
  EXPECT_TRUE(k4 == k1);
  EXPECT_EQ(m[k4].cast<int>(), 2);
}

TEST(AccessPath, StepsPrefixesAndEquality) {
  AccessPath root = AccessPath::Root();
  AccessPath p = root->Attr("layer")->ArrayItem(2)->MapItem(String("w"));
  EXPECT_EQ(p->depth, 3);
  EXPECT_EQ(Describe(p), ".layer[2][w]");
  EXPECT_TRUE(root->IsPrefixOf(p));
  EXPECT_TRUE(p->IsPrefixOf(p));
  EXPECT_TRUE(root->Attr("layer")->IsPrefixOf(p));
  EXPECT_FALSE(root->Attr("other")->IsPrefixOf(p));
  EXPECT_FALSE(p->IsPrefixOf(root->Attr("layer")));
  EXPECT_TRUE(p->PathEqual(AccessPath::FromSteps(p->ToSteps())));
  EXPECT_FALSE(p->PathEqual(root->Attr("layer")->ArrayItem(3)->MapItem(String("w"))));
  EXPECT_FALSE(root->PathEqual(p));
  EXPECT_TRUE(root->PathEqual(AccessPath::Root()));
  EXPECT_FALSE(root->GetParent().has_value());
  EXPECT_TRUE(p->GetParent().value()->PathEqual(root->Attr("layer")->ArrayItem(2)));
  EXPECT_EQ(Describe(root->ArrayItemMissing(4)->AttrMissing("f")), "[4]!.f!");
  // The runtime registers the methods the reference's Python package calls.
  ffi::Function attr = refl::GetMethod("ffi.reflection.AccessPath", "_attr");
  EXPECT_TRUE(attr(root, String("layer")).cast<AccessPath>()->PathEqual(root->Attr("layer")));
}

}  // namespace
