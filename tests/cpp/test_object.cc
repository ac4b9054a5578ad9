// Object, ObjectPtr, WeakObjectPtr and ObjectRef: reference counts, weak references and counts
// under concurrency. Type indices, IsInstance and checked conversions: test_object_cast.cc;
// releasing deep structures: test_object_release.cc; the registry's C functions:
// test_type_registry.cc.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
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

/*! \brief A subclass, destroyed through a pointer to its base. */
class CountedSubObj final : public CountedObj {
 public:
  explicit CountedSubObj(int v) : CountedObj(v) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("test.object.CountedSub", CountedSubObj, CountedObj);
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
    ObjectPtr<Object> base = make_object<CountedSubObj>(5);
    EXPECT_EQ(base->type_index(), CountedSubObj::RuntimeTypeIndex());
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

/*! \brief An object with `n` int64 values after it, as TVM-FFI's BigInt and strings are made. */
class InlineValuesObj : public Object {
 public:
  explicit InlineValuesObj(int64_t n) : size(n) {
    for (int64_t i = 0; i < n; ++i) values()[i] = i * i;
  }
  int64_t* values() { return static_cast<int64_t*>(ffi::detail::ExtraStorage(this)); }
  int64_t size;
  FFI_DECLARE_OBJECT_INFO("test.object.InlineValues", InlineValuesObj, Object);
};

TEST_F(ObjectTest, MakeInplaceArrayObjectReservesTheElementsAfterTheObject) {
  ObjectPtr<InlineValuesObj> p = ffi::make_inplace_array_object<InlineValuesObj, int64_t>(5, 5);
  EXPECT_EQ(p->size, 5);
  EXPECT_EQ(p->values()[4], 16);
  // Right after the object, where code written for TVM-FFI looks for them.
  EXPECT_EQ(static_cast<void*>(p->values()), static_cast<void*>(p.get() + 1));
  EXPECT_EQ(p->type_index(), InlineValuesObj::RuntimeTypeIndex());
  EXPECT_EQ(CombinedCount(p.get()), ffi::detail::kStrongOne | ffi::detail::kWeakOne);
  ffi::FObjectDeleter deleter = ObjectUnsafe::Header(p.get())->deleter;
  EXPECT_NE(deleter, nullptr);
  EXPECT_THROW((ffi::make_inplace_array_object<InlineValuesObj, int64_t>(SIZE_MAX / 4, 0)),
               std::bad_alloc);
}

}  // namespace
