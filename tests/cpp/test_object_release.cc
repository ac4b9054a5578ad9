// Releasing deep structures: chains and trees of objects holding the next ones are released on a
// bounded stack, each object destroyed and freed once, with weak references and from many threads.
// Reference counts and weak references themselves: test_object.cc.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace {

using ffi::Object;
using ffi::ObjectRef;
using ffi::WeakObjectPtr;
using ffi::detail::ObjectUnsafe;

/*! \brief Destructor runs of the links below. */
std::atomic<int> g_destroyed{0};

/*! \brief A link of a chain or tree: holds references to further objects. */
class LinkObj : public Object {
 public:
  explicit LinkObj(ObjectRef a = ObjectRef(), ObjectRef b = ObjectRef())
      : first(std::move(a)), second(std::move(b)) {}
  ~LinkObj() { g_destroyed.fetch_add(1); }
  ObjectRef first;
  ObjectRef second;
  FFI_DECLARE_OBJECT_INFO_FINAL("test.object.Link", LinkObj, Object);
};

/*! \brief A chain of `n` links, the head holding the rest. */
ObjectRef MakeChain(int n) {
  ObjectRef head;
  for (int i = 0; i < n; ++i) head = ObjectRef(ffi::make_object<LinkObj>(std::move(head)));
  return head;
}

class ObjectTest : public ::testing::Test {
 protected:
  void SetUp() override { g_destroyed = 0; }
};

// ---------------------------------------------------------------------------------------------
// Releasing deep structures
// ---------------------------------------------------------------------------------------------

TEST_F(ObjectTest, ReleasingAMillionLinkChainTakesBoundedStack) {
  // Each link's destructor releases the next: without deferring, a million nested deleters
  // overflow any thread's stack. All are destroyed before the last reference's release returns.
  constexpr int kLinks = 1000000;
  ObjectRef head = MakeChain(kLinks);
  EXPECT_EQ(g_destroyed.load(), 0);
  head = ObjectRef();
  EXPECT_EQ(g_destroyed.load(), kLinks);
  EXPECT_EQ(ffi::detail::ThreadReleaseQueue().depth, 0u);
  EXPECT_EQ(ffi::detail::ThreadReleaseQueue().items, nullptr);  // the deferral buffer is freed
}

TEST_F(ObjectTest, ReleasingADeepChainWithWeakReferencesFreesEachOnce) {
  constexpr int kLinks = 100000;
  ObjectRef head = MakeChain(kLinks);
  std::vector<WeakObjectPtr<LinkObj>> weak;
  ObjectRef link = head;
  for (int i = 0; link.defined(); ++i) {
    if (i % 1000 == 0) weak.emplace_back(ObjectUnsafe::ObjectPtrFromObjectRef<LinkObj>(link));
    link = static_cast<const LinkObj*>(link.get())->first;
  }
  ASSERT_EQ(weak.size(), 100u);
  head = ObjectRef();
  EXPECT_EQ(g_destroyed.load(), kLinks);
  for (const auto& w : weak) EXPECT_FALSE(w.lock());  // destroyed; the weak ones free the memory
}

TEST_F(ObjectTest, ReleasingADeepAndWideTree) {
  // Every link holds a deep chain and the next link: deferred objects defer further ones.
  constexpr int kSpine = 300;
  constexpr int kBranch = 2000;
  ObjectRef head;
  for (int i = 0; i < kSpine; ++i) {
    head = ObjectRef(ffi::make_object<LinkObj>(MakeChain(kBranch), std::move(head)));
  }
  head = ObjectRef();
  EXPECT_EQ(g_destroyed.load(), kSpine * (kBranch + 1));
}

TEST_F(ObjectTest, ThreadsReleaseDeepChainsConcurrently) {
  constexpr int kThreads = 4;
  constexpr int kLinks = 50000;
  std::vector<ObjectRef> chains;
  for (int t = 0; t < kThreads; ++t) chains.push_back(MakeChain(kLinks));
  // One chain shared by all threads: whichever releases it last destroys it.
  ObjectRef shared = MakeChain(kLinks);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&chains, t, copy = shared]() mutable {
      chains[t] = ObjectRef();
      copy = ObjectRef();
    });
  }
  shared = ObjectRef();
  for (auto& th : threads) th.join();
  EXPECT_EQ(g_destroyed.load(), (kThreads + 1) * kLinks);
}
}  // namespace
