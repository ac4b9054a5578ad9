// Object, ObjectPtr, WeakObjectPtr and ObjectRef: reference counts, weak references, user-defined
// types in the runtime's type registry, and the registry's C functions.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::make_object;
using ffi::Object;
using ffi::ObjectPtr;
using ffi::ObjectRef;
using ffi::WeakObjectPtr;
using ffi::detail::ObjectUnsafe;

/*! \brief Destructor runs of the test objects below. */
std::atomic<int> g_destroyed{0};

class CountedObj : public Object {
 public:
  explicit CountedObj(int v = 0) : value(v) {}
  ~CountedObj() { g_destroyed.fetch_add(1); }
  int value;
  FFI_DECLARE_OBJECT_INFO("test.object.Counted", CountedObj, Object);
};

class DerivedObj : public CountedObj {
 public:
  explicit DerivedObj(int v = 0) : CountedObj(v) {}
  FFI_DECLARE_OBJECT_INFO("test.object.Derived", DerivedObj, CountedObj);
};

class LeafObj final : public DerivedObj {
 public:
  explicit LeafObj(int v = 0) : DerivedObj(v) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("test.object.Leaf", LeafObj, DerivedObj);
};

class UnrelatedObj : public Object {
 public:
  FFI_DECLARE_OBJECT_INFO("test.object.Unrelated", UnrelatedObj, Object);
};

class CountedRef : public ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(CountedRef, ObjectRef, CountedObj);
};

/*! \brief A type reserving index slots for its direct subclasses. */
class SlotBaseObj : public Object {
 public:
  static constexpr int32_t _type_child_slots = 2;
  static constexpr bool _type_child_slots_can_overflow = true;
  FFI_DECLARE_OBJECT_INFO("test.object.SlotBase", SlotBaseObj, Object);
};

class SlotChildObj final : public SlotBaseObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("test.object.SlotChild", SlotChildObj, SlotBaseObj);
};

class ThrowingObj : public Object {
 public:
  explicit ThrowingObj(bool do_throw) {
    if (do_throw) throw std::runtime_error("constructor failed");
  }
  ~ThrowingObj() { g_destroyed.fetch_add(1); }
  FFI_DECLARE_OBJECT_INFO("test.object.Throwing", ThrowingObj, Object);
};

/*! \brief Deleter calls (their flags) seen through RecordingDeleter. */
std::vector<int> g_deleter_calls;

template <typename T>
void RecordingDeleter(void* self, int flags) {
  g_deleter_calls.push_back(flags);
  ffi::detail::ObjectDeleter<T>(self, flags);
}

/*! \brief Routes the object's deleter through RecordingDeleter (still destroying and freeing). */
template <typename T>
void RecordDeleterCalls(const ObjectPtr<T>& p) {
  g_deleter_calls.clear();
  ObjectUnsafe::Header(p.get())->deleter = RecordingDeleter<T>;
}

uint64_t CombinedCount(const Object* obj) {
  return __atomic_load_n(&ObjectUnsafe::Header(obj)->combined_ref_count, __ATOMIC_SEQ_CST);
}

TVMFFIByteArray Bytes(const char* s) { return TVMFFIByteArray{s, std::strlen(s)}; }

int32_t AllocChild(const char* key, int32_t parent, int32_t depth, int32_t slots = 0,
                   int32_t can_overflow = 1) {
  TVMFFIByteArray k = Bytes(key);
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, slots, can_overflow, parent);
}

class ObjectTest : public ::testing::Test {
 protected:
  void SetUp() override { g_destroyed = 0; }
};

// ---------------------------------------------------------------------------------------------
// Strong references
// ---------------------------------------------------------------------------------------------

TEST_F(ObjectTest, MakeObjectStartsWithOneStrongAndOneWeak) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>(7);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->value, 7);
  EXPECT_EQ(p.use_count(), 1u);
  EXPECT_EQ(CombinedCount(p.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
  EXPECT_EQ(p->type_index(), CountedObj::RuntimeTypeIndex());
  EXPECT_EQ(reinterpret_cast<void*>(ObjectUnsafe::Header(p.get())), static_cast<void*>(p.get()));
}

TEST_F(ObjectTest, StrongCountsThroughCopiesMovesAndReset) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>(1);
  {
    ObjectPtr<CountedObj> copy = p;
    EXPECT_EQ(p.use_count(), 2u);
    EXPECT_TRUE(copy == p);
    ObjectPtr<CountedObj> moved(std::move(copy));
    EXPECT_TRUE(copy == nullptr);
    EXPECT_EQ(copy.use_count(), 0u);
    EXPECT_EQ(p.use_count(), 2u);
    ObjectPtr<Object> base = moved;  // converting copy
    EXPECT_EQ(p.use_count(), 3u);
    ObjectPtr<Object> base_moved(std::move(moved));  // converting move
    EXPECT_TRUE(moved == nullptr);
    EXPECT_EQ(p.use_count(), 3u);
    EXPECT_EQ(base_moved.get(), static_cast<Object*>(p.get()));
    ObjectPtr<CountedObj> assigned;
    assigned = p;
    EXPECT_EQ(p.use_count(), 4u);
    ObjectPtr<CountedObj>& alias = assigned;  // through a reference: GCC 13 warns on a plain one
    assigned = std::move(alias);              // self move-assignment keeps the reference
    EXPECT_EQ(p.use_count(), 4u);
  }
  EXPECT_EQ(p.use_count(), 1u);
  EXPECT_EQ(g_destroyed.load(), 0);

  ObjectPtr<CountedObj> other = make_object<CountedObj>(2);
  other = p;  // the old target of `other` dies
  EXPECT_EQ(g_destroyed.load(), 1);
  EXPECT_EQ(p.use_count(), 2u);
  EXPECT_EQ(other->value, 1);

  p.reset();
  EXPECT_TRUE(p == nullptr);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.use_count(), 0u);
  EXPECT_EQ(other.use_count(), 1u);
  EXPECT_EQ(g_destroyed.load(), 1);
  p.reset();  // resetting a null pointer is harmless
  other.reset();
  EXPECT_EQ(g_destroyed.load(), 2);
}

TEST_F(ObjectTest, ReleaseStealAndBorrow) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>(3);
  CountedObj* raw = p.release();
  EXPECT_TRUE(p == nullptr);
  EXPECT_EQ(raw->use_count(), 1u);
  {
    ObjectPtr<CountedObj> borrowed = ObjectPtr<CountedObj>::Borrow(raw);
    EXPECT_EQ(raw->use_count(), 2u);
  }
  EXPECT_EQ(raw->use_count(), 1u);
  EXPECT_EQ(g_destroyed.load(), 0);
  {
    ObjectPtr<CountedObj> stolen = ObjectPtr<CountedObj>::Steal(raw);
    EXPECT_EQ(stolen.use_count(), 1u);
  }
  EXPECT_EQ(g_destroyed.load(), 1);
}

TEST_F(ObjectTest, DestroyingSubclassThroughBasePointerRunsItsDestructor) {
  {
    ObjectPtr<Object> base = make_object<LeafObj>(5);
    EXPECT_EQ(base->type_index(), LeafObj::RuntimeTypeIndex());
  }
  EXPECT_EQ(g_destroyed.load(), 1);
}

TEST_F(ObjectTest, ThrowingConstructorPropagatesAndFreesTheMemory) {
  EXPECT_THROW(make_object<ThrowingObj>(true), std::runtime_error);
  EXPECT_EQ(g_destroyed.load(), 0);  // never constructed, never destroyed
  { ObjectPtr<ThrowingObj> ok = make_object<ThrowingObj>(false); }
  EXPECT_EQ(g_destroyed.load(), 1);
}

TEST_F(ObjectTest, ObjectRefCopiesMovesAndIdentity) {
  ObjectRef a(make_object<CountedObj>(4));
  EXPECT_TRUE(a.defined());
  EXPECT_EQ(a.use_count(), 1u);
  ObjectRef b = a;
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_TRUE(a.same_as(b));
  ObjectRef c = std::move(b);
  EXPECT_FALSE(b.defined());
  EXPECT_EQ(b.type_index(), kTVMFFINone);
  EXPECT_EQ(a.use_count(), 2u);
  ObjectRef d(make_object<CountedObj>(4));
  EXPECT_FALSE(a.same_as(d));  // identity, not value
  c = ObjectRef();
  EXPECT_EQ(a.use_count(), 1u);
  EXPECT_EQ(g_destroyed.load(), 0);
  a = d;
  EXPECT_EQ(g_destroyed.load(), 1);
  EXPECT_EQ(d.use_count(), 2u);
}

TEST_F(ObjectTest, CApiIncRefDecRefOnHeaderMadeObject) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>(9);
  TVMFFIObjectHandle h = ObjectUnsafe::Header(p.get());
  EXPECT_EQ(TVMFFIObjectGetTypeIndex(h), CountedObj::RuntimeTypeIndex());
  EXPECT_EQ(TVMFFIObjectIncRef(h), 0);
  EXPECT_EQ(p.use_count(), 2u);
  EXPECT_EQ(TVMFFIObjectIncRef(h), 0);
  EXPECT_EQ(p.use_count(), 3u);
  EXPECT_EQ(TVMFFIObjectDecRef(h), 0);
  EXPECT_EQ(TVMFFIObjectDecRef(h), 0);
  EXPECT_EQ(p.use_count(), 1u);
  EXPECT_EQ(g_destroyed.load(), 0);
  // The C API can drop the last reference, too.
  CountedObj* raw = p.release();
  EXPECT_EQ(TVMFFIObjectDecRef(ObjectUnsafe::Header(raw)), 0);
  EXPECT_EQ(g_destroyed.load(), 1);
  // Null handles are accepted.
  EXPECT_EQ(TVMFFIObjectIncRef(nullptr), 0);
  EXPECT_EQ(TVMFFIObjectDecRef(nullptr), 0);
}

// ---------------------------------------------------------------------------------------------
// Weak references
// ---------------------------------------------------------------------------------------------

TEST_F(ObjectTest, WithoutWeakRefsDestroyAndFreeHappenInOneStep) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>();
  RecordDeleterCalls(p);
  ObjectPtr<CountedObj> q = p;
  p.reset();
  EXPECT_TRUE(g_deleter_calls.empty());
  q.reset();
  EXPECT_EQ(g_deleter_calls, std::vector<int>{kTVMFFIObjectDeleterFlagBitMaskBoth});
  EXPECT_EQ(g_destroyed.load(), 1);
}

TEST_F(ObjectTest, WeakLockWhileAlive) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>(11);
  WeakObjectPtr<CountedObj> w(p);
  EXPECT_EQ(p.use_count(), 1u);  // a weak reference is not a strong one
  EXPECT_EQ(CombinedCount(p.get()), ffi::detail::kStrongOne | (2 * ffi::detail::kWeakOne));
  EXPECT_FALSE(w.expired());
  {
    ObjectPtr<CountedObj> locked = w.lock();
    ASSERT_TRUE(locked);
    EXPECT_EQ(locked.get(), p.get());
    EXPECT_EQ(locked->value, 11);
    EXPECT_EQ(p.use_count(), 2u);
    // A locked pointer keeps the object alive after the original goes.
    p.reset();
    EXPECT_EQ(g_destroyed.load(), 0);
    EXPECT_FALSE(w.expired());
    EXPECT_EQ(locked.use_count(), 1u);
  }
  EXPECT_EQ(g_destroyed.load(), 1);
  EXPECT_TRUE(w.expired());
}

TEST_F(ObjectTest, WeakLockAfterDeathAndMemoryFreedOnlyByLastWeakRef) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>(12);
  RecordDeleterCalls(p);
  const Object* addr = p.get();
  auto w1 = std::make_unique<WeakObjectPtr<CountedObj>>(p);
  auto w2 = std::make_unique<WeakObjectPtr<CountedObj>>(*w1);  // copy adds a weak reference
  EXPECT_EQ(CombinedCount(addr), ffi::detail::kStrongOne | (3 * ffi::detail::kWeakOne));

  p.reset();
  // Destroyed, not freed: the memory (and its counts) must still be readable.
  EXPECT_EQ(g_destroyed.load(), 1);
  EXPECT_EQ(g_deleter_calls, std::vector<int>{kTVMFFIObjectDeleterFlagBitMaskStrong});
  EXPECT_EQ(CombinedCount(addr), 2 * ffi::detail::kWeakOne);
  EXPECT_TRUE(w1->expired());
  EXPECT_TRUE(w2->expired());
  EXPECT_FALSE(w1->lock());
  EXPECT_FALSE(w2->lock());
  // A failed lock leaves the counts as they were.
  EXPECT_EQ(CombinedCount(addr), 2 * ffi::detail::kWeakOne);

  w1.reset();
  EXPECT_EQ(g_deleter_calls.size(), 1u);  // still not freed
  EXPECT_EQ(CombinedCount(addr), ffi::detail::kWeakOne);
  EXPECT_FALSE(w2->lock());
  w2.reset();
  EXPECT_EQ(g_deleter_calls, (std::vector<int>{kTVMFFIObjectDeleterFlagBitMaskStrong,
                                               kTVMFFIObjectDeleterFlagBitMaskWeak}));
  EXPECT_EQ(g_destroyed.load(), 1);  // destroyed exactly once
}

TEST_F(ObjectTest, WeakRefOutlivedByStrongRefFreesWithStrong) {
  ObjectPtr<CountedObj> p = make_object<CountedObj>();
  RecordDeleterCalls(p);
  { WeakObjectPtr<CountedObj> w(p); }
  EXPECT_TRUE(g_deleter_calls.empty());
  EXPECT_EQ(CombinedCount(p.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
  p.reset();
  EXPECT_EQ(g_deleter_calls, std::vector<int>{kTVMFFIObjectDeleterFlagBitMaskBoth});
}

TEST_F(ObjectTest, WeakPointerAssignmentAndDefault) {
  WeakObjectPtr<CountedObj> empty;
  EXPECT_TRUE(empty.expired());
  EXPECT_FALSE(empty.lock());
  ObjectPtr<CountedObj> a = make_object<CountedObj>(1);
  ObjectPtr<CountedObj> b = make_object<CountedObj>(2);
  WeakObjectPtr<CountedObj> w(a);
  w = WeakObjectPtr<CountedObj>(b);
  EXPECT_EQ(w.lock()->value, 2);
  // `a` no longer has a weak reference: combined count back to one of each.
  EXPECT_EQ(CombinedCount(a.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
  w = empty;
  EXPECT_TRUE(w.expired());
  EXPECT_EQ(CombinedCount(b.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
}

// ---------------------------------------------------------------------------------------------
// User-defined types
// ---------------------------------------------------------------------------------------------

TEST(ObjectType, UserTypesGetStableDynamicIndices) {
  int32_t counted = CountedObj::RuntimeTypeIndex();
  int32_t derived = DerivedObj::RuntimeTypeIndex();
  int32_t leaf = LeafObj::RuntimeTypeIndex();
  EXPECT_GE(counted, kTVMFFIDynObjectBegin);
  EXPECT_GE(derived, kTVMFFIDynObjectBegin);
  EXPECT_GE(leaf, kTVMFFIDynObjectBegin);
  EXPECT_NE(counted, derived);
  EXPECT_NE(derived, leaf);
  EXPECT_NE(counted, leaf);
  EXPECT_EQ(CountedObj::RuntimeTypeIndex(), counted);
  EXPECT_EQ(DerivedObj::RuntimeTypeIndex(), derived);
  EXPECT_EQ(LeafObj::RuntimeTypeIndex(), leaf);
  EXPECT_EQ(Object::RuntimeTypeIndex(), kTVMFFIObject);
  // The registry agrees, and re-registering the same key hands back the same index.
  int32_t looked_up = -1;
  TVMFFIByteArray key = Bytes("test.object.Derived");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &looked_up), 0);
  EXPECT_EQ(looked_up, derived);
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 1, counted), derived);
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 1, -2), derived);
}

TEST(ObjectType, GetTypeKey) {
  EXPECT_EQ(make_object<CountedObj>()->GetTypeKey(), "test.object.Counted");
  EXPECT_EQ(make_object<DerivedObj>()->GetTypeKey(), "test.object.Derived");
  EXPECT_EQ(make_object<LeafObj>()->GetTypeKey(), "test.object.Leaf");
  ObjectPtr<Object> as_base = make_object<LeafObj>();
  EXPECT_EQ(as_base->GetTypeKey(), "test.object.Leaf");
  EXPECT_EQ(ffi::String("x")->GetTypeKey(), "ffi.String");
}

TEST(ObjectType, IsInstanceFollowsTheHierarchy) {
  ObjectPtr<CountedObj> counted = make_object<CountedObj>();
  ObjectPtr<DerivedObj> derived = make_object<DerivedObj>();
  ObjectPtr<LeafObj> leaf = make_object<LeafObj>();
  ObjectPtr<UnrelatedObj> unrelated = make_object<UnrelatedObj>();

  EXPECT_TRUE(counted->IsInstance<Object>());
  EXPECT_TRUE(counted->IsInstance<CountedObj>());
  EXPECT_FALSE(counted->IsInstance<DerivedObj>());
  EXPECT_FALSE(counted->IsInstance<LeafObj>());
  EXPECT_FALSE(counted->IsInstance<UnrelatedObj>());

  EXPECT_TRUE(derived->IsInstance<Object>());
  EXPECT_TRUE(derived->IsInstance<CountedObj>());
  EXPECT_TRUE(derived->IsInstance<DerivedObj>());
  EXPECT_FALSE(derived->IsInstance<LeafObj>());
  EXPECT_FALSE(derived->IsInstance<UnrelatedObj>());

  EXPECT_TRUE(leaf->IsInstance<Object>());
  EXPECT_TRUE(leaf->IsInstance<CountedObj>());
  EXPECT_TRUE(leaf->IsInstance<DerivedObj>());
  EXPECT_TRUE(leaf->IsInstance<LeafObj>());
  EXPECT_FALSE(leaf->IsInstance<UnrelatedObj>());
  EXPECT_FALSE(leaf->IsInstance<ffi::StringObj>());

  EXPECT_TRUE(unrelated->IsInstance<Object>());
  EXPECT_TRUE(unrelated->IsInstance<UnrelatedObj>());
  EXPECT_FALSE(unrelated->IsInstance<CountedObj>());
  EXPECT_FALSE(unrelated->IsInstance<LeafObj>());

  // Built-in kinds: siblings are not instances of each other.
  ffi::String s("hello world, long enough");
  EXPECT_TRUE(s->IsInstance<ffi::StringObj>());
  EXPECT_FALSE(s->IsInstance<ffi::BytesObj>());
  EXPECT_FALSE(s->IsInstance<ffi::ErrorObj>());
  EXPECT_FALSE(s->IsInstance<CountedObj>());
}

TEST(ObjectType, ObjectRefAs) {
  CountedRef ref(make_object<DerivedObj>(3));
  ASSERT_NE(ref.as<CountedObj>(), nullptr);
  EXPECT_EQ(ref.as<CountedObj>()->value, 3);
  EXPECT_EQ(ref->value, 3);
  EXPECT_EQ(static_cast<const Object*>(ref.as<DerivedObj>()), ref.get());
  EXPECT_NE(ref.as<Object>(), nullptr);
  EXPECT_EQ(ref.as<LeafObj>(), nullptr);
  EXPECT_EQ(ref.as<UnrelatedObj>(), nullptr);
  EXPECT_EQ(ref.as<ffi::StringObj>(), nullptr);
  EXPECT_EQ(ref.type_index(), DerivedObj::RuntimeTypeIndex());

  CountedRef null_ref;
  EXPECT_FALSE(null_ref.defined());
  EXPECT_EQ(null_ref.as<Object>(), nullptr);
  EXPECT_EQ(null_ref.as<CountedObj>(), nullptr);
  EXPECT_EQ(null_ref.type_index(), kTVMFFINone);
  EXPECT_EQ(null_ref.use_count(), 0u);
}

TEST(ObjectType, ObjectRefThroughAnyChecksTheType) {
  CountedRef ref(make_object<LeafObj>(8));
  ffi::Any any = ref;
  EXPECT_EQ(any.type_index(), LeafObj::RuntimeTypeIndex());
  EXPECT_EQ(ref.use_count(), 2u);
  std::optional<CountedRef> back = any.as<CountedRef>();
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->same_as(ref));
  EXPECT_EQ(ref.use_count(), 3u);
  ffi::Any unrelated = ObjectRef(make_object<UnrelatedObj>());
  EXPECT_FALSE(unrelated.as<CountedRef>().has_value());
  EXPECT_TRUE(unrelated.as<ObjectRef>().has_value());
}

// ---------------------------------------------------------------------------------------------
// The registry's C functions
// ---------------------------------------------------------------------------------------------

TEST(TypeRegistry, TypeKeyToIndexKnownAndUnknown) {
  int32_t index = -1;
  TVMFFIByteArray key = Bytes("ffi.Tensor");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, kTVMFFITensor);
  int32_t counted = CountedObj::RuntimeTypeIndex();  // registers the type on first use
  key = Bytes("test.object.Counted");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, counted);

  EXPECT_EQ(RaisedKindAndClear(/*with_message=*/true), "");
  index = 12345;
  key = Bytes("test.object.NeverRegistered");
  EXPECT_NE(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, 12345);  // untouched on failure
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(TVMFFIObjectGetTypeIndex(err), kTVMFFIError);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  EXPECT_EQ(std::string(cell->kind.data, cell->kind.size), "KeyError");
  EXPECT_NE(std::string(cell->message.data, cell->message.size).find("test.object.NeverRegistered"),
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
  const TVMFFITypeInfo* leaf = TVMFFIGetTypeInfo(LeafObj::RuntimeTypeIndex());
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->type_index, LeafObj::RuntimeTypeIndex());
  EXPECT_EQ(std::string(leaf->type_key.data, leaf->type_key.size), "test.object.Leaf");
  ASSERT_EQ(leaf->type_depth, 3);
  EXPECT_EQ(LeafObj::_type_depth, 3);
  ASSERT_NE(leaf->type_ancestors, nullptr);
  EXPECT_EQ(leaf->type_ancestors[0]->type_index, kTVMFFIObject);
  EXPECT_EQ(leaf->type_ancestors[1]->type_index, CountedObj::RuntimeTypeIndex());
  EXPECT_EQ(leaf->type_ancestors[2]->type_index, DerivedObj::RuntimeTypeIndex());
  EXPECT_EQ(
      std::string(leaf->type_ancestors[2]->type_key.data, leaf->type_ancestors[2]->type_key.size),
      "test.object.Derived");
  // The ancestors are the registry's own records.
  EXPECT_EQ(leaf->type_ancestors[1], TVMFFIGetTypeInfo(CountedObj::RuntimeTypeIndex()));

  const TVMFFITypeInfo* counted = TVMFFIGetTypeInfo(CountedObj::RuntimeTypeIndex());
  ASSERT_EQ(counted->type_depth, 1);
  EXPECT_EQ(counted->type_ancestors[0]->type_index, kTVMFFIObject);
}

TEST(TypeRegistry, QueryModeDoesNotRegister) {
  TVMFFIByteArray key = Bytes("test.object.QueriedOnly");
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
  int32_t later = AllocChild("test.object.AfterSlotBase", kTVMFFIObject, 1);
  EXPECT_GE(later, kTVMFFIDynObjectBegin);
  EXPECT_TRUE(later < base || later > base + SlotBaseObj::_type_child_slots) << later;
}

TEST(TypeRegistry, ChildrenFillTheParentsSlotsThenOverflow) {
  TVMFFIByteArray pkey = Bytes("test.object.SlotsWithOverflow");
  int32_t parent = TVMFFITypeGetOrAllocIndex(&pkey, -1, 1, 3, 1, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin);
  std::vector<int32_t> children;
  for (const char* key : {"test.object.SlotsWithOverflow.A", "test.object.SlotsWithOverflow.B",
                          "test.object.SlotsWithOverflow.C"}) {
    children.push_back(AllocChild(key, parent, 2));
  }
  EXPECT_EQ(children, (std::vector<int32_t>{parent + 1, parent + 2, parent + 3}));
  int32_t overflow = AllocChild("test.object.SlotsWithOverflow.D", parent, 2);
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
  TVMFFIByteArray pkey = Bytes("test.object.SlotsNoOverflow");
  int32_t parent = TVMFFITypeGetOrAllocIndex(&pkey, -1, 1, 2, 0, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin);
  int32_t a = AllocChild("test.object.SlotsNoOverflow.A", parent, 2);
  int32_t b = AllocChild("test.object.SlotsNoOverflow.B", parent, 2);
  EXPECT_EQ(a, parent + 1);
  EXPECT_EQ(b, parent + 2);
  EXPECT_EQ(AllocChild("test.object.SlotsNoOverflow.C", parent, 2), -1);
  std::string err = RaisedKindAndClear(/*with_message=*/true);
  EXPECT_EQ(err.rfind("ValueError: ", 0), 0u) << err;
  EXPECT_NE(err.find("test.object.SlotsNoOverflow.C"), std::string::npos) << err;
  // The failed key was not registered.
  TVMFFIByteArray ckey = Bytes("test.object.SlotsNoOverflow.C");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&ckey, -1, 2, 0, 0, -2), -2);
}

TEST(TypeRegistry, NestedReservedSlotsStayDisjoint) {
  // A parent reserving 8 slots; its first child reserves 2 slots of its own. Every index handed
  // out must be distinct, and the whole subtree should live in the parent's reserved range.
  TVMFFIByteArray pkey = Bytes("test.object.Nested");
  int32_t parent = TVMFFITypeGetOrAllocIndex(&pkey, -1, 1, 8, 0, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin);
  int32_t a = AllocChild("test.object.Nested.A", parent, 2, /*slots=*/2, /*can_overflow=*/0);
  int32_t b = AllocChild("test.object.Nested.B", parent, 2, 0, 0);
  int32_t a1 = AllocChild("test.object.Nested.A.1", a, 3, 0, 0);
  int32_t a2 = AllocChild("test.object.Nested.A.2", a, 3, 0, 0);
  int32_t c = AllocChild("test.object.Nested.C", parent, 2, 0, 0);
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
  EXPECT_EQ(std::string(info_a1->type_key.data, info_a1->type_key.size), "test.object.Nested.A.1");
  ASSERT_EQ(info_a1->type_depth, 3);
  EXPECT_EQ(info_a1->type_ancestors[2]->type_index, a);
}

TEST(TypeRegistry, BadParentOrDepthIsAnError) {
  EXPECT_EQ(AllocChild("test.object.OrphanOfMissingParent", 9999, 1), -1);
  std::string err = RaisedKindAndClear(/*with_message=*/true);
  EXPECT_EQ(err.rfind("KeyError: ", 0), 0u) << err;
  EXPECT_EQ(AllocChild("test.object.WrongDepth", kTVMFFIObject, 5), -1);
  err = RaisedKindAndClear(/*with_message=*/true);
  EXPECT_EQ(err.rfind("ValueError: ", 0), 0u) << err;
  TVMFFIByteArray key = Bytes("test.object.WrongDepth");
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, -2), -2);
}

TEST(TypeRegistry, ConcurrentRegistrationOfOneKeyAgrees) {
  constexpr int kThreads = 8;
  constexpr int kKeys = 4;
  const char* keys[kKeys] = {"test.object.Concurrent.K0", "test.object.Concurrent.K1",
                             "test.object.Concurrent.K2", "test.object.Concurrent.K3"};
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

// ---------------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------------

TEST_F(ObjectTest, ConcurrentCopiesLeaveTheCountIntact) {
  constexpr int kThreads = 8;
  constexpr int kIters = 10000;
  ObjectPtr<CountedObj> shared = make_object<CountedObj>(42);
  std::atomic<bool> go{false};
  std::atomic<int> bad_reads{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kIters; ++i) {
        ObjectPtr<CountedObj> copy = shared;
        ObjectPtr<Object> base = copy;
        ObjectPtr<CountedObj> moved = std::move(copy);
        if (moved->value != 42 || base.use_count() < 3) bad_reads.fetch_add(1);
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_EQ(shared.use_count(), 1u);
  EXPECT_EQ(CombinedCount(shared.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
  EXPECT_EQ(g_destroyed.load(), 0);
  shared.reset();
  EXPECT_EQ(g_destroyed.load(), 1);
}

TEST_F(ObjectTest, ConcurrentLockRacingTheLastRelease) {
  constexpr int kRounds = 200;
  constexpr int kThreads = 4;
  for (int round = 0; round < kRounds; ++round) {
    ObjectPtr<CountedObj> strong = make_object<CountedObj>(round);
    WeakObjectPtr<CountedObj> weak(strong);
    std::atomic<int> started{0};
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, weak_copy = weak] {
        started.fetch_add(1);
        for (int i = 0; i < 50; ++i) {
          ObjectPtr<CountedObj> p = weak_copy.lock();
          if (p && p->value != round) bad.fetch_add(1);
        }
      });
    }
    while (started.load() < kThreads) std::this_thread::yield();
    strong.reset();
    for (auto& th : threads) th.join();
    EXPECT_EQ(bad.load(), 0);
    EXPECT_TRUE(weak.expired());
    EXPECT_FALSE(weak.lock());
    ASSERT_EQ(g_destroyed.load(), round + 1) << "round " << round;
  }
}

}  // namespace
