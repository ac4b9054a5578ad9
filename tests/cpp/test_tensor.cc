// Tensor and TensorView: allocation through user allocators, every accessor of the tensor contract
// (ndim dtype shape strides size stride numel byte_offset data_ptr device IsContiguous), views of
// DLTensors whose producer left strides null, zero-size and 0-d tensors, GetDataSize, as_strided.
// How tensors travel through Any/AnyView and typed functions is test_tensor_any.cc.
#include <ffi/container/array.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Tensor;
using ffi::TensorView;

// ---------------------------------------------------------------------------------------------
// Allocation with a user allocator
// ---------------------------------------------------------------------------------------------

TEST(TensorAlloc, FromNDAllocCallsAllocAndFreeExactlyOnce) {
  Counters c;
  {
    Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {2, 3}, kF32, kCPU);
    EXPECT_EQ(c.alloc, 1);
    EXPECT_EQ(c.free, 0);
    EXPECT_EQ(c.last_bytes, 24u);
    EXPECT_EQ(t.data_ptr(), c.last_data);
    EXPECT_EQ(t.use_count(), 1u);
    EXPECT_EQ(t->type_index(), kTVMFFITensor);
    {
      Tensor copy = t;
      EXPECT_EQ(t.use_count(), 2u);
    }
    EXPECT_EQ(c.free, 0);  // a copy dying does not free
    Tensor moved = std::move(t);
    EXPECT_EQ(moved.use_count(), 1u);
    EXPECT_EQ(c.free, 0);
  }
  // The last reference is gone: FreeData ran exactly once, on the data AllocData produced.
  EXPECT_EQ(c.alloc, 1);
  EXPECT_EQ(c.free, 1);
  EXPECT_EQ(c.freed_data, c.last_data);
}

/*! \brief An allocator whose AllocData fails. */
struct ThrowingAlloc {
  Counters* c;
  void AllocData(DLTensor*) {
    ++c->alloc;
    FFI_THROW(RuntimeError) << "device out of memory";
  }
  void FreeData(DLTensor*) { ++c->free; }
};

TEST(TensorAlloc, FailedAllocDataPropagatesAndNeverFrees) {
  Counters c;
  ffi::Error e = CatchError([&] { Tensor::FromNDAlloc(ThrowingAlloc{&c}, {2, 3}, kF32, kCPU); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "device out of memory");
  EXPECT_EQ(c.alloc, 1);
  EXPECT_EQ(c.free, 0);  // nothing was allocated, so nothing is freed
}

TEST(TensorAlloc, FromNDAllocForwardsExtraArguments) {
  Counters c;
  size_t seen = 0;
  Tensor t =
      Tensor::FromNDAlloc(CountingAlloc{&c}, {4}, DLDataType{kDLUInt, 8, 1}, kCPU, 0x5A, &seen);
  EXPECT_EQ(seen, 4u);
  const auto* bytes = static_cast<const uint8_t*>(t.data_ptr());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(bytes[i], 0x5A) << i;
  t = Tensor();
  EXPECT_EQ(c.free, 1);
}

TEST(TensorAlloc, DataIsWritableAndSharedByCopies) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {3, 4}, kF32, kCPU);
  auto* p = static_cast<float*>(t.data_ptr());
  for (int i = 0; i < 12; ++i) p[i] = static_cast<float>(i);
  Tensor u = t;
  EXPECT_TRUE(u.same_as(t));
  EXPECT_EQ(static_cast<float*>(u.data_ptr())[11], 11.0f);
}

TEST(TensorAlloc, FromNDAllocStridedHonoursStrides) {
  Counters c;
  // A transposed (column-major) 3x4 layout.
  Tensor t = Tensor::FromNDAllocStrided(CountingAlloc{&c}, {3, 4}, {1, 3}, kF32, kCPU);
  EXPECT_EQ(c.alloc, 1);
  EXPECT_EQ(Vec(t.shape()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(t.stride(0), 1);
  EXPECT_EQ(t.stride(1), 3);
  EXPECT_EQ(t.stride(-2), 1);
  EXPECT_FALSE(t.IsContiguous());
  EXPECT_EQ(t.numel(), 12);

  // Row-major strides given explicitly are contiguous.
  Tensor r = Tensor::FromNDAllocStrided(CountingAlloc{&c}, {3, 4}, {4, 1}, kF32, kCPU);
  EXPECT_TRUE(r.IsContiguous());
  // A dimension of extent 1 may carry any stride.
  Tensor o = Tensor::FromNDAllocStrided(CountingAlloc{&c}, {2, 1, 3}, {3, 99, 1}, kF32, kCPU);
  EXPECT_TRUE(o.IsContiguous());
  EXPECT_EQ(o.stride(1), 99);
  // Gaps between rows (a padded layout) are not contiguous.
  Tensor padded =
      Tensor::FromNDAllocStrided(CountingAlloc{&c, 2 * 8 * 4}, {2, 3}, {8, 1}, kF32, kCPU);
  EXPECT_FALSE(padded.IsContiguous());
  EXPECT_EQ(c.alloc, 4);
}

TEST(TensorAlloc, FromNDAllocStridedRejectsMismatchedStrides) {
  Counters c;
  ffi::Error e = CatchError([&] {
    Tensor::FromNDAllocStrided(CountingAlloc{&c}, {2, 3}, {1}, kF32, kCPU);
  });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("1 strides for 2 dims"), std::string::npos) << e.message();
  e = CatchError([&] {
    Tensor::FromNDAllocStrided(CountingAlloc{&c}, {2, 3}, {3, 1, 1}, kF32, kCPU);
  });
  EXPECT_EQ(e.kind(), "ValueError");
  // Nothing was allocated for a refused request.
  EXPECT_EQ(c.alloc, 0);
  EXPECT_EQ(c.free, 0);
}

// ---------------------------------------------------------------------------------------------
// Accessors (seed 004's table)
// ---------------------------------------------------------------------------------------------

/*! \brief Checks every accessor on a 2x3x4 float32 CPU tensor `t` laid out row-major. */
template <typename T>
void CheckAccessors234(const T& t, void* data, uint64_t byte_offset) {
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.dtype(), kF32);
  EXPECT_EQ(Vec(t.shape()), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(1), 3);
  EXPECT_EQ(t.size(2), 4);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.size(-2), 3);
  EXPECT_EQ(t.size(-3), 2);
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_EQ(t.stride(-1), 1);
  EXPECT_EQ(t.stride(-3), 12);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.byte_offset(), byte_offset);
  EXPECT_EQ(t.data_ptr(), data);
  EXPECT_EQ(t.device(), kCPU);
  EXPECT_TRUE(t.IsContiguous());
  for (int64_t bad : {3, 4, 100, -4, -5}) {
    ffi::Error e = CatchError([&] { t.size(bad); });
    EXPECT_EQ(e.kind(), "IndexError") << bad;
    EXPECT_NE(e.message().find(std::to_string(bad)), std::string::npos) << e.message();
    EXPECT_EQ(CatchError([&] { t.stride(bad); }).kind(), "IndexError") << bad;
  }
}

TEST(TensorAccessors, OwningTensor) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c, 0, 16}, {2, 3, 4}, kF32, kCPU);
  CheckAccessors234(t, c.last_data, 16);
  EXPECT_EQ(t.GetDLTensorPtr(), static_cast<const DLTensor*>(t.get()));
}

TEST(TensorAccessors, ViewOfDLTensor) {
  alignas(64) float buf[32] = {};
  int64_t shape[] = {2, 3, 4};
  DLTensor dl{buf, kCPU, 3, kF32, shape, nullptr, 8};
  TensorView v(&dl);
  CheckAccessors234(v, buf, 8);
}

TEST(TensorAccessors, ViewOfTensor) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {2, 3, 4}, kF32, kCPU);
  TensorView v(t);
  CheckAccessors234(v, t.data_ptr(), 0);
  EXPECT_EQ(t.use_count(), 1u);  // a view takes no reference
}

TEST(TensorAccessors, DeviceDtypeAndVectorLanes) {
  Counters c;
  DLDataType f16x2{kDLFloat, 16, 2};
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {5}, f16x2, DLDevice{kDLCUDAHost, 3});
  EXPECT_EQ(t.dtype(), f16x2);
  EXPECT_NE(t.dtype(), (DLDataType{kDLFloat, 16, 1}));
  EXPECT_EQ(t.device(), (DLDevice{kDLCUDAHost, 3}));
  EXPECT_EQ(c.last_bytes, 20u);  // 5 elements x 2 lanes x 2 bytes
}

TEST(TensorAccessors, StridesFilledWhenTheAllocatorLeavesThemNull) {
  // An allocator that leaves strides NULL (legal in DLPack: compact) gets an object with compact
  // strides filled in, so every tensor object has strides, as the reference requires.
  Counters c;
  CountingAlloc alloc{&c};
  alloc.clear_strides = true;
  Tensor t = Tensor::FromNDAlloc(alloc, {2, 3, 4}, kF32, kCPU);
  ASSERT_NE(t.get()->strides, nullptr);
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.stride(-2), 4);
  EXPECT_TRUE(t.IsContiguous());
  TensorView v(t);
  EXPECT_EQ(Vec(v.strides()), (std::vector<int64_t>{12, 4, 1}));
}

TEST(TensorAccessors, ForeignObjectWithoutStrides) {
  // An object built elsewhere with NULL strides: Tensor::strides() refuses it clearly, a
  // TensorView of it computes compact ones without touching the object.
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {2, 3}, kF32, kCPU);
  auto* obj = const_cast<ffi::TensorObj*>(t.get());
  int64_t* saved = obj->strides;
  obj->strides = nullptr;
  ffi::Error e = CatchError([&] { t.strides(); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("no strides"), std::string::npos) << e.message();
  TensorView v(t);
  EXPECT_EQ(Vec(v.strides()), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(obj->strides, nullptr);
  obj->strides = saved;
}

TEST(TensorAccessors, IsAligned) {
  alignas(64) unsigned char buf[128] = {};
  int64_t shape[] = {4};
  DLTensor dl{buf, kCPU, 1, DLDataType{kDLUInt, 8, 1}, shape, nullptr, 0};
  EXPECT_TRUE(TensorView(&dl).IsAligned(64));
  dl.byte_offset = 1;
  EXPECT_FALSE(TensorView(&dl).IsAligned(64));
  EXPECT_FALSE(TensorView(&dl).IsAligned(2));
  EXPECT_TRUE(TensorView(&dl).IsAligned(1));
  dl.byte_offset = 32;
  EXPECT_TRUE(TensorView(&dl).IsAligned(32));
  EXPECT_FALSE(TensorView(&dl).IsAligned(64));
}

// ---------------------------------------------------------------------------------------------
// TensorView of DLTensors: strides filled in, storage owned by the view
// ---------------------------------------------------------------------------------------------

TEST(TensorView, RawTensorChecksUnderTheReferencesNames) {
  int64_t shape[2] = {2, 3};
  int64_t transposed[2] = {1, 2};
  alignas(64) float data[8];
  DLTensor t{data, kCPU, 2, kF32, shape, nullptr, 4};
  EXPECT_TRUE(ffi::IsContiguous(t));
  EXPECT_TRUE(ffi::IsAligned(t, 4) && !ffi::IsAligned(t, 8));
  t.strides = transposed;
  EXPECT_FALSE(ffi::IsContiguous(t));
  // On a device whose data pointer is a handle (OpenCL), only the byte offset counts.
  DLTensor handle{reinterpret_cast<void*>(3), {kDLOpenCL, 0}, 2, kF32, shape, nullptr, 64};
  EXPECT_TRUE(ffi::IsAligned(handle, 64));
  EXPECT_TRUE(ffi::IsDirectAddressDevice({kDLCUDAManaged, 0}));
  EXPECT_FALSE(ffi::IsDirectAddressDevice({kDLOpenCL, 0}));
}

TEST(TensorView, NullStridesGetCompactStridesWithoutTouchingProducer) {
  float buf[6] = {};
  int64_t shape[] = {2, 3};
  DLTensor dl{buf, kCPU, 2, kF32, shape, nullptr, 0};
  TensorView v(&dl);
  EXPECT_EQ(dl.strides, nullptr);  // the producer's description is untouched
  ASSERT_NE(v.dl_tensor()->strides, nullptr);
  EXPECT_EQ(Vec(v.strides()), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(v.dl_tensor()->shape, shape);  // extents are borrowed, not copied
  EXPECT_TRUE(v.IsContiguous());
}

TEST(TensorView, ProducerStridesAreBorrowed) {
  float buf[6] = {};
  int64_t shape[] = {2, 3};
  int64_t strides[] = {1, 2};
  DLTensor dl{buf, kCPU, 2, kF32, shape, strides, 0};
  TensorView v(&dl);
  EXPECT_EQ(v.strides().data(), strides);
  EXPECT_EQ(Vec(v.strides()), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(v.IsContiguous());
  TensorView copy(v);
  EXPECT_EQ(copy.strides().data(), strides);
}

/*! \brief Compact strides of `shape` computed independently of the headers. */
std::vector<int64_t> CompactStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

class TensorViewRank : public ::testing::TestWithParam<std::vector<int64_t>> {};

TEST_P(TensorViewRank, CopiesKeepTheirComputedStridesAlive) {
  std::vector<int64_t> shape = GetParam();
  std::vector<int64_t> expected = CompactStrides(shape);
  std::vector<float> buf(static_cast<size_t>(ffi::ShapeView(shape).Product()));
  DLTensor dl{buf.data(), kCPU, static_cast<int32_t>(shape.size()), kF32, shape.data(), nullptr, 0};
  auto source = std::make_unique<TensorView>(&dl);
  EXPECT_EQ(Vec(source->strides()), expected);

  TensorView copied(*source);
  int64_t other_shape[] = {7};
  DLTensor other{buf.data(), kCPU, 1, kF32, other_shape, nullptr, 0};
  TensorView assigned(&other);
  assigned = *source;
  // Strides computed inline (up to six dimensions) are copied; beyond that they live in a Shape
  // object the copies share. Either way they stay valid once the source view is gone.
  if (shape.size() <= 6) {
    EXPECT_NE(copied.strides().data(), source->strides().data());
    EXPECT_NE(assigned.strides().data(), source->strides().data());
    EXPECT_NE(assigned.strides().data(), copied.strides().data());
  }
  TensorView temporary(*source);
  TensorView moved(std::move(temporary));
  EXPECT_EQ(Vec(moved.strides()), expected);
  source.reset();
  EXPECT_EQ(copied.ndim(), static_cast<int32_t>(shape.size()));
  EXPECT_EQ(Vec(copied.strides()), expected);
  EXPECT_EQ(Vec(assigned.strides()), expected);
  EXPECT_EQ(Vec(moved.strides()), expected);
  EXPECT_EQ(assigned.numel(), ffi::ShapeView(shape).Product());
  EXPECT_EQ(copied.stride(-1), 1);
  EXPECT_EQ(assigned.stride(0), expected[0]);

  // A copy of a copy, after the first copy is gone.
  auto second = std::make_unique<TensorView>(copied);
  TensorView third(*second);
  second.reset();
  EXPECT_EQ(Vec(third.strides()), expected);
}

INSTANTIATE_TEST_SUITE_P(InlineAndHeap, TensorViewRank,
                         ::testing::Values(std::vector<int64_t>{5}, std::vector<int64_t>{2, 3, 4},
                                           std::vector<int64_t>{2, 1, 3, 1, 2, 2},     // 6: inline
                                           std::vector<int64_t>{2, 1, 3, 1, 2, 2, 1},  // 7: heap
                                           std::vector<int64_t>{2, 1, 3, 1, 2, 2, 1, 3}));

TEST(TensorView, AssignBetweenHeapAndInlineViews) {
  std::vector<int64_t> big = {2, 2, 2, 2, 2, 2, 2, 2};
  int64_t small[] = {4, 5};
  float buf[256] = {};
  DLTensor dl_big{buf, kCPU, 8, kF32, big.data(), nullptr, 0};
  DLTensor dl_small{buf, kCPU, 2, kF32, small, nullptr, 0};
  TensorView v(&dl_big);
  v = TensorView(&dl_small);
  EXPECT_EQ(Vec(v.strides()), (std::vector<int64_t>{5, 1}));
  v = TensorView(&dl_big);
  EXPECT_EQ(Vec(v.strides()), CompactStrides(big));
}

TEST(TensorView, SelfAssignmentKeepsStrides) {
  std::vector<int64_t> shape = {2, 3, 1, 2, 2, 1, 3, 2};  // heap-stored strides
  std::vector<float> buf(144);
  DLTensor dl{buf.data(), kCPU, 8, kF32, shape.data(), nullptr, 0};
  TensorView v(&dl);
  TensorView& alias = v;
  v = alias;
  EXPECT_EQ(Vec(v.strides()), CompactStrides(shape));
}

TEST(TensorView, FromTensorSeesTheSameData) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {2, 2}, kF32, kCPU);
  TensorView v = t;
  EXPECT_EQ(v.data_ptr(), t.data_ptr());
  EXPECT_EQ(v.dl_tensor()->shape, t.get()->shape);
  static_cast<float*>(v.data_ptr())[3] = 4.5f;
  EXPECT_EQ(static_cast<float*>(t.data_ptr())[3], 4.5f);
  EXPECT_EQ(t.use_count(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Zero-size tensors and 0-d scalars
// ---------------------------------------------------------------------------------------------

TEST(TensorEdge, ZeroSizeLeadingExtent) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {0, 3}, kF32, kCPU);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(ffi::GetDataSize(*t.get()), 0u);
  EXPECT_EQ(t.size(0), 0);
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{3, 1}));
  EXPECT_TRUE(t.IsContiguous());
  t = Tensor();
  EXPECT_EQ(c.alloc, 1);
  EXPECT_EQ(c.free, 1);
}

TEST(TensorEdge, ZeroSizeInnerExtentIsContiguous) {
  // A tensor with no elements is compact whatever its layout; in particular the compact strides
  // the library computes itself must count as contiguous.
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {2, 0, 3}, kF32, kCPU);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.size(1), 0);
  EXPECT_TRUE(t.IsContiguous()) << "strides " << t.strides();

  float dummy = 0;
  int64_t shape[] = {2, 0, 3};
  DLTensor dl{&dummy, kCPU, 3, kF32, shape, nullptr, 0};
  TensorView v(&dl);
  EXPECT_EQ(v.numel(), 0);
  EXPECT_TRUE(v.IsContiguous()) << "strides " << v.strides();
}

TEST(TensorEdge, ZeroDimScalar) {
  Counters c;
  Tensor t =
      Tensor::FromNDAlloc(CountingAlloc{&c}, ffi::ShapeView(), DLDataType{kDLInt, 64, 1}, kCPU);
  EXPECT_EQ(t.ndim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(c.last_bytes, 8u);
  EXPECT_TRUE(t.shape().empty());
  EXPECT_TRUE(t.strides().empty());
  EXPECT_TRUE(t.IsContiguous());
  *static_cast<int64_t*>(t.data_ptr()) = 42;
  EXPECT_EQ(CatchError([&] { t.size(0); }).kind(), "IndexError");
  EXPECT_EQ(CatchError([&] { t.size(-1); }).kind(), "IndexError");
  EXPECT_EQ(CatchError([&] { t.stride(0); }).kind(), "IndexError");

  int64_t value = 7;
  DLTensor dl{&value, kCPU, 0, DLDataType{kDLInt, 64, 1}, nullptr, nullptr, 0};
  TensorView v(&dl);
  EXPECT_EQ(v.ndim(), 0);
  EXPECT_EQ(v.numel(), 1);
  EXPECT_TRUE(v.strides().empty());
  EXPECT_TRUE(v.IsContiguous());
  EXPECT_EQ(*static_cast<int64_t*>(v.data_ptr()), 7);
  TensorView copy = v;
  EXPECT_EQ(copy.numel(), 1);
}

// ---------------------------------------------------------------------------------------------
// GetDataSize
// ---------------------------------------------------------------------------------------------

TEST(TensorDataSize, WholeAndSubByteAndVectorTypes) {
  int64_t shape3[] = {3};
  DLTensor t{nullptr, kCPU, 1, DLDataType{kDLFloat4_e2m1fn, 4, 1}, shape3, nullptr, 0};
  EXPECT_EQ(ffi::GetDataSize(t), 2u);  // 3 x 4 bits = 12 bits -> 2 bytes
  t.dtype = DLDataType{kDLFloat6_e2m3fn, 6, 1};
  EXPECT_EQ(ffi::GetDataSize(t), 3u);  // 18 bits -> 3 bytes
  t.dtype = DLDataType{kDLBool, 8, 1};
  EXPECT_EQ(ffi::GetDataSize(t), 3u);
  t.dtype = DLDataType{kDLFloat, 32, 4};
  EXPECT_EQ(ffi::GetDataSize(t), 48u);  // float32x4
  t.dtype = DLDataType{kDLInt, 4, 2};
  EXPECT_EQ(ffi::GetDataSize(t), 3u);  // 3 x 2 lanes x 4 bits = 24 bits

  int64_t shape23[] = {2, 3};
  DLTensor m{nullptr, kCPU, 2, DLDataType{kDLFloat, 64, 1}, shape23, nullptr, 0};
  EXPECT_EQ(ffi::GetDataSize(m), 48u);
  int64_t shape0[] = {4, 0};
  m.shape = shape0;
  EXPECT_EQ(ffi::GetDataSize(m), 0u);
  DLTensor scalar{nullptr, kCPU, 0, DLDataType{kDLFloat, 16, 1}, nullptr, nullptr, 0};
  EXPECT_EQ(ffi::GetDataSize(scalar), 2u);

  EXPECT_EQ(ffi::GetDataSize(1, DLDataType{kDLFloat4_e2m1fn, 4, 1}), 1u);
  EXPECT_EQ(ffi::GetDataSize(4, DLDataType{kDLFloat4_e2m1fn, 4, 1}), 2u);
  EXPECT_EQ(ffi::GetDataSize(5, DLDataType{kDLFloat4_e2m1fn, 4, 1}), 3u);
  EXPECT_EQ(ffi::GetDataSize(1000, DLDataType{kDLBfloat, 16, 1}), 2000u);
  EXPECT_EQ(ffi::GetDataSize(3, DLDataType{kDLFloat, 16, 8}), 48u);
}

TEST(TensorDataSize, OfTensorsAndViews) {
  // ffi::GetDataSize(t) on an owning tensor and on a view: elements times element size.
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {3, 5}, DLDataType{kDLFloat, 16, 1}, kCPU);
  EXPECT_EQ(ffi::GetDataSize(t), 30u);
  TensorView v = t;
  EXPECT_EQ(ffi::GetDataSize(v), 30u);
  // Sub-byte types round up over the whole tensor, for views of a DLTensor too.
  int64_t shape[] = {7};
  DLTensor dl{nullptr, kCPU, 1, DLDataType{kDLFloat4_e2m1fn, 4, 1}, shape, nullptr, 0};
  EXPECT_EQ(ffi::GetDataSize(TensorView(&dl)), 4u);
  // A strided view counts its elements, not the span its strides cover.
  int64_t strided_shape[] = {2, 2};
  int64_t strides[] = {8, 1};
  DLTensor s{nullptr, kCPU, 2, kF32, strided_shape, strides, 0};
  EXPECT_EQ(ffi::GetDataSize(TensorView(&s)), 16u);
  // A view with a negative extent is refused the same way as the DLTensor overload refuses it.
  shape[0] = -1;
  EXPECT_EQ(CatchError([&] { ffi::GetDataSize(TensorView(&dl)); }).kind(), "ValueError");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// as_strided and the Shape iterator constructor
// ---------------------------------------------------------------------------------------------

TEST(TensorStrided, TensorAsStridedSharesDataAndKeepsItAlive) {
  Counters c;
  Tensor strided;
  {
    Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {3, 4}, kF32, kCPU);
    auto* p = static_cast<float*>(t.data_ptr());
    for (int i = 0; i < 12; ++i) p[i] = static_cast<float>(i);
    int64_t shape[] = {4, 2};
    int64_t strides[] = {1, 4};  // the transpose of the first two rows
    strided = t.as_strided(ffi::ShapeView(shape, 2), ffi::ShapeView(strides, 2), 1);
    shape[0] = strides[0] = -7;  // the new tensor copied them
  }
  EXPECT_EQ(c.free, 0);  // the base is kept alive by the strided tensor
  EXPECT_EQ(strided.ndim(), 2);
  EXPECT_EQ(strided.size(0), 4);
  EXPECT_EQ(strided.stride(0), 1);
  EXPECT_EQ(strided.stride(1), 4);
  EXPECT_EQ(strided.byte_offset(), 0u);  // CPU: the offset moved the data pointer
  const float* q = static_cast<const float*>(strided.data_ptr());
  EXPECT_EQ(q[0], 1.0f);
  EXPECT_EQ(q[1 * 1 + 1 * 4], 6.0f);  // element (1, 1)
  EXPECT_FALSE(strided.IsContiguous());
  strided = Tensor();
  EXPECT_EQ(c.free, 1);
}

TEST(TensorStrided, ViewAsStridedAndErrors) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {6}, kF32, kCPU);
  TensorView v = t;
  int64_t shape[] = {2, 3};
  int64_t strides[] = {3, 1};
  TensorView m = v.as_strided(ffi::ShapeView(shape, 2), ffi::ShapeView(strides, 2));
  EXPECT_EQ(m.ndim(), 2);
  EXPECT_EQ(m.data_ptr(), t.data_ptr());
  EXPECT_TRUE(m.IsContiguous());
  EXPECT_EQ(CatchError([&] {
              (void)v.as_strided(ffi::ShapeView(shape, 2), ffi::ShapeView(strides, 1));
            }).kind(),
            "ValueError");
  EXPECT_EQ(CatchError([&] {
              (void)t.as_strided(ffi::ShapeView(shape, 2), ffi::ShapeView(strides, 2), -1);
            }).kind(),
            "ValueError");
  // On a device without direct addressing the offset stays a byte offset.
  DLTensor other = *t.GetDLTensorPtr();
  other.device = DLDevice{kDLVulkan, 0};
  TensorView shifted =
      TensorView(&other).as_strided(ffi::ShapeView(shape, 2), ffi::ShapeView(strides, 2), 2);
  EXPECT_EQ(shifted.byte_offset(), 8u);
  EXPECT_EQ(shifted.data_ptr(), t.data_ptr());
}

TEST(TensorStrided, ShapeFromIteratorRange) {
  int64_t buf[] = {2, 3, 5};
  ffi::Shape s(buf, buf + 3);
  EXPECT_EQ(s, ffi::Shape({2, 3, 5}));
  std::vector<int> ints = {7, 8};
  ffi::Shape t(ints.begin(), ints.end());
  EXPECT_EQ(t, ffi::Shape({7, 8}));
  EXPECT_EQ(ffi::Shape(buf, buf).size(), 0u);
}

TEST(TensorStrided, ShapeFromAnyIntegerRange) {
  std::vector<int64_t> v = {4, 5};
  EXPECT_EQ(ffi::Shape(v), ffi::Shape({4, 5}));
  std::vector<int> ints = {1, 2, 3};
  EXPECT_EQ(ffi::Shape(ints), ffi::Shape({1, 2, 3}));
  ffi::Array<int64_t> arr = {6, 7};
  ffi::Shape from_array = arr;
  EXPECT_EQ(from_array, ffi::Shape({6, 7}));
}

TEST(TensorStrided, ShapeFromAViewIsACopy) {
  int64_t dims[] = {2, 3};
  ffi::Shape s = ffi::ShapeView(dims, 2);
  dims[0] = 9;
  EXPECT_EQ(s, ffi::Shape({2, 3}));
}
