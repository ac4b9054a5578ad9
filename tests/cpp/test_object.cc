// Object, ObjectPtr, WeakObjectPtr and ObjectRef: reference counts, weak references, counts under
// concurrency, and user-defined types in the runtime's type registry. Releasing deep structures:
// test_object_release.cc; the registry's C functions: test_type_registry.cc.
#include <ffi/container/array.h>
#include <ffi/container/variant.h>
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

/*!
 * \brief A reference written by hand as TVM-FFI code writes one: only the UnsafeInit constructor,
 * and a container type that does not describe what it holds (a Derived or an Unrelated object).
 */
class DerivedOrUnrelatedRef : public ObjectRef {
 public:
  DerivedOrUnrelatedRef() = default;
  explicit DerivedOrUnrelatedRef(ffi::UnsafeInit tag) : ObjectRef(tag) {}
  static constexpr bool _type_container_is_exact = false;
  using ContainerType = Object;
};
}  // namespace

// The library proves which objects its reference holds, so that GetRef may make one unchecked.
namespace tvm {
namespace ffi {
template <typename ObjectType>
inline constexpr bool object_ref_contains_v<DerivedOrUnrelatedRef, ObjectType> =
    std::is_base_of_v<DerivedObj, ObjectType> || std::is_base_of_v<UnrelatedObj, ObjectType>;
}  // namespace ffi
}  // namespace tvm

namespace {

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
  EXPECT_EQ(HeapObject(ffi::String("long enough for an object"))->GetTypeKey(), "ffi.String");
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
  ffi::String str("hello world, long enough");
  const Object* s = HeapObject(str);
  ASSERT_NE(s, nullptr);
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
// From pointers back to references, and checked downcasts
// ---------------------------------------------------------------------------------------------

TEST_F(ObjectTest, GetRefAndGetObjectPtrShareTheObject) {
  CountedRef ref(make_object<LeafObj>(5));
  const CountedObj* raw = ref.get();
  CountedRef back = ffi::GetRef<CountedRef>(raw);
  EXPECT_TRUE(back.same_as(ref));
  EXPECT_EQ(ref.use_count(), 2u);
  ObjectRef base = ffi::GetRef<ObjectRef>(static_cast<const LeafObj*>(raw));
  EXPECT_EQ(ref.use_count(), 3u);
  ObjectPtr<CountedObj> ptr = ffi::GetObjectPtr<CountedObj>(const_cast<CountedObj*>(raw));
  EXPECT_EQ(ptr.get(), raw);
  EXPECT_EQ(ref.use_count(), 4u);
  EXPECT_FALSE(ffi::GetRef<CountedRef>(static_cast<const CountedObj*>(nullptr)).defined());
  EXPECT_FALSE(ffi::GetRef<std::optional<CountedRef>>(static_cast<const CountedObj*>(nullptr)));
  EXPECT_TRUE(ffi::GetRef<std::optional<CountedRef>>(raw)->same_as(ref));
  EXPECT_FALSE(ffi::GetRef<ffi::Optional<CountedRef>>(static_cast<const CountedObj*>(nullptr)));
  EXPECT_TRUE(ffi::GetRef<ffi::Optional<CountedRef>>(raw).value().same_as(ref));
}

TEST_F(ObjectTest, ObjectPointersViewObjectsButNeverNone) {
  CountedRef ref(make_object<DerivedObj>(4));
  ffi::Any held = ref;
  EXPECT_EQ(held.cast<const CountedObj*>(), ref.get());
  EXPECT_EQ(held.as<const DerivedObj*>().value(), ref.get());
  // A null pointer is stored as None, but None is no object to view: a function taking a
  // `const CountedObj*` would dereference it.
  ffi::Any none = static_cast<const CountedObj*>(nullptr);
  EXPECT_TRUE(none.is_none());
  EXPECT_FALSE(none.try_cast<const CountedObj*>().has_value());
  EXPECT_THROW(none.cast<const CountedObj*>(), ffi::Error);
  EXPECT_FALSE(ffi::Any(ObjectRef(make_object<UnrelatedObj>())).as<const CountedObj*>());
}

TEST_F(ObjectTest, GetRefBuildsReferencesThatOnlyHaveTheUnsafeInitConstructor) {
  static_assert(!ffi::object_ref_contains_v<DerivedOrUnrelatedRef, CountedObj>);
  static_assert(ffi::object_ref_contains_v<DerivedOrUnrelatedRef, LeafObj>);
  static_assert(!ffi::Array<CountedRef>::_type_container_is_exact);
  static_assert(!ffi::Variant<CountedRef, int>::_type_container_is_exact);
  CountedRef derived(make_object<DerivedObj>(2));
  DerivedOrUnrelatedRef a =
      ffi::GetRef<DerivedOrUnrelatedRef>(static_cast<const DerivedObj*>(derived.get()));
  EXPECT_TRUE(a.same_as(derived));
  EXPECT_EQ(derived.use_count(), 2u);
  ObjectPtr<UnrelatedObj> unrelated = make_object<UnrelatedObj>();
  DerivedOrUnrelatedRef b = ffi::GetRef<DerivedOrUnrelatedRef>(unrelated.get());
  EXPECT_EQ(b.get(), unrelated.get());
  EXPECT_FALSE(
      ffi::GetRef<DerivedOrUnrelatedRef>(static_cast<const UnrelatedObj*>(nullptr)).defined());
}

TEST_F(ObjectTest, ObjectRefAsAReferenceClassChecksTheObject) {
  ObjectRef any_ref = CountedRef(make_object<DerivedObj>(3));
  std::optional<CountedRef> counted = any_ref.as<CountedRef>();
  ASSERT_TRUE(counted.has_value());
  EXPECT_EQ((*counted)->value, 3);
  EXPECT_TRUE(counted->same_as(any_ref));
  EXPECT_EQ(any_ref.as_or_throw<CountedRef>()->value, 3);
  ObjectRef unrelated(make_object<UnrelatedObj>());
  EXPECT_FALSE(unrelated.as<CountedRef>().has_value());
  ffi::Error e = CatchError([&] { unrelated.as_or_throw<CountedRef>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("test.object.Unrelated"), std::string::npos) << e.message();
  // A null reference is a null reference of a nullable class.
  std::optional<CountedRef> null_ref = ObjectRef().as<CountedRef>();
  ASSERT_TRUE(null_ref.has_value());
  EXPECT_FALSE(null_ref->defined());
  // Containers check their elements, as a typed read of an Any does.
  ObjectRef ints = ffi::Array<ffi::Any>{1, 2};
  EXPECT_TRUE(ints.as<ffi::Array<int>>().has_value());
  EXPECT_FALSE(ints.as<ffi::Array<ffi::String>>().has_value());
  // Object types still give a pointer.
  EXPECT_EQ(any_ref.as<DerivedObj>()->value, 3);
  EXPECT_EQ(any_ref.as<LeafObj>(), nullptr);
}

TEST_F(ObjectTest, WeakPointerUseCountResetAndSwap) {
  ObjectPtr<CountedObj> a = make_object<CountedObj>(1);
  ObjectPtr<CountedObj> b = make_object<CountedObj>(2);
  WeakObjectPtr<CountedObj> wa(a), wb(b);
  ObjectPtr<CountedObj> a2 = a;
  EXPECT_EQ(wa.use_count(), 2u);
  wa.swap(wb);
  EXPECT_EQ(wa.lock()->value, 2);
  EXPECT_EQ(wb.lock()->value, 1);
  wa.reset();
  EXPECT_EQ(wa.use_count(), 0u);
  EXPECT_TRUE(wa.expired());
  EXPECT_EQ(CombinedCount(b.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
  a.reset();
  a2.reset();
  EXPECT_EQ(wb.use_count(), 0u);  // destroyed; the weak pointer still holds the memory
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
