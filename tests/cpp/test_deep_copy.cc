// ffi.DeepCopy (src/runtime/extra/deep_copy.cc) and the enum types (src/runtime/enum_types.cc):
// copies keep the input's sharing and its cycles (through lists, dicts and object fields, as values
// and as map keys, whatever container is the root); enum singletons are shared; a type that cannot
// be copied is a RuntimeError; enums expose `value` and print by name.
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <string>

#include "testing.h"

namespace {

namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Array;
using ffi::Dict;
using ffi::Function;
using ffi::List;
using ffi::Map;
using ffi::ObjectRef;
using ffi::String;

/*! \brief An object with a mutable field, so that a cycle can pass through it. */
class HolderObj : public ffi::Object {
 public:
  Any item;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.deep_copy.Holder", HolderObj, ffi::Object);
};

/*! \brief An object with a field but no copy constructor: deep copy cannot copy it. */
class PinnedObj : public ffi::Object {
 public:
  int64_t value = 0;
  PinnedObj() = default;
  PinnedObj(const PinnedObj&) = delete;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.deep_copy.Pinned", PinnedObj, ffi::Object);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<HolderObj>().def_rw("item", &HolderObj::item);
  refl::ObjectDef<PinnedObj>().def_ro("value", &PinnedObj::value);
}

Any DeepCopy(const Any& v) { return Function::GetGlobalRequired("ffi.DeepCopy")(v); }

bool Same(const Any& a, const Any& b) { return a.raw()->v_obj == b.raw()->v_obj; }

ObjectRef MakeHolder() { return ObjectRef(ffi::make_object<HolderObj>()); }
HolderObj* AsHolder(const Any& v) {
  return static_cast<HolderObj*>(const_cast<ffi::Object*>(v.cast<ObjectRef>().get()));
}

/*!
 * \brief An enum singleton made through the reflection creator. The payload enums' `value` is the
 * same storage as their index, and the creator wants every field, so it is given the same value.
 */
Any MakeEnum(const std::string& type_key, int64_t int_index, const char* name) {
  Function make = Function::GetGlobalRequired("ffi.MakeObjectFromPackedArgs");
  if (type_key == "ffi.IntEnum") {
    return make(type_key, "_int_index", int_index, "_str_index", String(name), "value", int_index);
  }
  if (type_key == "ffi.StrEnum") {
    return make(type_key, "_int_index", int_index, "_str_index", String(name), "value",
                String(name));
  }
  return make(type_key, "_int_index", int_index, "_str_index", String(name));
}

TEST(DeepCopy, MapRootWithListBackReference) {
  List<Any> l;
  Map<Any, Any> m{{String("l1"), l}, {String("l2"), l}};
  l.push_back(m);
  Map<Any, Any> out = DeepCopy(m).cast<Map<Any, Any>>();
  EXPECT_FALSE(Same(out, m));
  Any l1 = out.at(String("l1"));
  EXPECT_FALSE(Same(l1, l));
  EXPECT_TRUE(Same(l1, out.at(String("l2"))));  // shared once, copied once
  EXPECT_TRUE(Same(l1.cast<List<Any>>()[0], out));
  l.clear();  // Break the cycles so the test leaks nothing.
  l1.cast<List<Any>>().clear();
}

TEST(DeepCopy, ArrayRootWithDictBackReference) {
  Dict<Any, Any> d;
  Array<Any> a{d};
  d.Set(String("self"), a);
  Array<Any> out = DeepCopy(a).cast<Array<Any>>();
  EXPECT_FALSE(Same(out, a));
  EXPECT_FALSE(Same(out[0], d));
  EXPECT_TRUE(Same(out[0].cast<Dict<Any, Any>>().at(String("self")), out));
  d.clear();
  out[0].cast<Dict<Any, Any>>().clear();
}

TEST(DeepCopy, RootAsKeyOfAnInnerDict) {
  Dict<Any, Any> d;
  Map<Any, Any> root{{String("d"), d}};
  d.Set(root, 1);
  Map<Any, Any> out = DeepCopy(root).cast<Map<Any, Any>>();
  Dict<Any, Any> out_d = out.at(String("d")).cast<Dict<Any, Any>>();
  ASSERT_EQ(out_d.size(), 1u);
  Any key = (*out_d.begin()).first;
  EXPECT_TRUE(Same(key, out));
  EXPECT_FALSE(Same(key, root));
  EXPECT_EQ(out_d.at(out).cast<int64_t>(), 1);  // the key is found by the copy
  d.clear();
  out_d.clear();
}

TEST(DeepCopy, ListAsMapKeyLeadingBackToTheMap) {
  List<Any> key;
  Map<Any, Any> m{{key, 1}};
  key.push_back(m);
  Map<Any, Any> out = DeepCopy(m).cast<Map<Any, Any>>();
  Any out_key = (*out.begin()).first;
  EXPECT_EQ(out_key.type_index(), kTVMFFIList);
  EXPECT_FALSE(Same(out_key, key));
  EXPECT_TRUE(Same(out_key.cast<List<Any>>()[0], out));
  key.clear();
  out_key.cast<List<Any>>().clear();
}

TEST(DeepCopy, CycleThroughObjectFields) {
  // Array -> Holder -> Array -> Holder -> back to the root Array.
  ObjectRef inner = MakeHolder(), outer = MakeHolder();
  AsHolder(outer)->item = Array<Any>{inner};
  Array<Any> root{outer};
  AsHolder(inner)->item = root;
  Array<Any> out = DeepCopy(root).cast<Array<Any>>();
  EXPECT_FALSE(Same(out, root));
  Any outer_copy = out[0];
  EXPECT_FALSE(Same(outer_copy, outer));
  Any inner_copy = AsHolder(outer_copy)->item.cast<Array<Any>>()[0];
  EXPECT_FALSE(Same(inner_copy, inner));
  EXPECT_TRUE(Same(AsHolder(inner_copy)->item, out));
  AsHolder(inner)->item = nullptr;
  AsHolder(inner_copy)->item = nullptr;
}

TEST(DeepCopy, LargeMapKeepsItsIdentityWhileGrowing) {
  // Enough entries that the copy's table grows past its first storage while being filled.
  List<Any> back;
  Map<Any, Any> m;
  for (int64_t i = 0; i < 100; ++i) m.Set(i, i * 2);
  m.Set(String("back"), back);
  back.push_back(m);
  Map<Any, Any> out = DeepCopy(m).cast<Map<Any, Any>>();
  EXPECT_EQ(out.size(), 101u);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(out.at(i).cast<int64_t>(), i * 2);
  EXPECT_TRUE(Same(out.at(String("back")).cast<List<Any>>()[0], out));
  back.clear();
  out.at(String("back")).cast<List<Any>>().clear();
}

TEST(DeepCopy, NonCopyableTypeIsRuntimeError) {
  ObjectRef pinned(ffi::make_object<PinnedObj>());
  for (const Any& input : {Any(pinned), Any(Array<Any>{pinned}), Any(Map<Any, Any>{{1, pinned}})}) {
    try {
      DeepCopy(input);
      FAIL() << "expected an error";
    } catch (const ffi::Error& e) {
      EXPECT_EQ(e.kind(), "RuntimeError");
      EXPECT_NE(std::string(e.message()).find("not copy-constructible"), std::string::npos);
      EXPECT_NE(std::string(e.message()).find("testing.deep_copy.Pinned"), std::string::npos);
    }
  }
  EXPECT_EQ(pinned.use_count(), 1);  // nothing kept by the failed copies
}

TEST(Enum, SingletonsAreSharedByDeepCopy) {
  for (const char* key : {"ffi.Enum", "ffi.IntEnum", "ffi.StrEnum"}) {
    Any e = MakeEnum(key, 3, "three");
    EXPECT_TRUE(Same(DeepCopy(e), e)) << key;
    Array<Any> holder{e, Map<Any, Any>{{String("k"), e}}};
    Array<Any> out = DeepCopy(holder).cast<Array<Any>>();
    EXPECT_FALSE(Same(out, holder));
    EXPECT_TRUE(Same(out[0], e));
    EXPECT_TRUE(Same(out[1].cast<Map<Any, Any>>().at(String("k")), e));
  }
}

TEST(Enum, ValueAliasesThePayloadIndex) {
  Any i = MakeEnum("ffi.IntEnum", -7, "neg");
  EXPECT_EQ(refl::FieldGetter("ffi.IntEnum", "value")(i.cast<ObjectRef>().get()).cast<int64_t>(),
            -7);
  Any s = MakeEnum("ffi.StrEnum", 0, "smem");
  EXPECT_EQ(refl::FieldGetter("ffi.StrEnum", "value")(s.cast<ObjectRef>().get()).cast<String>(),
            "smem");
}

TEST(Enum, PrintsByName) {
  Function repr = Function::GetGlobalRequired("ffi.ReprPrint");
  EXPECT_EQ(repr(MakeEnum("ffi.IntEnum", 20, "high")).cast<String>(), "ffi.IntEnum.high");
  EXPECT_EQ(repr(Array<Any>{MakeEnum("ffi.Enum", 0, "ready")}).cast<String>(), "(ffi.Enum.ready,)");
}

TEST(DeepCopy, NestingDeeperThanTheStackIsARecursionError) {
  Array<Any> deep;
  for (int i = 0; i < 100000; ++i) deep = Array<Any>{Any(deep)};
  std::string kind, message;
  ffi_testing::RunOnSmallStack([&] {
    try {
      DeepCopy(deep);
    } catch (const ffi::Error& e) {
      kind = e.kind();
      message = e.message();
    }
  });
  EXPECT_EQ(kind, "RecursionError");
  EXPECT_NE(message.find("nests deeper than the stack allows"), std::string::npos) << message;
  EXPECT_EQ(deep.size(), 1u);
  Array<Any> shallow{Any(Array<Any>{1})};
  Array<Any> copied = DeepCopy(shallow).cast<Array<Any>>();
  EXPECT_FALSE(Same(copied, shallow));
  EXPECT_EQ(copied[0].cast<Array<Any>>()[0].cast<int>(), 1);
}

TEST(DeepCopy, HostTensorsAreCopiedOthersRefused) {
  int live = 0;
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(ffi_testing::CountingCPUAlloc{nullptr, &live}, {2, 3},
                                           ffi_testing::kF32, ffi_testing::kCPU);
  for (int i = 0; i < 6; ++i) static_cast<float*>(t.data_ptr())[i] = static_cast<float>(i);
  // Immutable leaves beside it stay shared: strings, bytes, shapes.
  String text("a string longer than seven bytes");
  ffi::Shape shape({2, 3});
  Array<Any> leaves = DeepCopy(Array<Any>{text, shape, t}).cast<Array<Any>>();
  EXPECT_TRUE(Same(leaves[0], text) && Same(leaves[1], shape));
  EXPECT_FALSE(Same(leaves[2], t));
  Array<Any> both{t, t};
  Array<Any> copied = DeepCopy(both).cast<Array<Any>>();
  ffi::Tensor c = copied[0].cast<ffi::Tensor>();
  EXPECT_TRUE(Same(copied[0], copied[1]));  // shared once, copied once
  EXPECT_NE(c.data_ptr(), t.data_ptr());
  static_cast<float*>(t.data_ptr())[0] = 42.0f;
  EXPECT_EQ(static_cast<float*>(c.data_ptr())[5], 5.0f);
  EXPECT_EQ(static_cast<float*>(c.data_ptr())[0], 0.0f);
  // Memory labelled as a GPU's is not the host's to copy.
  ffi::Tensor gpu = ffi::Tensor::FromNDAlloc(ffi_testing::CountingCPUAlloc{nullptr, &live}, {4},
                                             ffi_testing::kF32, DLDevice{kDLCUDA, 0});
  ffi::Error e = ffi_testing::CatchError([&] { DeepCopy(gpu); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("cuda:0"), std::string::npos) << e.message();
}

}  // namespace
