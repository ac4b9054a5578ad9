// Structural mutation (extra/structural_mutate.h): the map global ffi.StructuralMap in both
// orders (copy on write, sharing of what did not change, free variables rewritten once through
// the variable remap), the mutate global ffi.StructuralMutate with its mutator methods, in-place
// rewriting of uniquely owned lists and dicts by a mutator written against the header alone, and
// the errors for types that cannot be copied, bad entries and failing callbacks.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/structural_mutate.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
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
using ffi::ObjectRef;
using ffi::String;

/*! \brief A variable with a width; its name is ignored by structural comparison. */
class MVarObj : public ffi::Object {
 public:
  String name;
  int64_t bits;
  MVarObj(String name, int64_t bits) : name(std::move(name)), bits(bits) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.mutate.Var", MVarObj, ffi::Object);
};

/*! \brief `lhs + rhs`. */
class MAddObj : public ffi::Object {
 public:
  Any lhs, rhs;
  MAddObj(Any lhs, Any rhs) : lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.mutate.Add", MAddObj, ffi::Object);
};

/*! \brief `let var = value in body`: the var is defined here. */
class MLetObj : public ffi::Object {
 public:
  Any var, value, body;
  MLetObj(Any var, Any value, Any body)
      : var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.mutate.Let", MLetObj, ffi::Object);
};

/*! \brief A node that cannot be copied (so cannot be rebuilt with a changed field). */
class MPinnedObj : public ffi::Object {
 public:
  Any value;
  std::unique_ptr<int> resource;
  explicit MPinnedObj(Any value) : value(std::move(value)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.mutate.Pinned", MPinnedObj, ffi::Object);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<MVarObj>()
      .def_ro("name", &MVarObj::name, refl::AttachFieldFlag::SEqHashIgnore())
      .def_ro("bits", &MVarObj::bits);
  refl::ObjectDef<MAddObj>().def_ro("lhs", &MAddObj::lhs).def_ro("rhs", &MAddObj::rhs);
  refl::ObjectDef<MLetObj>()
      .def_ro("var", &MLetObj::var, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("value", &MLetObj::value)
      .def_ro("body", &MLetObj::body);
  refl::ObjectDef<MPinnedObj>().def_ro("value", &MPinnedObj::value);
}

Any Var(const char* name, int64_t bits = 32) {
  return ObjectRef(ffi::make_object<MVarObj>(name, bits));
}
Any Add(Any lhs, Any rhs) { return ObjectRef(ffi::make_object<MAddObj>(lhs, rhs)); }
Any Let(Any var, Any value, Any body) {
  return ObjectRef(ffi::make_object<MLetObj>(var, value, body));
}
template <typename T>
const T* As(const Any& v) {
  return v.cast<ObjectRef>().as<T>();
}

constexpr int64_t kAny = -1;
constexpr int64_t kPre = 0;
constexpr int64_t kPost = 1;

Any Entry(int64_t type_index, Function fn) { return Array<Any>{type_index, std::move(fn)}; }

Any Map(const Any& root, Array<Any> entries, int64_t order = kPost, Array<Any> aware = {}) {
  return Function::GetGlobalRequired("ffi.StructuralMap")(root, entries, aware, order);
}

bool Same(const Any& a, const Any& b) { return ffi::detail::SameValue(a, b); }

Function PlusOne() {
  return Function::FromTyped([](int64_t v) { return v + 1; });
}

TEST(StructuralMap, PostOrderCopiesOnlyWhatChanges) {
  Any untouched = Array<Any>{String("keep")};
  Any root = Array<Any>{1, Array<Any>{2, untouched}, ffi::Map<Any, Any>{{String("k"), 3}}};
  Any out = Map(root, {Entry(kTVMFFIInt, PlusOne())});
  auto arr = out.cast<Array<Any>>();
  EXPECT_EQ(arr[0].cast<int64_t>(), 2);
  EXPECT_EQ(arr[1].cast<Array<Any>>()[0].cast<int64_t>(), 3);
  EXPECT_TRUE(Same(arr[1].cast<Array<Any>>()[1], untouched));  // shared, not copied
  auto map = arr[2].cast<ffi::Map<Any, Any>>();
  EXPECT_EQ(map.at(String("k")).cast<int64_t>(), 4);
  // The source is unchanged; a rewrite that changes nothing returns the root itself.
  EXPECT_EQ(root.cast<Array<Any>>()[0].cast<int64_t>(), 1);
  EXPECT_TRUE(Same(
      Map(root, {Entry(kTVMFFIStr, Function::FromTyped([](AnyView v) { return Any(v); }))}), root));
  // Post-order: the callback sees the value after its parts were rewritten.
  std::vector<int64_t> firsts;
  Function on_array = Function::FromTyped([&](Array<Any> a) {
    firsts.push_back(a[0].type_index() == kTVMFFIInt ? a[0].cast<int64_t>() : -1);
    return a;
  });
  Map(Array<Any>{Any(Array<Any>{10})},
      {Entry(kTVMFFIInt, PlusOne()), Entry(kTVMFFIArray, on_array)});
  EXPECT_EQ(firsts, (std::vector<int64_t>{11, -1}));
}

TEST(StructuralMap, PreOrderRewritesTheReplacement) {
  // The callback replaces [x] by [x, 100]; the replacement's ints are then rewritten.
  Function widen = Function::FromTyped([](Array<Any> a) {
    if (a.size() != 1) return a;
    return Array<Any>{a[0], 100};
  });
  Any out = Map(Array<Any>{1}, {Entry(kTVMFFIArray, widen), Entry(kTVMFFIInt, PlusOne())}, kPre);
  auto arr = out.cast<Array<Any>>();
  ASSERT_EQ(arr.size(), 2);
  EXPECT_EQ(arr[0].cast<int64_t>(), 2);
  EXPECT_EQ(arr[1].cast<int64_t>(), 101);
}

TEST(StructuralMap, ObjectsAndVariablesRewrittenOnce) {
  Any x = Var("x");
  Any let = Let(x, 5, Add(x, Add(x, 7)));
  // Every int + 1: the variable's width changes at its definition, and its uses become the same
  // new variable (through the remap), not three separate copies.
  Any out = Map(let, {Entry(kTVMFFIInt, PlusOne())});
  const MLetObj* new_let = As<MLetObj>(out);
  ASSERT_NE(new_let, nullptr);
  EXPECT_FALSE(Same(out, let));
  EXPECT_EQ(As<MVarObj>(new_let->var)->bits, 33);
  EXPECT_EQ(new_let->value.cast<int64_t>(), 6);
  const MAddObj* body = As<MAddObj>(new_let->body);
  EXPECT_TRUE(Same(body->lhs, new_let->var));
  EXPECT_TRUE(Same(As<MAddObj>(body->rhs)->lhs, new_let->var));
  EXPECT_EQ(As<MAddObj>(body->rhs)->rhs.cast<int64_t>(), 8);
  // The source is untouched.
  EXPECT_EQ(As<MVarObj>(x)->bits, 32);
  EXPECT_TRUE(Same(As<MLetObj>(let)->var, x));

  // Region-aware callbacks see where each occurrence is: the definition, then the uses.
  std::vector<int64_t> regions;
  Function on_var = Function::FromTyped([&](AnyView v, int64_t kind) {
    regions.push_back(kind);
    return Any(v);
  });
  Map(let, {}, kPost, {Entry(MVarObj::RuntimeTypeIndex(), on_var)});
  EXPECT_EQ(regions, (std::vector<int64_t>{kTVMFFIDefRegionKindSimple, 0, 0}));
}

TEST(StructuralMutate, CallbacksOwnTheRewrite) {
  Function mutate = Function::GetGlobalRequired("ffi.StructuralMutate");
  Function default_mutate = Function::GetGlobalRequired("ffi.StructuralMutatorDefaultMutate");
  Function remap_get = Function::GetGlobalRequired("ffi.StructuralMutatorVarRemapGet");
  Function remap_set = Function::GetGlobalRequired("ffi.StructuralMutatorVarRemapSet");
  Any x = Var("x"), y = Var("y", 8);
  // Substitute x by y through the remap; ints double; an Add is rebuilt by default.
  std::vector<int64_t> modes;
  Function on_let =
      Function::FromTyped([&](AnyView let, ffi::StructuralMutator m, int64_t mode) -> Any {
        modes.push_back(mode);
        remap_set(m, As<MLetObj>(Any(let))->var, y);
        EXPECT_TRUE(Same(remap_get(m, As<MLetObj>(Any(let))->var), y));
        return As<MLetObj>(Any(let))->body.cast<ObjectRef>().defined()
                   ? default_mutate(m, As<MLetObj>(Any(let))->body)
                   : Any();
      });
  Function twice = Function::FromTyped([](int64_t v, ffi::StructuralMutator) { return v * 2; });
  Any root = Let(x, 1, Add(x, 3));
  Any out = mutate(root, Array<Any>{Array<Any>{MLetObj::RuntimeTypeIndex(), on_let, true},
                                    Array<Any>{kTVMFFIInt, twice, false}});
  const MAddObj* add = As<MAddObj>(out);
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(Same(add->lhs, y));
  EXPECT_EQ(add->rhs.cast<int64_t>(), 6);
  EXPECT_EQ(modes, (std::vector<int64_t>{0}));  // the caller still holds the root
  // A miss reads as None; a remap key must be an object.
  Function probe = Function::FromTyped([&](AnyView v, ffi::StructuralMutator m) -> Any {
    EXPECT_EQ(remap_get(m, x), nullptr);
    EXPECT_EQ(ExpectError([&] { remap_get(m, 1); }).kind(), "TypeError");
    return Any(v);
  });
  mutate(x, Array<Any>{Any(Array<Any>{kAny, probe, false})});
}

/*! \brief A mutator written against the header alone: adds one to every int, in place where the
 * caller allows. Its remap is a std::map. */
class PlusOneMutator : public ffi::StructuralMutatorObj {
 public:
  PlusOneMutator() : StructuralMutatorObj(&kTable) {}

 private:
  template <ffi::InplaceMode mode>
  static TVMFFIAny Step(StructuralMutatorObj* self, AnyView value) noexcept {
    if (value.type_index() == kTVMFFIInt) return Any(value.cast<int64_t>() + 1).release();
    return self->DefaultMutateExpected(value, mode).data().release();
  }
  static TVMFFIAny Get(StructuralMutatorObj* self, AnyView var) noexcept {
    auto& remap = static_cast<PlusOneMutator*>(self)->remap_;
    auto it = remap.find(var.raw()->v_obj);
    return it == remap.end() ? TVMFFIAny{} : Any(it->second).release();
  }
  static TVMFFIAny Set(StructuralMutatorObj* self, AnyView var, AnyView mapped) noexcept {
    static_cast<PlusOneMutator*>(self)->remap_[var.raw()->v_obj] = Any(mapped);
    return TVMFFIAny{};
  }
  static constexpr ffi::StructuralMutatorVTable kTable{&Step<ffi::InplaceMode::kDisallow>,
                                                       &Step<ffi::InplaceMode::kAllow>, &Get, &Set};
  std::map<const void*, Any> remap_;
};

TEST(StructuralMutate, InPlaceOnlyWhenUniquelyOwned) {
  auto mutator = ffi::make_object<PlusOneMutator>();
  // A list and a dict that nothing else references change in place and keep their identity.
  Any list = ffi::List<Any>{1, 2};
  Any out = mutator->Mutate(list, ffi::InplaceMode::kAllow);
  EXPECT_TRUE(Same(out, list));
  EXPECT_EQ(list.cast<ffi::List<Any>>()[1].cast<int64_t>(), 3);
  Any dict = ffi::Dict<Any, Any>{{String("a"), 1}};
  out = mutator->Mutate(dict, ffi::InplaceMode::kAllow);
  EXPECT_TRUE(Same(out, dict));
  auto changed = dict.cast<ffi::Dict<Any, Any>>();
  EXPECT_EQ(changed.at(String("a")).cast<int64_t>(), 2);
  // Shared, or without permission: copy on write.
  Any other = list;
  out = mutator->Mutate(list, ffi::InplaceMode::kAllow);
  EXPECT_FALSE(Same(out, list));
  EXPECT_EQ(list.cast<ffi::List<Any>>()[1].cast<int64_t>(), 3);
  EXPECT_EQ(out.cast<ffi::List<Any>>()[1].cast<int64_t>(), 4);
  Any arr = Array<Any>{1};
  out = mutator->Mutate(arr, ffi::InplaceMode::kAllow);
  EXPECT_FALSE(Same(out, arr));
  EXPECT_EQ(arr.cast<Array<Any>>()[0].cast<int64_t>(), 1);
  // A value without parts is unchanged.
  Any kept = mutator->MutateExpected(String("s")).value();
  EXPECT_TRUE(ffi::Unchanged::In(kept));
}

TEST(StructuralMutate, Errors) {
  // A changed field of a type that cannot be copied.
  Any pinned = ObjectRef(ffi::make_object<MPinnedObj>(1));
  EXPECT_EQ(ExpectError([&] { Map(pinned, {Entry(kTVMFFIInt, PlusOne())}); }).kind(), "TypeError");
  // Unchanged, it is fine.
  EXPECT_TRUE(Same(Map(pinned, {Entry(kTVMFFIStr, PlusOne())}), pinned));
  // Bad entries and orders; a callback's own error passes through with its kind.
  EXPECT_EQ(ExpectError([&] { Map(1, {}, 7); }).kind(), "ValueError");
  EXPECT_EQ(ExpectError([&] { Map(1, {Array<Any>{1}}); }).kind(), "TypeError");
  Function mutate = Function::GetGlobalRequired("ffi.StructuralMutate");
  EXPECT_EQ(ExpectError([&] { mutate(1, Array<Any>{Entry(kAny, PlusOne())}); }).kind(),
            "TypeError");  // a mutate entry has three elements
  Function raise = Function::FromTyped([](AnyView) -> Any { FFI_THROW(KeyError) << "inner"; });
  EXPECT_EQ(ExpectError([&] { Map(Array<Any>{1}, {Entry(kTVMFFIInt, raise)}); }).kind(),
            "KeyError");
}

}  // namespace
