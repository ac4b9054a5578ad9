// Sizes never wrap: element counts and byte sizes (ShapeView::Product, GetDataSize, compact
// strides, Tensor::FromNDAlloc/FromEnvAlloc, the environment allocator, DLPack import) raise
// ValueError for a negative extent or ndim and OverflowError for a size beyond 64 bits, before
// anything is allocated; the sizes at the very edge still work.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "testing.h"

// Under AddressSanitizer a huge allocation aborts by default; the test below wants malloc's answer.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace {

using namespace ffi_testing;

using ffi::Tensor;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2To32 = int64_t{1} << 32;
constexpr DLDataType kI8{kDLInt, 8, 1};
constexpr DLDataType kI4{kDLInt, 4, 1};

// ---------------------------------------------------------------------------------------------
// Shape products
// ---------------------------------------------------------------------------------------------

TEST(ShapeProduct, OrdinaryEmptyAndEdge) {
  EXPECT_EQ(ffi::ShapeView({2, 3, 4}).Product(), 24);
  EXPECT_EQ(ffi::ShapeView().Product(), 1);
  EXPECT_EQ(ffi::ShapeView({kMax, 1}).Product(), kMax);
  EXPECT_EQ(ffi::Shape({k2To32, k2To32 / 2 - 1}).Product(), k2To32 * (k2To32 / 2 - 1));
}

TEST(ShapeStrides, CompactStridesUnderEveryName) {
  // Shape's members and strides helpers under TVM-FFI's names (data() lets c10::IntArrayRef and
  // other containers' constructors take a Shape).
  ffi::Shape shape({2, 3, 4});
  EXPECT_EQ(shape.data()[1], 3);
  EXPECT_FALSE(shape.empty());
  EXPECT_TRUE(ffi::Shape().empty());
  EXPECT_EQ(shape.front(), 2);
  EXPECT_EQ(shape.back(), 4);
  EXPECT_EQ(ExpectError([] { (void)ffi::Shape().back(); }).kind(), "IndexError");
  EXPECT_EQ(ffi::Shape::StridesFromShape(shape), ffi::Shape({12, 4, 1}));
  int64_t out[3] = {};
  ffi::details::FillStridesFromShape(shape, out);
  EXPECT_EQ(ffi::ShapeView(out, 3), ffi::ShapeView({12, 4, 1}));
  ffi::ObjectPtr<ffi::ShapeObj> strides = ffi::details::MakeStridesFromShape({5, 0, 2});
  EXPECT_EQ(ffi::ShapeView(strides->data, strides->size), ffi::ShapeView({2, 2, 1}));
  int64_t* data = nullptr;
  ffi::ObjectPtr<ffi::ShapeObj> empty = ffi::details::MakeEmptyShape(2, &data);
  data[0] = 7;
  EXPECT_EQ(empty->data[0], 7);
  EXPECT_EQ(ffi::details::MakeEmptyShape(0, nullptr)->size, 0u);
  // Strides that do not fit in 64 bits (reachable only past a zero extent) are refused.
  EXPECT_EQ(ExpectError([] {
              (void)ffi::Shape::StridesFromShape({0, k2To32, k2To32});
            }).kind(),
            "OverflowError");
}

TEST(ShapeProduct, ZeroExtentWinsOverOverflow) {
  // The extents before the zero overflow on their own; the product is still 0.
  EXPECT_EQ(ffi::ShapeView({k2To32, k2To32, 0}).Product(), 0);
  EXPECT_EQ(ffi::Shape({0, kMax, kMax}).Product(), 0);
}

TEST(ShapeProduct, NegativeExtentIsValueError) {
  ffi::Error e = ExpectError([] { (void)ffi::ShapeView({2, -3}).Product(); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("-3"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("dimension 1"), std::string::npos) << e.message();
  // A negative extent is an error even beside a zero one.
  EXPECT_EQ(ExpectError([] { (void)ffi::Shape({0, -1}).Product(); }).kind(), "ValueError");
}

TEST(ShapeProduct, OverflowIsOverflowError) {
  EXPECT_EQ(ExpectError([] {
              (void)ffi::ShapeView({k2To32, k2To32}).Product();
            }).kind(),
            "OverflowError");
  EXPECT_EQ(ExpectError([] { (void)ffi::ShapeView({kMax, 2}).Product(); }).kind(), "OverflowError");
  // Wrapping twice would come back to a small positive number; it is still refused.
  EXPECT_EQ(ExpectError([] {
              (void)ffi::ShapeView({k2To32, k2To32, 4}).Product();
            }).kind(),
            "OverflowError");
}

// ---------------------------------------------------------------------------------------------
// GetDataSize
// ---------------------------------------------------------------------------------------------

TEST(GetDataSize, OrdinaryAndSubByte) {
  EXPECT_EQ(ffi::GetDataSize(6, kF32), 24u);
  EXPECT_EQ(ffi::GetDataSize(3, kI4), 2u);  // 12 bits round up to 2 bytes
  EXPECT_EQ(ffi::GetDataSize(0, kF32), 0u);
  EXPECT_EQ(ffi::GetDataSize(5, DLDataType{kDLFloat, 32, 4}), 80u);
}

TEST(GetDataSize, LargestSizeFitsAndOneMoreOverflows) {
  // The size is computed in bits, so the largest count of int8 elements is 2^61 - 1.
  constexpr int64_t kLargest = (int64_t{1} << 61) - 1;
  EXPECT_EQ(ffi::GetDataSize(kLargest, kI8), static_cast<size_t>(kLargest));
  ffi::Error e = ExpectError([] { (void)ffi::GetDataSize(kLargest + 1, kI8); });
  EXPECT_EQ(e.kind(), "OverflowError");
  EXPECT_NE(e.message().find("overflows"), std::string::npos) << e.message();
  EXPECT_EQ(ExpectError([] { (void)ffi::GetDataSize(kMax, kF32); }).kind(), "OverflowError");
  // Lanes multiply too.
  EXPECT_EQ(ExpectError([] {
              (void)ffi::GetDataSize(int64_t{1} << 50, DLDataType{kDLFloat, 64, 1024});
            }).kind(),
            "OverflowError");
}

TEST(GetDataSize, NegativeCountIsValueError) {
  EXPECT_EQ(ExpectError([] { (void)ffi::GetDataSize(-1, kF32); }).kind(), "ValueError");
}

TEST(GetDataSize, OfADLTensor) {
  int64_t shape[] = {k2To32, k2To32};
  DLTensor t{nullptr, kCPU, 2, kF32, shape, nullptr, 0};
  EXPECT_EQ(ExpectError([&] { (void)ffi::GetDataSize(t); }).kind(), "OverflowError");
  shape[0] = -2;
  EXPECT_EQ(ExpectError([&] { (void)ffi::GetDataSize(t); }).kind(), "ValueError");
  shape[0] = 3, shape[1] = 5;
  EXPECT_EQ(ffi::GetDataSize(t), 60u);
  t.ndim = -1;
  EXPECT_EQ(ExpectError([&] { (void)ffi::GetDataSize(t); }).kind(), "ValueError");
  t.ndim = ffi::kMaxTensorNDim + 1;  // refused before the (short) shape is read
  EXPECT_EQ(ExpectError([&] { (void)ffi::GetDataSize(t); }).kind(), "ValueError");
  t.ndim = 2;
  t.shape = nullptr;
  EXPECT_EQ(ExpectError([&] { (void)ffi::GetDataSize(t); }).kind(), "ValueError");
}

TEST(TensorViewSizes, NumelOverflowAndCompactStridesOverflow) {
  int64_t shape[] = {k2To32, k2To32};
  int64_t strides[] = {k2To32, 1};
  DLTensor t{nullptr, kCPU, 2, kF32, shape, strides, 0};
  ffi::TensorView view(&t);
  EXPECT_EQ(ExpectError([&] { (void)view.numel(); }).kind(), "OverflowError");
  // A layout whose element count overflows is not compact (and checking says so without UB).
  EXPECT_FALSE(view.IsContiguous());

  // Compact strides of a tensor with no elements can overflow though its size cannot.
  int64_t empty_shape[] = {0, int64_t{1} << 62, int64_t{1} << 62};
  DLTensor empty{nullptr, kCPU, 3, kF32, empty_shape, nullptr, 0};
  EXPECT_EQ(ffi::GetDataSize(empty), 0u);
  EXPECT_EQ(ExpectError([&] { ffi::TensorView v(&empty); }).kind(), "OverflowError");
}

TEST(ObjectAllocation, ExtraBytesThatWouldWrapAreRefused) {
  EXPECT_THROW((void)ffi::make_object_with_extra<ffi::ShapeObj>(SIZE_MAX - 4), std::bad_alloc);
  int64_t* data = nullptr;
  EXPECT_EQ(ExpectError([&] { (void)ffi::detail::AllocShapeObj(SIZE_MAX / 4, &data); }).kind(),
            "OverflowError");
}

// ---------------------------------------------------------------------------------------------
// Allocation: FromNDAlloc, FromEnvAlloc, the environment allocator
// ---------------------------------------------------------------------------------------------

TEST(FromNDAlloc, HugeOrNegativeShapesNeverReachTheAllocator) {
  int live = 0;
  CountingCPUAlloc alloc{nullptr, &live};
  ffi::Error e = ExpectError([&] { Tensor::FromNDAlloc(alloc, {k2To32, k2To32}, kF32, kCPU); });
  EXPECT_EQ(e.kind(), "OverflowError");
  EXPECT_NE(e.message().find("FromNDAlloc"), std::string::npos) << e.message();
  // Bytes overflow though the count does not.
  EXPECT_EQ(ExpectError([&] {
              Tensor::FromNDAlloc(alloc, {int64_t{1} << 60, 8}, kF32, kCPU);
            }).kind(),
            "OverflowError");
  EXPECT_EQ(ExpectError([&] {
              Tensor::FromNDAlloc(alloc, {4, -1}, kF32, kCPU);
            }).kind(),
            "ValueError");
  std::vector<int64_t> too_many(ffi::kMaxTensorNDim + 1, 1);
  EXPECT_EQ(ExpectError([&] { Tensor::FromNDAlloc(alloc, too_many, kF32, kCPU); }).kind(),
            "ValueError");
  EXPECT_EQ(ExpectError([&] {
              Tensor::FromNDAllocStrided(alloc, {k2To32, k2To32}, {1, 1}, kF32, kCPU);
            }).kind(),
            "OverflowError");
  EXPECT_EQ(live, 0);

  // The largest ndim is fine.
  std::vector<int64_t> ones(ffi::kMaxTensorNDim, 1);
  Tensor t = Tensor::FromNDAlloc(alloc, ones, kF32, kCPU);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(live, 1);
}

TEST(FromEnvAlloc, HugeShapesAreRefusedBeforeAllocating) {
  ffi::Error e = ExpectError([] {
    Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {k2To32, k2To32}, kF32, kCPU);
  });
  EXPECT_EQ(e.kind(), "OverflowError");
  // Through the C entry point: the same error, raised.
  int64_t shape[] = {int64_t{1} << 61, 4};
  DLTensor proto{nullptr, kCPU, 2, kI8, shape, nullptr, 0};
  TVMFFIObjectHandle out = nullptr;
  EXPECT_NE(TVMFFIEnvTensorAlloc(&proto, &out), 0);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(TakeRaised().kind(), "OverflowError");
  proto.ndim = ffi::kMaxTensorNDim + 1;
  EXPECT_NE(TVMFFIEnvTensorAlloc(&proto, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");
}

TEST(FromEnvAlloc, LargeButRepresentableSizeIsAMemoryErrorNotACrash) {
  // 2^60 bytes: representable, never allocatable.
  ffi::Error e = ExpectError(
      [] { Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {int64_t{1} << 60}, kI8, kCPU); });
  EXPECT_EQ(e.kind(), "MemoryError");
}

// ---------------------------------------------------------------------------------------------
// DLPack import
// ---------------------------------------------------------------------------------------------

/*! \brief A versioned producer whose deleter counts; its shape and strides are the test's. */
struct Producer {
  std::vector<int64_t> shape, strides;
  int deleted = 0;
  DLManagedTensorVersioned managed{};
  Producer(std::vector<int64_t> shape_in, std::vector<int64_t> strides_in, DLDataType dtype)
      : shape(std::move(shape_in)), strides(std::move(strides_in)) {
    managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    managed.dl_tensor = DLTensor{reinterpret_cast<void*>(uintptr_t{4096}),
                                 kCPU,
                                 static_cast<int32_t>(shape.size()),
                                 dtype,
                                 shape.data(),
                                 strides.empty() ? nullptr : strides.data(),
                                 0};
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensorVersioned* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
  }
  /*! \brief Imports; returns the raised error's kind ("" on success) and releases any result. */
  std::string Import(int32_t alignment = 0, int32_t contiguous = 0) {
    TVMFFIObjectHandle out = nullptr;
    if (TVMFFITensorFromDLPackVersioned(&managed, alignment, contiguous, &out) != 0) {
      EXPECT_EQ(out, nullptr);
      return TakeRaised().kind();
    }
    TVMFFIObjectDecRef(out);
    return "";
  }
};

TEST(DLPackSizes, ElementCountOverflowIsRefused) {
  Producer p({k2To32, k2To32}, {}, kF32);
  EXPECT_EQ(p.Import(), "OverflowError");
  EXPECT_EQ(p.deleted, 0);  // refused: still the producer's
}

TEST(DLPackSizes, ByteSizeOverflowIsRefusedEvenWhenBroadcast) {
  // 2^62 elements of 4 bytes: the count fits, the bytes do not. Zero strides address one element,
  // but GetDataSize and numel on the imported tensor must still be computable.
  Producer p({int64_t{1} << 31, int64_t{1} << 31}, {0, 0}, kF32);
  EXPECT_EQ(p.Import(), "OverflowError");
  EXPECT_EQ(p.deleted, 0);  // refused: still the producer's
}

TEST(DLPackSizes, StridesAddressingBeyond64BitsAreRefused) {
  Producer big({3, 3}, {int64_t{1} << 62, 1}, kI8);
  EXPECT_EQ(big.Import(), "OverflowError");
  EXPECT_EQ(big.deleted, 0);  // refused: still the producer's
  Producer negative({3, 2}, {std::numeric_limits<int64_t>::min() / 2, 1}, kI8);
  EXPECT_EQ(negative.Import(), "OverflowError");
  EXPECT_EQ(negative.deleted, 0);  // refused: still the producer's
  // Element offsets that fit but bytes that do not.
  Producer wide({2}, {int64_t{1} << 61}, kF32);
  EXPECT_EQ(wide.Import(), "OverflowError");
  EXPECT_EQ(wide.deleted, 0);  // refused: still the producer's
  // Negative strides within range are fine.
  Producer ok({3, 2}, {-2, 1}, kF32);
  EXPECT_EQ(ok.Import(), "");
  EXPECT_EQ(ok.deleted, 1);
}

TEST(DLPackSizes, ByteOffsetOverflowIsRefused) {
  Producer p({4}, {}, kF32);
  p.managed.dl_tensor.byte_offset = std::numeric_limits<uint64_t>::max() - 8;
  EXPECT_EQ(p.Import(), "OverflowError");
  EXPECT_EQ(p.deleted, 0);  // refused: still the producer's
}

TEST(DLPackSizes, CompactStridesOverflowOfAnEmptyTensorIsRefused) {
  Producer p({0, int64_t{1} << 62, int64_t{1} << 62}, {}, kF32);
  EXPECT_EQ(p.Import(), "OverflowError");
  EXPECT_EQ(p.deleted, 0);  // refused: still the producer's
  // With strides given the same empty tensor is fine: nothing is addressed.
  Producer strided({0, int64_t{1} << 62, int64_t{1} << 62}, {1, 1, 1}, kF32);
  EXPECT_EQ(strided.Import(), "");
  EXPECT_EQ(strided.deleted, 1);
}

TEST(DLPackSizes, AbsurdNdimIsRefusedWithoutReadingTheShape) {
  // The shape array holds 1 extent; an ndim past the bound must not make the runtime read more.
  for (int32_t ndim : {ffi::kMaxTensorNDim + 1, std::numeric_limits<int32_t>::max(), -1,
                       std::numeric_limits<int32_t>::min()}) {
    Producer p({1}, {}, kF32);
    p.managed.dl_tensor.ndim = ndim;
    EXPECT_EQ(p.Import(), "ValueError") << ndim;
    EXPECT_EQ(p.deleted, 0) << ndim;  // refused: still the producer's
  }
  Producer edge(std::vector<int64_t>(ffi::kMaxTensorNDim, 1), {}, kF32);
  EXPECT_EQ(edge.Import(0, 1), "");
  EXPECT_EQ(edge.deleted, 1);
}

TEST(DLPackSizes, LargestImportableTensorHasComputableSizes) {
  // 2^61 - 1 int8 elements: the largest byte size; never read, so the address is fake.
  Producer p({(int64_t{1} << 61) - 1}, {}, kI8);
  TVMFFIObjectHandle out = nullptr;
  ASSERT_EQ(TVMFFITensorFromDLPackVersioned(&p.managed, 0, 1, &out), 0);
  Tensor t = ffi::detail::ObjectUnsafe::RefFromOwnedHeader<Tensor>(out);
  EXPECT_EQ(t.numel(), (int64_t{1} << 61) - 1);
  EXPECT_EQ(ffi::GetDataSize(*t.dl_tensor()), static_cast<size_t>((int64_t{1} << 61) - 1));
  t = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

}  // namespace
