// The environment a host provides to kernels: current streams per device and per thread,
// StreamGuard, tensor allocation through TVMFFIEnvTensorAlloc (built-in aligned CPU allocator,
// per-thread and process-wide DLPack allocators, allocator errors, malformed prototypes, allocated
// layouts kept or refused), and the signal-check hook registered through TVMFFIEnvRegisterCAPI.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Tensor;

TVMFFIStreamHandle FakeStream(uintptr_t n) { return reinterpret_cast<TVMFFIStreamHandle>(n); }

/*! \brief Runs `fn` on a new thread and waits for it. */
template <typename F>
void OnOtherThread(F fn) {
  std::thread t(fn);
  t.join();
}

// ---------------------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------------------

TEST(EnvStream, PerDeviceAndOriginalReturned) {
  ASSERT_EQ(TVMFFIEnvGetStream(kDLCUDA, 0), nullptr);
  TVMFFIStreamHandle original = FakeStream(1);
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 0, FakeStream(0x100), &original), 0);
  EXPECT_EQ(original, nullptr);  // nothing was set before
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 0), FakeStream(0x100));
  // Other devices are untouched.
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 1), nullptr);
  EXPECT_EQ(TVMFFIEnvGetStream(kDLROCM, 0), nullptr);

  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 1, FakeStream(0x200), nullptr), 0);
  ASSERT_EQ(TVMFFIEnvSetStream(kDLROCM, 0, FakeStream(0x300), nullptr), 0);
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 0), FakeStream(0x100));
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 1), FakeStream(0x200));
  EXPECT_EQ(TVMFFIEnvGetStream(kDLROCM, 0), FakeStream(0x300));
  EXPECT_EQ(ffi::GetCurrentStream(DLDevice{kDLCUDA, 1}), FakeStream(0x200));

  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 0, FakeStream(0x101), &original), 0);
  EXPECT_EQ(original, FakeStream(0x100));
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 0), FakeStream(0x101));

  // Restore: back to the default (null) stream everywhere.
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 0, nullptr, &original), 0);
  EXPECT_EQ(original, FakeStream(0x101));
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 1, nullptr, nullptr), 0);
  ASSERT_EQ(TVMFFIEnvSetStream(kDLROCM, 0, nullptr, nullptr), 0);
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 0), nullptr);
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 1), nullptr);
}

TEST(EnvStream, PerThread) {
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 0, FakeStream(0xA0), nullptr), 0);
  TVMFFIStreamHandle seen_before = FakeStream(1), seen_after = FakeStream(1), original = nullptr;
  OnOtherThread([&] {
    seen_before = TVMFFIEnvGetStream(kDLCUDA, 0);
    TVMFFIEnvSetStream(kDLCUDA, 0, FakeStream(0xB0), &original);
    seen_after = TVMFFIEnvGetStream(kDLCUDA, 0);
  });
  EXPECT_EQ(seen_before, nullptr);  // the other thread does not see this thread's stream
  EXPECT_EQ(original, nullptr);
  EXPECT_EQ(seen_after, FakeStream(0xB0));
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 0), FakeStream(0xA0));  // and cannot change it
  ASSERT_EQ(TVMFFIEnvSetStream(kDLCUDA, 0, nullptr, nullptr), 0);
}

TEST(EnvStream, StreamGuardRestores) {
  ASSERT_EQ(TVMFFIEnvGetStream(kDLCUDA, 2), nullptr);
  {
    ffi::StreamGuard outer(kDLCUDA, 2, FakeStream(0x10));
    EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 2), FakeStream(0x10));
    {
      ffi::StreamGuard inner(kDLCUDA, 2, FakeStream(0x20));
      ffi::StreamGuard other_device(kDLCUDA, 3, FakeStream(0x30));
      EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 2), FakeStream(0x20));
      EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 3), FakeStream(0x30));
    }
    EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 2), FakeStream(0x10));
    EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 3), nullptr);
  }
  EXPECT_EQ(TVMFFIEnvGetStream(kDLCUDA, 2), nullptr);

  // A guard restores a stream that was set before it, not just null.
  ASSERT_EQ(TVMFFIEnvSetStream(kDLROCM, 1, FakeStream(0x40), nullptr), 0);
  { ffi::StreamGuard g(kDLROCM, 1, FakeStream(0x50)); }
  EXPECT_EQ(TVMFFIEnvGetStream(kDLROCM, 1), FakeStream(0x40));
  ASSERT_EQ(TVMFFIEnvSetStream(kDLROCM, 1, nullptr, nullptr), 0);
}

// ---------------------------------------------------------------------------------------------
// Tensor allocation: the built-in allocator
// ---------------------------------------------------------------------------------------------

/*! \brief Uninstalls every allocator override when a test ends, even a failing one. */
struct AllocatorReset {
  AllocatorReset() { Reset(); }
  ~AllocatorReset() { Reset(); }
  static void Reset() {
    TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, nullptr);
    TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 1, nullptr);
  }
};

TEST(EnvAlloc, BuiltInCpuAllocatorIsAlignedAndWritable) {
  AllocatorReset reset;
  ASSERT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), nullptr);
  Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2, 3, 5}, kF32, kCPU);
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.use_count(), 1u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  EXPECT_TRUE(t.IsAligned(64));
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(Vec(t.shape()), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{15, 5, 1}));
  EXPECT_EQ(t.dtype(), kF32);
  EXPECT_EQ(t.device(), kCPU);
  EXPECT_EQ(t.byte_offset(), 0u);
  EXPECT_TRUE(t.IsContiguous());
  auto* p = static_cast<float*>(t.data_ptr());
  for (int i = 0; i < 30; ++i) p[i] = static_cast<float>(i);
  EXPECT_EQ(p[29], 29.0f);

  // Different dtypes and odd sizes are aligned too.
  for (int64_t n : {1, 3, 63, 65, 1000}) {
    Tensor u = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {n}, DLDataType{kDLUInt, 8, 1}, kCPU);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(u.data_ptr()) % 64, 0u) << n;
    std::memset(u.data_ptr(), 0xCD, static_cast<size_t>(n));
    EXPECT_EQ(u.numel(), n);
  }
}

TEST(EnvAlloc, BuiltInZeroSizeScalarAndSubByte) {
  AllocatorReset reset;
  Tensor empty = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {0, 4}, kF32, kCPU);
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(Vec(empty.shape()), (std::vector<int64_t>{0, 4}));

  Tensor scalar =
      Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ffi::ShapeView(), DLDataType{kDLInt, 64, 1}, kCPU);
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  *static_cast<int64_t*>(scalar.data_ptr()) = -5;
  EXPECT_EQ(*static_cast<int64_t*>(scalar.data_ptr()), -5);

  Tensor fp4 =
      Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3}, DLDataType{kDLFloat4_e2m1fn, 4, 1}, kCPU);
  EXPECT_EQ(fp4.dtype(), (DLDataType{kDLFloat4_e2m1fn, 4, 1}));
  std::memset(fp4.data_ptr(), 0xFF, 2);  // 12 bits need 2 bytes
}

TEST(EnvAlloc, BuiltInRefusesNonCpuDevices) {
  AllocatorReset reset;
  ffi::Error e = CatchError([] {
    Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, kF32, DLDevice{kDLCUDA, 0});
  });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("cuda:0"), std::string::npos) << e.message();
  e = CatchError([] {
    Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, kF32, DLDevice{kDLROCM, 2});
  });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("rocm:2"), std::string::npos) << e.message();

  // Through the C function: a non-zero return and the raised error.
  int64_t shape[] = {4};
  DLTensor proto{nullptr, DLDevice{kDLCUDA, 1}, 1, kF32, shape, nullptr, 0};
  TVMFFIObjectHandle out = nullptr;
  EXPECT_NE(TVMFFIEnvTensorAlloc(&proto, &out), 0);
  EXPECT_EQ(out, nullptr);
  e = TakeRaised();
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("cuda:1"), std::string::npos) << e.message();
}

TEST(EnvAlloc, MalformedPrototypeIsValueError) {
  AllocatorReset reset;
  ffi::Error e = CatchError([] {
    Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2, -3}, kF32, kCPU);
  });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("-3"), std::string::npos) << e.message();

  TVMFFIObjectHandle out = nullptr;
  EXPECT_NE(TVMFFIEnvTensorAlloc(nullptr, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");

  DLTensor no_shape{nullptr, kCPU, 2, kF32, nullptr, nullptr, 0};
  EXPECT_NE(TVMFFIEnvTensorAlloc(&no_shape, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");

  int64_t shape[] = {1};
  DLTensor negative_ndim{nullptr, kCPU, -1, kF32, shape, nullptr, 0};
  EXPECT_NE(TVMFFIEnvTensorAlloc(&negative_ndim, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");
  EXPECT_EQ(out, nullptr);
}

// ---------------------------------------------------------------------------------------------
// Tensor allocation: custom allocators
// ---------------------------------------------------------------------------------------------

/*! \brief What one test allocator saw. */
struct AllocLog {
  std::atomic<int> calls{0};
  std::atomic<int> frees{0};
  std::vector<int64_t> shape;
  DLDataType dtype{};
  DLDevice device{};
  void* data = nullptr;
  void Clear() {
    calls = 0;
    frees = 0;
    shape.clear();
    data = nullptr;
  }
};
AllocLog log_a, log_b;

/*! \brief A DLPack allocator on malloc that records into `*Log`; any device is accepted. */
template <AllocLog* Log>
int LoggingAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void*,
                     void (*)(void*, const char*, const char*)) {
  struct Holder {
    DLManagedTensorVersioned managed;
    std::vector<int64_t> shape;
  };
  ++Log->calls;
  Log->shape.assign(prototype->shape, prototype->shape + prototype->ndim);
  Log->dtype = prototype->dtype;
  Log->device = prototype->device;
  auto* h = new Holder();
  h->shape = Log->shape;
  size_t bytes = ffi::GetDataSize(*prototype);
  void* data = std::malloc(bytes == 0 ? 1 : bytes);
  Log->data = data;
  h->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  h->managed.manager_ctx = h;
  h->managed.flags = 0;
  h->managed.deleter = [](DLManagedTensorVersioned* self) {
    ++Log->frees;
    std::free(self->dl_tensor.data);
    delete static_cast<Holder*>(self->manager_ctx);
  };
  h->managed.dl_tensor = *prototype;
  h->managed.dl_tensor.data = data;
  h->managed.dl_tensor.shape = h->shape.empty() ? nullptr : h->shape.data();
  h->managed.dl_tensor.strides = nullptr;
  h->managed.dl_tensor.byte_offset = 0;
  *out = &h->managed;
  return 0;
}

int FailingAllocator(DLTensor*, DLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void*, const char*, const char*)) {
  *out = nullptr;
  set_error(error_ctx, "MemoryError", "test allocator is out of memory");
  return -1;
}

int SilentNullAllocator(DLTensor*, DLManagedTensorVersioned** out, void*,
                        void (*)(void*, const char*, const char*)) {
  *out = nullptr;
  return 0;
}

AllocLog log_bad_version;
int BadVersionAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* ctx,
                        void (*set_error)(void*, const char*, const char*)) {
  int rc = LoggingAllocator<&log_bad_version>(prototype, out, ctx, set_error);
  (*out)->version = {2, 0};
  return rc;
}

TEST(EnvAlloc, PerThreadAllocatorIsUsedAndUninstalled) {
  AllocatorReset reset;
  log_a.Clear();
  DLPackManagedTensorAllocator original = &FailingAllocator;
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&LoggingAllocator<&log_a>, 0, &original), 0);
  EXPECT_EQ(original, nullptr);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), &LoggingAllocator<&log_a>);

  {
    // The installed allocator sees the request as asked, device included: no CPU-only limit.
    Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3, 7}, DLDataType{kDLInt, 16, 1},
                                    DLDevice{kDLCUDA, 1});
    EXPECT_EQ(log_a.calls, 1);
    EXPECT_EQ(log_a.shape, (std::vector<int64_t>{3, 7}));
    EXPECT_EQ(log_a.dtype, (DLDataType{kDLInt, 16, 1}));
    EXPECT_EQ(log_a.device, (DLDevice{kDLCUDA, 1}));
    EXPECT_EQ(t.data_ptr(), log_a.data);
    EXPECT_EQ(Vec(t.shape()), (std::vector<int64_t>{3, 7}));
    EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{7, 1}));
    EXPECT_EQ(t.device(), (DLDevice{kDLCUDA, 1}));
    EXPECT_EQ(log_a.frees, 0);
  }
  EXPECT_EQ(log_a.frees, 1);  // the allocator's deleter ran when the tensor died

  // Another thread does not see this thread's allocator: it gets the built-in one.
  DLPackManagedTensorAllocator seen = &FailingAllocator;
  void* other_data = nullptr;
  OnOtherThread([&] {
    seen = TVMFFIEnvGetDLPackManagedTensorAllocator();
    Tensor u = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {16}, kF32, kCPU);
    other_data = u.data_ptr();
  });
  EXPECT_EQ(seen, nullptr);
  EXPECT_NE(other_data, nullptr);
  EXPECT_EQ(log_a.calls, 1);

  // Uninstalling returns the installed one and restores the built-in allocator.
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, &original), 0);
  EXPECT_EQ(original, &LoggingAllocator<&log_a>);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), nullptr);
  Tensor v = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, kF32, kCPU);
  EXPECT_EQ(log_a.calls, 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data_ptr()) % 64, 0u);
}

TEST(EnvAlloc, GlobalAllocatorIsSeenByEveryThreadAndThreadOverrideWins) {
  AllocatorReset reset;
  log_a.Clear();
  log_b.Clear();
  DLPackManagedTensorAllocator original = &FailingAllocator;
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&LoggingAllocator<&log_a>, 1, &original), 0);
  EXPECT_EQ(original, nullptr);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), &LoggingAllocator<&log_a>);

  DLPackManagedTensorAllocator seen = nullptr;
  OnOtherThread([&] {
    seen = TVMFFIEnvGetDLPackManagedTensorAllocator();
    Tensor u = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {5}, kF32, kCPU);
  });
  EXPECT_EQ(seen, &LoggingAllocator<&log_a>);
  EXPECT_EQ(log_a.calls, 1);
  EXPECT_EQ(log_a.frees, 1);

  // A per-thread allocator takes precedence over the global one on its thread only.
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&LoggingAllocator<&log_b>, 0, &original), 0);
  EXPECT_EQ(original, nullptr);  // the thread slot was empty; the global one is separate
  { Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2}, kF32, kCPU); }
  EXPECT_EQ(log_b.calls, 1);
  EXPECT_EQ(log_a.calls, 1);
  OnOtherThread([&] { Tensor u = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2}, kF32, kCPU); });
  EXPECT_EQ(log_a.calls, 2);
  EXPECT_EQ(log_b.calls, 1);

  // Replacing the global allocator returns the previous one; uninstalling restores the built-in.
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&LoggingAllocator<&log_b>, 1, &original), 0);
  EXPECT_EQ(original, &LoggingAllocator<&log_a>);
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 1, &original), 0);
  EXPECT_EQ(original, &LoggingAllocator<&log_b>);
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, &original), 0);
  EXPECT_EQ(original, &LoggingAllocator<&log_b>);
  EXPECT_EQ(TVMFFIEnvGetDLPackManagedTensorAllocator(), nullptr);
  { Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2}, kF32, kCPU); }
  EXPECT_EQ(log_a.calls, 2);
  EXPECT_EQ(log_b.calls, 1);
  EXPECT_EQ(log_a.frees, 2);
  EXPECT_EQ(log_b.frees, 1);
}

TEST(EnvAlloc, AllocatorErrorKindIsKept) {
  AllocatorReset reset;
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&FailingAllocator, 0, nullptr), 0);
  ffi::Error e = CatchError([] { Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, kF32, kCPU); });
  EXPECT_EQ(e.kind(), "MemoryError");
  EXPECT_EQ(e.message(), "test allocator is out of memory");

  int64_t shape[] = {4};
  DLTensor proto{nullptr, kCPU, 1, kF32, shape, nullptr, 0};
  TVMFFIObjectHandle out = nullptr;
  EXPECT_NE(TVMFFIEnvTensorAlloc(&proto, &out), 0);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(TakeRaised().kind(), "MemoryError");
}

TEST(EnvAlloc, AllocatorReturningNothingIsAnError) {
  AllocatorReset reset;
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&SilentNullAllocator, 0, nullptr), 0);
  ffi::Error e = CatchError([] { Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, kF32, kCPU); });
  EXPECT_EQ(e.kind(), "RuntimeError");
}

TEST(EnvAlloc, AllocatorResultIsValidatedAndReleasedOnRefusal) {
  AllocatorReset reset;
  log_bad_version.Clear();
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&BadVersionAllocator, 0, nullptr), 0);
  ffi::Error e = CatchError([] { Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, kF32, kCPU); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(log_bad_version.calls, 1);
  EXPECT_EQ(log_bad_version.frees, 1);  // the refused tensor went back to its producer
}

/*!
 * \brief How ReshapingAllocator changes the tensor LoggingAllocator made for a {3, 4} float32
 * prototype before returning it: strides and byte offset a caller must keep, or a description
 * TVMFFIEnvTensorAlloc must refuse.
 */
enum class Reshape { kTransposedStrides, kByteOffset, kWrongShape, kNoShape, kHugeStrides };
Reshape reshape = Reshape::kTransposedStrides;
AllocLog log_reshaped;
int64_t transposed_strides[] = {1, 3};
int64_t huge_strides[] = {int64_t{1} << 62, 1};
int64_t wrong_shape[] = {3, 5};

int ReshapingAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* ctx,
                       void (*set_error)(void*, const char*, const char*)) {
  int rc = LoggingAllocator<&log_reshaped>(prototype, out, ctx, set_error);
  DLTensor& t = (*out)->dl_tensor;
  switch (reshape) {
    case Reshape::kTransposedStrides:
      t.strides = transposed_strides;
      break;
    case Reshape::kByteOffset:
      t.byte_offset = 4;  // only described: nothing reads through it
      break;
    case Reshape::kWrongShape:
      t.shape = wrong_shape;
      break;
    case Reshape::kNoShape:
      t.shape = nullptr;
      break;
    case Reshape::kHugeStrides:
      t.strides = huge_strides;
      break;
  }
  return rc;
}

TEST(EnvAlloc, AllocatorLayoutIsKeptWhenItDiffersFromCompact) {
  AllocatorReset reset;
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&ReshapingAllocator, 0, nullptr), 0);
  log_reshaped.Clear();
  reshape = Reshape::kTransposedStrides;
  {
    Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3, 4}, kF32, kCPU);
    EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{1, 3}));
    EXPECT_FALSE(t.IsContiguous());
    EXPECT_EQ(t.data_ptr(), log_reshaped.data);
  }
  reshape = Reshape::kByteOffset;
  {
    Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3, 4}, kF32, kCPU);
    EXPECT_EQ(t.byte_offset(), 4u);
    EXPECT_EQ(Vec(t.shape()), (std::vector<int64_t>{3, 4}));
  }
  EXPECT_EQ(log_reshaped.calls, 2);
  EXPECT_EQ(log_reshaped.frees, 2);
}

TEST(EnvAlloc, AllocatorResultUnlikeThePrototypeIsRefusedAndReleasedOnce) {
  AllocatorReset reset;
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&ReshapingAllocator, 0, nullptr), 0);
  for (auto [how, kind] : {std::pair{Reshape::kWrongShape, "RuntimeError"},
                           std::pair{Reshape::kNoShape, "RuntimeError"},
                           std::pair{Reshape::kHugeStrides, "OverflowError"}}) {
    log_reshaped.Clear();
    reshape = how;
    ffi::Error e = CatchError([] {
      Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3, 4}, kF32, kCPU);
    });
    EXPECT_EQ(e.kind(), kind) << static_cast<int>(how) << ": " << e.message();
    EXPECT_EQ(log_reshaped.calls, 1);
    EXPECT_EQ(log_reshaped.frees, 1);  // back to the producer, exactly once
  }
}

TEST(EnvAlloc, MalformedPrototypeNeverReachesTheAllocator) {
  AllocatorReset reset;
  log_a.Clear();
  ASSERT_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(&LoggingAllocator<&log_a>, 0, nullptr), 0);
  ffi::Error e = CatchError([] { Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {-1}, kF32, kCPU); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(log_a.calls, 0);
}

// ---------------------------------------------------------------------------------------------
// Signals
// ---------------------------------------------------------------------------------------------

std::atomic<int> signal_checks{0};
int CheckSignalsOk() {
  ++signal_checks;
  return 0;
}
int CheckSignalsInterrupted() {
  ++signal_checks;
  TVMFFIErrorSetRaisedFromCStr("KeyboardInterrupt", "interrupted");
  return -1;
}

TEST(EnvSignals, HookRegisteredThroughCApi) {
  // Nothing registered: nothing to check.
  EXPECT_EQ(TVMFFIEnvCheckSignals(), 0);
  EXPECT_EQ(signal_checks, 0);

  ASSERT_EQ(
      TVMFFIEnvRegisterCAPI("TVMFFIPyErrCheckSignals", reinterpret_cast<void*>(&CheckSignalsOk)),
      0);
  EXPECT_EQ(TVMFFIEnvCheckSignals(), 0);
  EXPECT_EQ(signal_checks, 1);
  EXPECT_EQ(TVMFFIEnvCheckSignals(), 0);
  EXPECT_EQ(signal_checks, 2);

  // The hook's verdict is passed on, with the error it raised.
  ASSERT_EQ(TVMFFIEnvRegisterCAPI("TVMFFIPyErrCheckSignals",
                                  reinterpret_cast<void*>(&CheckSignalsInterrupted)),
            0);
  EXPECT_NE(TVMFFIEnvCheckSignals(), 0);
  EXPECT_EQ(signal_checks, 3);
  EXPECT_EQ(TakeRaised().kind(), "KeyboardInterrupt");

  // Other names do not act as the signal hook; unregistering restores "nothing to check".
  ASSERT_EQ(TVMFFIEnvRegisterCAPI("TVMFFIPyErrCheckSignals", nullptr), 0);
  ASSERT_EQ(TVMFFIEnvRegisterCAPI("SomethingElse", reinterpret_cast<void*>(&CheckSignalsOk)), 0);
  EXPECT_EQ(TVMFFIEnvCheckSignals(), 0);
  EXPECT_EQ(signal_checks, 3);

  EXPECT_NE(TVMFFIEnvRegisterCAPI(nullptr, nullptr), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");
}

}  // namespace
