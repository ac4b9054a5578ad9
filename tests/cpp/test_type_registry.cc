// The type registry's C functions: type keys to indices, type information and ancestors, index
// slots reserved for subclasses, errors for bad parents or depths, and concurrent registration.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::make_object;
using ffi::Object;

class RegBaseObj : public Object {
 public:
  FFI_DECLARE_OBJECT_INFO("test.registry.Base", RegBaseObj, Object);
};

class RegMidObj : public RegBaseObj {
 public:
  FFI_DECLARE_OBJECT_INFO("test.registry.Mid", RegMidObj, RegBaseObj);
};

class RegLeafObj final : public RegMidObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("test.registry.Leaf", RegLeafObj, RegMidObj);
};

/*! \brief A type reserving index slots for its direct subclasses. */
class SlotBaseObj : public Object {
 public:
  static constexpr int32_t _type_child_slots = 2;
  static constexpr bool _type_child_slots_can_overflow = true;
  FFI_DECLARE_OBJECT_INFO("test.registry.SlotBase", SlotBaseObj, Object);
};

class SlotChildObj final : public SlotBaseObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("test.registry.SlotChild", SlotChildObj, SlotBaseObj);
};

/*! \brief Allocates (or finds) the index of type `key` under `parent` through the C function. */
int32_t AllocChild(const char* key, int32_t parent, int32_t depth, int32_t slots = 0,
                   int32_t can_overflow = 1) {
  TVMFFIByteArray k = Bytes(key);
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, slots, can_overflow, parent);
}

TEST(TypeRegistry, TypeKeyToIndexKnownAndUnknown) {
  int32_t index = -1;
  TVMFFIByteArray key = Bytes("ffi.Tensor");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, kTVMFFITensor);
  int32_t counted = RegBaseObj::RuntimeTypeIndex();  // registers the type on first use
  key = Bytes("test.registry.Base");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, counted);

  EXPECT_EQ(RaisedKindAndClear(/*with_message=*/true), "");
  index = 12345;
  key = Bytes("test.registry.NeverRegistered");
  EXPECT_NE(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, 12345);  // untouched on failure
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(TVMFFIObjectGetTypeIndex(err), kTVMFFIError);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  EXPECT_EQ(std::string(cell->kind.data, cell->kind.size), "KeyError");
  EXPECT_NE(
      std::string(cell->message.data, cell->message.size).find("test.registry.NeverRegistered"),
      std::string::npos);
  TVMFFIObjectDecRef(err);
  // Moving cleared it.
  TVMFFIErrorMoveFromRaised(&err);
  EXPECT_EQ(err, nullptr);
}

TEST(TypeRegistry, StaticTypeInfo) {
  struct Expected {
    int32_t index;
    const char* key;
  };
  for (Expected e :
       {Expected{kTVMFFINone, "None"}, Expected{kTVMFFIInt, "int"}, Expected{kTVMFFIBool, "bool"},
        Expected{kTVMFFIFloat, "float"}, Expected{kTVMFFIObject, "ffi.Object"},
        Expected{kTVMFFIStr, "ffi.String"}, Expected{kTVMFFIBytes, "ffi.Bytes"},
        Expected{kTVMFFIError, "ffi.Error"}, Expected{kTVMFFIFunction, "ffi.Function"},
        Expected{kTVMFFIShape, "ffi.Shape"}, Expected{kTVMFFITensor, "ffi.Tensor"},
        Expected{kTVMFFIModule, "ffi.Module"}}) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(e.index);
    ASSERT_NE(info, nullptr) << e.key;
    EXPECT_EQ(info->type_index, e.index) << e.key;
    EXPECT_EQ(std::string(info->type_key.data, info->type_key.size), e.key);
    // Keys map back to their index.
    int32_t back = -1;
    TVMFFIByteArray k = Bytes(e.key);
    ASSERT_EQ(TVMFFITypeKeyToIndex(&k, &back), 0) << e.key;
    EXPECT_EQ(back, e.index);
  }
  const TVMFFITypeInfo* object = TVMFFIGetTypeInfo(kTVMFFIObject);
  EXPECT_EQ(object->type_depth, 0);
  const TVMFFITypeInfo* tensor = TVMFFIGetTypeInfo(kTVMFFITensor);
  ASSERT_EQ(tensor->type_depth, 1);
  EXPECT_EQ(tensor->type_ancestors[0], object);
  EXPECT_EQ(tensor->type_ancestors[0]->type_index, kTVMFFIObject);
  // Indices never registered.
  EXPECT_EQ(TVMFFIGetTypeInfo(-5), nullptr);
  EXPECT_EQ(TVMFFIGetTypeInfo(kTVMFFIStaticObjectBegin - 1), nullptr);
  EXPECT_EQ(TVMFFIGetTypeInfo(1 << 30), nullptr);
}

TEST(TypeRegistry, AncestorsOfUserSubclass) {
  const TVMFFITypeInfo* leaf = TVMFFIGetTypeInfo(RegLeafObj::RuntimeTypeIndex());
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->type_index, RegLeafObj::RuntimeTypeIndex());
  EXPECT_EQ(std::string(leaf->type_key.data, leaf->type_key.size), "test.registry.Leaf");
  ASSERT_EQ(leaf->type_depth, 3);
  EXPECT_EQ(RegLeafObj::_type_depth, 3);
  ASSERT_NE(leaf->type_ancestors, nullptr);
  EXPECT_EQ(leaf->type_ancestors[0]->type_index, kTVMFFIObject);
  EXPECT_EQ(leaf->type_ancestors[1]->type_index, RegBaseObj::RuntimeTypeIndex());
  EXPECT_EQ(leaf->type_ancestors[2]->type_index, RegMidObj::RuntimeTypeIndex());
  EXPECT_EQ(
      std::string(leaf->type_ancestors[2]->type_key.data, leaf->type_ancestors[2]->type_key.size),
      "test.registry.Mid");
  // The ancestors are the registry's own records.
  EXPECT_EQ(leaf->type_ancestors[1], TVMFFIGetTypeInfo(RegBaseObj::RuntimeTypeIndex()));

  const TVMFFITypeInfo* counted = TVMFFIGetTypeInfo(RegBaseObj::RuntimeTypeIndex());
  ASSERT_EQ(counted->type_depth, 1);
  EXPECT_EQ(counted->type_ancestors[0]->type_index, kTVMFFIObject);
}

TEST(TypeRegistry, QueryModeDoesNotRegister) {
  TVMFFIByteArray key = Bytes("test.registry.QueriedOnly");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, -2), -2);
  int32_t index = 0;
  EXPECT_NE(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_NE(RaisedKindAndClear(/*with_message=*/true).find("KeyError"), std::string::npos);
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, -2), -2);
  // A known key in query mode.
  TVMFFIByteArray tensor = Bytes("ffi.Tensor");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&tensor, -1, 1, 0, 1, -2), kTVMFFITensor);
  EXPECT_EQ(RaisedKindAndClear(/*with_message=*/true), "");
}

TEST(TypeRegistry, ReservedChildSlotsOfCppType) {
  int32_t base = SlotBaseObj::RuntimeTypeIndex();
  int32_t child = SlotChildObj::RuntimeTypeIndex();
  EXPECT_GE(base, kTVMFFIDynObjectBegin);
  EXPECT_GT(child, base);
  EXPECT_LE(child, base + SlotBaseObj::_type_child_slots);
  EXPECT_TRUE(make_object<SlotChildObj>()->IsInstance<SlotBaseObj>());
  // Types allocated later never land inside the reserved range.
  int32_t later = AllocChild("test.registry.AfterSlotBase", kTVMFFIObject, 1);
  EXPECT_GE(later, kTVMFFIDynObjectBegin);
  EXPECT_TRUE(later < base || later > base + SlotBaseObj::_type_child_slots) << later;
}

TEST(TypeRegistry, ChildrenFillTheParentsSlotsThenOverflow) {
  TVMFFIByteArray pkey = Bytes("test.registry.SlotsWithOverflow");
  int32_t parent = TVMFFITypeGetOrAllocIndex(&pkey, -1, 1, 3, 1, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin);
  std::vector<int32_t> children;
  for (const char* key : {"test.registry.SlotsWithOverflow.A", "test.registry.SlotsWithOverflow.B",
                          "test.registry.SlotsWithOverflow.C"}) {
    children.push_back(AllocChild(key, parent, 2));
  }
  EXPECT_EQ(children, (std::vector<int32_t>{parent + 1, parent + 2, parent + 3}));
  int32_t overflow = AllocChild("test.registry.SlotsWithOverflow.D", parent, 2);
  EXPECT_GE(overflow, kTVMFFIDynObjectBegin);
  EXPECT_GT(overflow, parent + 3);
  // The overflowed child is still a child.
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(overflow);
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->type_depth, 2);
  EXPECT_EQ(info->type_ancestors[1]->type_index, parent);
  EXPECT_EQ(RaisedKindAndClear(/*with_message=*/true), "");
}

TEST(TypeRegistry, ExhaustedSlotsWithoutOverflowIsAnError) {
  TVMFFIByteArray pkey = Bytes("test.registry.SlotsNoOverflow");
  int32_t parent = TVMFFITypeGetOrAllocIndex(&pkey, -1, 1, 2, 0, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin);
  int32_t a = AllocChild("test.registry.SlotsNoOverflow.A", parent, 2);
  int32_t b = AllocChild("test.registry.SlotsNoOverflow.B", parent, 2);
  EXPECT_EQ(a, parent + 1);
  EXPECT_EQ(b, parent + 2);
  EXPECT_EQ(AllocChild("test.registry.SlotsNoOverflow.C", parent, 2), -1);
  std::string err = RaisedKindAndClear(/*with_message=*/true);
  EXPECT_EQ(err.rfind("ValueError: ", 0), 0u) << err;
  EXPECT_NE(err.find("test.registry.SlotsNoOverflow.C"), std::string::npos) << err;
  // The failed key was not registered.
  TVMFFIByteArray ckey = Bytes("test.registry.SlotsNoOverflow.C");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&ckey, -1, 2, 0, 0, -2), -2);
}

TEST(TypeRegistry, NestedReservedSlotsStayDisjoint) {
  // A parent reserving 8 slots; its first child reserves 2 slots of its own. Every index handed
  // out must be distinct, and the whole subtree should live in the parent's reserved range.
  TVMFFIByteArray pkey = Bytes("test.registry.Nested");
  int32_t parent = TVMFFITypeGetOrAllocIndex(&pkey, -1, 1, 8, 0, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin);
  int32_t a = AllocChild("test.registry.Nested.A", parent, 2, /*slots=*/2, /*can_overflow=*/0);
  int32_t b = AllocChild("test.registry.Nested.B", parent, 2, 0, 0);
  int32_t a1 = AllocChild("test.registry.Nested.A.1", a, 3, 0, 0);
  int32_t a2 = AllocChild("test.registry.Nested.A.2", a, 3, 0, 0);
  int32_t c = AllocChild("test.registry.Nested.C", parent, 2, 0, 0);
  EXPECT_EQ(RaisedKindAndClear(/*with_message=*/true), "");
  std::vector<int32_t> all{parent, a, b, a1, a2, c};
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_GT(all[i], 0) << "registration " << i << " failed";
    for (size_t j = i + 1; j < all.size(); ++j) {
      EXPECT_NE(all[i], all[j]) << "registrations " << i << " and " << j << " share an index";
    }
  }
  for (int32_t idx : {a, b, a1, a2, c}) {
    EXPECT_GT(idx, parent);
    EXPECT_LE(idx, parent + 8);
  }
  // Whatever was allocated is registered under the right key and parent.
  const TVMFFITypeInfo* info_a1 = TVMFFIGetTypeInfo(a1);
  ASSERT_NE(info_a1, nullptr);
  EXPECT_EQ(std::string(info_a1->type_key.data, info_a1->type_key.size),
            "test.registry.Nested.A.1");
  ASSERT_EQ(info_a1->type_depth, 3);
  EXPECT_EQ(info_a1->type_ancestors[2]->type_index, a);
}

TEST(TypeRegistry, BadParentOrDepthIsAnError) {
  EXPECT_EQ(AllocChild("test.registry.OrphanOfMissingParent", 9999, 1), -1);
  std::string err = RaisedKindAndClear(/*with_message=*/true);
  EXPECT_EQ(err.rfind("KeyError: ", 0), 0u) << err;
  EXPECT_EQ(AllocChild("test.registry.WrongDepth", kTVMFFIObject, 5), -1);
  err = RaisedKindAndClear(/*with_message=*/true);
  EXPECT_EQ(err.rfind("ValueError: ", 0), 0u) << err;
  TVMFFIByteArray key = Bytes("test.registry.WrongDepth");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, -2), -2);
}

TEST(TypeRegistry, ConcurrentRegistrationOfOneKeyAgrees) {
  constexpr int kThreads = 8;
  constexpr int kKeys = 4;
  const char* keys[kKeys] = {"test.registry.Concurrent.K0", "test.registry.Concurrent.K1",
                             "test.registry.Concurrent.K2", "test.registry.Concurrent.K3"};
  std::vector<std::vector<int32_t>> got(kThreads, std::vector<int32_t>(kKeys, -7));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int k = 0; k < kKeys; ++k) got[t][(k + t) % kKeys] = 0;
      for (int k = 0; k < kKeys; ++k) {
        int kk = (k + t) % kKeys;  // threads register the keys in different orders
        got[t][kk] = AllocChild(keys[kk], kTVMFFIObject, 1);
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_GE(got[0][k], kTVMFFIDynObjectBegin);
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(got[t][k], got[0][k]) << keys[k];
    for (int k2 = k + 1; k2 < kKeys; ++k2) EXPECT_NE(got[0][k], got[0][k2]);
  }
}

}  // namespace
