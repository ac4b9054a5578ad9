// DLPack import and export: legacy and versioned round trips sharing data, flags on re-export,
// strided and zero-size tensors, the producer's deleter (exactly once: after the last reference on
// success, immediately on every refusal), the export's deleter, and the C entry points' errors.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Tensor;

/*!
 * \brief A DLPack producer living on the test's stack: 64-byte aligned storage, its own shape and
 * strides arrays, and a deleter that counts. Tests read `deleted` to see when (and how often) the
 * consumer released the tensor.
 */
struct Producer {
  alignas(64) unsigned char storage[512] = {};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int deleted = 0;
  DLManagedTensor legacy{};
  DLManagedTensorVersioned versioned{};

  Producer(std::vector<int64_t> shape_in, std::vector<int64_t> strides_in = {},
           DLDataType dtype = kF32)
      : shape(std::move(shape_in)), strides(std::move(strides_in)) {
    DLTensor t{storage,
               kCPU,
               static_cast<int32_t>(shape.size()),
               dtype,
               shape.empty() ? nullptr : shape.data(),
               strides.empty() ? nullptr : strides.data(),
               0};
    legacy.dl_tensor = t;
    legacy.manager_ctx = this;
    legacy.deleter = [](DLManagedTensor* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
    versioned.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    versioned.dl_tensor = t;
    versioned.manager_ctx = this;
    versioned.flags = 0;
    versioned.deleter = [](DLManagedTensorVersioned* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
  }
  Producer(const Producer&) = delete;
};

// ---------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------

/*! \brief Checks that `a` and `b` describe the same data the same way. */
void ExpectSameTensor(const DLTensor& a, const DLTensor& b) {
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.dtype, b.dtype);
  ASSERT_EQ(a.ndim, b.ndim);
  EXPECT_EQ(a.byte_offset, b.byte_offset);
  EXPECT_EQ(Vec(ffi::ShapeView(a.shape, a.ndim)), Vec(ffi::ShapeView(b.shape, b.ndim)));
  std::vector<int64_t> sa =
      a.strides ? Vec(ffi::ShapeView(a.strides, a.ndim)) : Vec(ffi::TensorView(&a).strides());
  std::vector<int64_t> sb =
      b.strides ? Vec(ffi::ShapeView(b.strides, b.ndim)) : Vec(ffi::TensorView(&b).strides());
  EXPECT_EQ(sa, sb);
}

TEST(DLPackRoundTrip, LegacySharesEverything) {
  int freed = 0;
  Tensor t = Tensor::FromNDAlloc(CountingCPUAlloc{&freed}, {2, 3, 4}, kF32, DLDevice{kDLCPU, 0});
  static_cast<float*>(t.data_ptr())[5] = 3.25f;
  DLManagedTensor* m = t.ToDLPack();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(t.use_count(), 2u);  // the export holds one reference
  ExpectSameTensor(m->dl_tensor, *t.get());
  ASSERT_NE(m->deleter, nullptr);

  Tensor u = Tensor::FromDLPack(m);
  EXPECT_FALSE(u.same_as(t));             // a new tensor object ...
  EXPECT_EQ(u.data_ptr(), t.data_ptr());  // ... over the same data
  ExpectSameTensor(*u.get(), *t.get());
  EXPECT_EQ(static_cast<float*>(u.data_ptr())[5], 3.25f);
  EXPECT_EQ(t.use_count(), 2u);

  t = Tensor();
  EXPECT_EQ(freed, 0);  // the imported tensor still holds the original through the export
  EXPECT_EQ(static_cast<float*>(u.data_ptr())[5], 3.25f);
  u = Tensor();
  EXPECT_EQ(freed, 1);
}

TEST(DLPackRoundTrip, VersionedSharesEverythingAndReportsVersion) {
  int freed = 0;
  Tensor t = Tensor::FromNDAlloc(CountingCPUAlloc{&freed}, {4, 5}, DLDataType{kDLBfloat, 16, 1},
                                 DLDevice{kDLCPU, 0});
  DLManagedTensorVersioned* m = t.ToDLPackVersioned();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->version.major, 1u);
  EXPECT_EQ(m->version.minor, 3u);
  EXPECT_EQ(m->version.major, static_cast<uint32_t>(DLPACK_MAJOR_VERSION));
  EXPECT_EQ(m->version.minor, static_cast<uint32_t>(DLPACK_MINOR_VERSION));
  EXPECT_EQ(m->flags, 0u);  // a tensor made here is writable and not a copy
  ExpectSameTensor(m->dl_tensor, *t.get());
  EXPECT_EQ(t.use_count(), 2u);

  Tensor u = Tensor::FromDLPackVersioned(m);
  ExpectSameTensor(*u.get(), *t.get());
  EXPECT_EQ(u.dtype(), (DLDataType{kDLBfloat, 16, 1}));
  t = Tensor();
  EXPECT_EQ(freed, 0);
  u = Tensor();
  EXPECT_EQ(freed, 1);
}

TEST(DLPackRoundTrip, ProducerByteOffsetDeviceAndDtypeSurvive) {
  Producer p({3, 2}, {}, DLDataType{kDLInt, 16, 1});
  p.versioned.dl_tensor.byte_offset = 64;
  p.versioned.dl_tensor.device = DLDevice{kDLCUDAHost, 2};
  Tensor t = Tensor::FromDLPackVersioned(&p.versioned);
  EXPECT_EQ(t.byte_offset(), 64u);
  EXPECT_EQ(t.data_ptr(), p.storage);
  EXPECT_EQ(t.device(), (DLDevice{kDLCUDAHost, 2}));
  EXPECT_EQ(t.dtype(), (DLDataType{kDLInt, 16, 1}));
  // Strides the producer left NULL are filled in.
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{2, 1}));
  // The shape was copied: the producer may reuse its arrays.
  EXPECT_NE(t.shape().data(), p.shape.data());

  DLManagedTensor* legacy = t.ToDLPack();
  EXPECT_EQ(legacy->dl_tensor.byte_offset, 64u);
  EXPECT_EQ(legacy->dl_tensor.device, (DLDevice{kDLCUDAHost, 2}));
  Tensor u = Tensor::FromDLPack(legacy);
  ExpectSameTensor(*u.get(), *t.get());
  EXPECT_EQ(u.byte_offset(), 64u);
  t = Tensor();
  u = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

TEST(DLPackRoundTrip, StridedTensorKeepsStrides) {
  // A 3x4 view of a transposed 4x3 buffer.
  Producer p({3, 4}, {1, 3});
  Tensor t = Tensor::FromDLPackVersioned(&p.versioned);
  EXPECT_EQ(Vec(t.strides()), (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(t.IsContiguous());
  EXPECT_EQ(t.stride(-1), 3);

  DLManagedTensorVersioned* v = t.ToDLPackVersioned();
  ASSERT_NE(v->dl_tensor.strides, nullptr);
  EXPECT_EQ(Vec(ffi::ShapeView(v->dl_tensor.strides, 2)), (std::vector<int64_t>{1, 3}));
  Tensor u = Tensor::FromDLPackVersioned(v);
  EXPECT_EQ(Vec(u.strides()), (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(u.IsContiguous());

  DLManagedTensor* l = u.ToDLPack();
  Tensor w = Tensor::FromDLPack(l);
  ExpectSameTensor(*w.get(), *t.get());
  t = Tensor();
  u = Tensor();
  EXPECT_EQ(p.deleted, 0);
  w = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

TEST(DLPackRoundTrip, ZeroSizeTensor) {
  int freed = 0;
  Tensor t = Tensor::FromNDAlloc(CountingCPUAlloc{&freed}, {2, 0, 3}, kF32, kCPU);
  Tensor u = Tensor::FromDLPackVersioned(t.ToDLPackVersioned());
  EXPECT_EQ(u.numel(), 0);
  EXPECT_EQ(Vec(u.shape()), (std::vector<int64_t>{2, 0, 3}));
  ExpectSameTensor(*u.get(), *t.get());
  Tensor w = Tensor::FromDLPack(u.ToDLPack());
  EXPECT_EQ(Vec(w.shape()), (std::vector<int64_t>{2, 0, 3}));
  t = Tensor();
  u = Tensor();
  w = Tensor();
  EXPECT_EQ(freed, 1);

  // A producer's zero-size tensor with a NULL data pointer is fine too.
  Producer p({0, 5});
  p.legacy.dl_tensor.data = nullptr;
  Tensor z = Tensor::FromDLPack(&p.legacy, 64, true);
  EXPECT_EQ(z.numel(), 0);
  z = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

TEST(DLPackRoundTrip, ZeroSizeCompactTensorPassesRequireContiguous) {
  // The export of a compact zero-size tensor made here must be accepted where contiguity is
  // required: a tensor with no elements is trivially compact.
  int freed = 0;
  Tensor t = Tensor::FromNDAlloc(CountingCPUAlloc{&freed}, {2, 0, 3}, kF32, kCPU);
  ffi::Error e = CatchError([&] { Tensor::FromDLPackVersioned(t.ToDLPackVersioned(), 0, true); });
  EXPECT_EQ(e.kind(), "") << e.message();
  t = Tensor();
  EXPECT_EQ(freed, 1);
}

TEST(DLPackRoundTrip, ZeroDimScalar) {
  Producer p(std::vector<int64_t>{});
  ASSERT_EQ(p.versioned.dl_tensor.shape, nullptr);
  *reinterpret_cast<float*>(p.storage) = 1.5f;
  Tensor t = Tensor::FromDLPackVersioned(&p.versioned, 64, true);
  EXPECT_EQ(t.ndim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(*static_cast<float*>(t.data_ptr()), 1.5f);
  Tensor u = Tensor::FromDLPack(t.ToDLPack());
  EXPECT_EQ(u.ndim(), 0);
  EXPECT_EQ(u.data_ptr(), p.storage);
  t = Tensor();
  u = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

// ---------------------------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------------------------

TEST(DLPackFlags, ReadOnlyKeptCopiedDropped) {
  Producer p({4});
  p.versioned.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  Tensor t = Tensor::FromDLPackVersioned(&p.versioned);
  DLManagedTensorVersioned* out = t.ToDLPackVersioned();
  EXPECT_EQ(out->flags, static_cast<uint64_t>(DLPACK_FLAG_BITMASK_READ_ONLY));
  // Through a second import and export the read-only flag still travels.
  Tensor u = Tensor::FromDLPackVersioned(out);
  DLManagedTensorVersioned* out2 = u.ToDLPackVersioned();
  EXPECT_EQ(out2->flags, static_cast<uint64_t>(DLPACK_FLAG_BITMASK_READ_ONLY));
  out2->deleter(out2);
  t = Tensor();
  u = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

TEST(DLPackFlags, CopiedAloneIsDropped) {
  Producer p({4});
  p.versioned.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
  Tensor t = Tensor::FromDLPackVersioned(&p.versioned);
  DLManagedTensorVersioned* out = t.ToDLPackVersioned();
  EXPECT_EQ(out->flags, 0u);
  out->deleter(out);
}

// ---------------------------------------------------------------------------------------------
// The producer's deleter
// ---------------------------------------------------------------------------------------------

TEST(DLPackDeleter, RunsOnceAfterLastReference) {
  Producer p({2, 2});
  Tensor t = Tensor::FromDLPack(&p.legacy);
  EXPECT_EQ(t.data_ptr(), p.storage);
  Tensor copy = t;
  ffi::Any held = t;
  t = Tensor();
  EXPECT_EQ(p.deleted, 0);
  copy = Tensor();
  EXPECT_EQ(p.deleted, 0);
  held = ffi::Any();
  EXPECT_EQ(p.deleted, 1);

  Producer q({2, 2});
  Tensor v = Tensor::FromDLPackVersioned(&q.versioned);
  Tensor v2 = v;
  v = Tensor();
  EXPECT_EQ(q.deleted, 0);
  v2 = Tensor();
  EXPECT_EQ(q.deleted, 1);
}

/*!
 * \brief A refusal: the error is of `kind` (ValueError for malformed tensors, RuntimeError for
 * requirements not met, as in TVM-FFI) mentioning `needle`, and the tensor is still the producer's
 * (its deleter has not run), as in TVM-FFI.
 */
void ExpectRefusedLegacy(Producer* p, size_t align, bool contiguous, const std::string& needle,
                         const char* kind = "ValueError") {
  ffi::Error e = CatchError([&] { Tensor::FromDLPack(&p->legacy, align, contiguous); });
  EXPECT_EQ(e.kind(), kind) << e.message();
  EXPECT_NE(e.message().find(needle), std::string::npos) << e.message();
  EXPECT_EQ(p->deleted, 0);
}
void ExpectRefusedVersioned(Producer* p, size_t align, bool contiguous, const std::string& needle,
                            const char* kind = "ValueError") {
  ffi::Error e = CatchError([&] { Tensor::FromDLPackVersioned(&p->versioned, align, contiguous); });
  EXPECT_EQ(e.kind(), kind) << e.message();
  EXPECT_NE(e.message().find(needle), std::string::npos) << e.message();
  EXPECT_EQ(p->deleted, 0);
}

TEST(DLPackRefusal, NullTensor) {
  ffi::Error e = CatchError([] { Tensor::FromDLPack(nullptr); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("NULL"), std::string::npos) << e.message();
  e = CatchError([] { Tensor::FromDLPackVersioned(nullptr); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("NULL"), std::string::npos) << e.message();
}

TEST(DLPackRefusal, NegativeNdim) {
  Producer a({2}), b({2});
  a.legacy.dl_tensor.ndim = -1;
  b.versioned.dl_tensor.ndim = -3;
  ExpectRefusedLegacy(&a, 0, false, "ndim");
  ExpectRefusedVersioned(&b, 0, false, "ndim");
}

TEST(DLPackRefusal, NullShapeWithDims) {
  Producer a({2, 3}), b({2, 3});
  a.legacy.dl_tensor.shape = nullptr;
  b.versioned.dl_tensor.shape = nullptr;
  ExpectRefusedLegacy(&a, 0, false, "shape");
  ExpectRefusedVersioned(&b, 0, false, "shape");
}

TEST(DLPackRefusal, NegativeExtent) {
  Producer a({2, -1}), b({-4});
  ExpectRefusedLegacy(&a, 0, false, "negative extent");
  ExpectRefusedVersioned(&b, 0, false, "negative extent");
}

TEST(DLPackRefusal, UnsupportedMajorVersion) {
  Producer p({2});
  p.versioned.version = {2, 0};
  ExpectRefusedVersioned(&p, 0, false, "version 2");
  Producer q({2});
  q.versioned.version = {0, 8};
  ExpectRefusedVersioned(&q, 0, false, "version 0");
  // A newer minor version of major 1 is accepted.
  Producer r({2});
  r.versioned.version = {1, 7};
  Tensor t = Tensor::FromDLPackVersioned(&r.versioned);
  EXPECT_EQ(r.deleted, 0);
  t = Tensor();
  EXPECT_EQ(r.deleted, 1);
}

TEST(DLPackRefusal, MisalignedData) {
  Producer a({4}, {}, DLDataType{kDLUInt, 8, 1}), b({4}, {}, DLDataType{kDLUInt, 8, 1});
  a.legacy.dl_tensor.data = a.storage + 1;
  b.versioned.dl_tensor.data = b.storage + 1;
  ExpectRefusedLegacy(&a, 64, false, "aligned", "RuntimeError");
  ExpectRefusedVersioned(&b, 64, false, "aligned", "RuntimeError");
  // Aligned data passes the same requirement; without a requirement misaligned data passes.
  Producer c({4});
  Tensor ok = Tensor::FromDLPack(&c.legacy, 64);
  EXPECT_EQ(c.deleted, 0);
  ok = Tensor();
  EXPECT_EQ(c.deleted, 1);
  Producer d({4}, {}, DLDataType{kDLUInt, 8, 1});
  d.versioned.dl_tensor.data = d.storage + 1;
  Tensor loose = Tensor::FromDLPackVersioned(&d.versioned);
  EXPECT_EQ(loose.data_ptr(), d.storage + 1);
  loose = Tensor();
  EXPECT_EQ(d.deleted, 1);
}

TEST(DLPackRefusal, NonContiguousWhenContiguityRequired) {
  Producer a({3, 4}, {1, 3}), b({3, 4}, {1, 3});
  ExpectRefusedLegacy(&a, 0, true, "contiguous", "RuntimeError");
  ExpectRefusedVersioned(&b, 0, true, "contiguous", "RuntimeError");
  // Compact explicit strides are accepted.
  Producer c({3, 4}, {4, 1});
  Tensor t = Tensor::FromDLPackVersioned(&c.versioned, 0, true);
  EXPECT_TRUE(t.IsContiguous());
  t = Tensor();
  EXPECT_EQ(c.deleted, 1);
}

TEST(DLPackRefusal, RefusalWithoutDeleterStillRefuses) {
  Producer p({-1});
  p.versioned.deleter = nullptr;
  ffi::Error e = CatchError([&] { Tensor::FromDLPackVersioned(&p.versioned); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(p.deleted, 0);
}

TEST(DLPackRefusal, CApiReturnsErrorCodeAndRaisesRuntimeError) {
  Producer p({3, 4}, {1, 3});
  TVMFFIObjectHandle out = nullptr;
  EXPECT_NE(TVMFFITensorFromDLPackVersioned(&p.versioned, 0, 1, &out), 0);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(p.deleted, 0);  // refused: still the producer's
  ffi::Error e = TakeRaised();
  EXPECT_EQ(e.kind(), "RuntimeError");  // a requirement not met, as in TVM-FFI
  EXPECT_NE(e.message().find("contiguous"), std::string::npos) << e.message();

  EXPECT_NE(TVMFFITensorFromDLPack(nullptr, 0, 0, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");

  Producer q({2});
  EXPECT_NE(TVMFFITensorFromDLPack(&q.legacy, -8, 0, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");
  EXPECT_EQ(q.deleted, 0);
}

TEST(DLPackDeleter, NullDeleterProducersAreAccepted) {
  Producer p({2, 2});
  p.legacy.deleter = nullptr;
  reinterpret_cast<float*>(p.storage)[3] = 9.0f;
  Tensor t = Tensor::FromDLPack(&p.legacy);
  EXPECT_EQ(static_cast<float*>(t.data_ptr())[3], 9.0f);
  t = Tensor();
  EXPECT_EQ(p.deleted, 0);

  Producer q({2, 2});
  q.versioned.deleter = nullptr;
  Tensor u = Tensor::FromDLPackVersioned(&q.versioned, 64, true);
  EXPECT_EQ(Vec(u.shape()), (std::vector<int64_t>{2, 2}));
  u = Tensor();
  EXPECT_EQ(q.deleted, 0);
}

// ---------------------------------------------------------------------------------------------
// The export's deleter
// ---------------------------------------------------------------------------------------------

TEST(DLPackExport, DeleterDropsExactlyItsReference) {
  int freed = 0;
  Tensor t = Tensor::FromNDAlloc(CountingCPUAlloc{&freed}, {8}, kF32, kCPU);
  EXPECT_EQ(t.use_count(), 1u);
  DLManagedTensor* a = t.ToDLPack();
  DLManagedTensorVersioned* b = t.ToDLPackVersioned();
  DLManagedTensorVersioned* c = t.ToDLPackVersioned();
  EXPECT_EQ(t.use_count(), 4u);
  EXPECT_NE(b, c);  // each export is its own
  a->deleter(a);
  EXPECT_EQ(t.use_count(), 3u);
  b->deleter(b);
  EXPECT_EQ(t.use_count(), 2u);

  // The export keeps the data alive after the tensor reference is gone.
  DLTensor* dl = &c->dl_tensor;
  t = Tensor();
  EXPECT_EQ(freed, 0);
  static_cast<float*>(dl->data)[7] = 1.0f;
  EXPECT_EQ(dl->shape[0], 8);
  c->deleter(c);
  EXPECT_EQ(freed, 1);
}

TEST(DLPackExport, CApiRefusesNonTensorObjects) {
  ffi::Shape shape{1, 2, 3};
  TVMFFIObject* h = ffi::detail::ObjectUnsafe::HeaderOf(shape);
  DLManagedTensor* legacy = nullptr;
  EXPECT_NE(TVMFFITensorToDLPack(h, &legacy), 0);
  EXPECT_EQ(legacy, nullptr);
  ffi::Error e = TakeRaised();
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Tensor"), std::string::npos) << e.message();

  DLManagedTensorVersioned* versioned = nullptr;
  EXPECT_NE(TVMFFITensorToDLPackVersioned(h, &versioned), 0);
  EXPECT_EQ(versioned, nullptr);
  EXPECT_EQ(TakeRaised().kind(), "TypeError");

  ffi::String s("a string long enough to be an object");
  EXPECT_NE(TVMFFITensorToDLPack(HeapHeader(s), &legacy), 0);
  EXPECT_EQ(TakeRaised().kind(), "TypeError");
  EXPECT_NE(TVMFFITensorToDLPack(nullptr, &legacy), 0);
  EXPECT_EQ(TakeRaised().kind(), "TypeError");
  EXPECT_EQ(shape.use_count(), 1u);  // nothing leaked a reference

  // Through C++, a null Tensor cannot be exported either.
  EXPECT_EQ(CatchError([] { Tensor().ToDLPack(); }).kind(), "TypeError");
}

TEST(DLPackExport, CApiRoundTripThroughHandles) {
  Producer p({5});
  TVMFFIObjectHandle h = nullptr;
  ASSERT_EQ(TVMFFITensorFromDLPackVersioned(&p.versioned, 0, 0, &h), 0);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(TVMFFIObjectGetTypeIndex(h), kTVMFFITensor);
  EXPECT_EQ(TVMFFITensorGetDLTensorPtr(h)->data, p.storage);
  DLManagedTensor* out = nullptr;
  ASSERT_EQ(TVMFFITensorToDLPack(h, &out), 0);
  EXPECT_EQ(static_cast<TVMFFIObject*>(h)->combined_ref_count & 0xffffffffu, 2u);
  TVMFFIObjectDecRef(h);
  EXPECT_EQ(p.deleted, 0);
  out->deleter(out);
  EXPECT_EQ(p.deleted, 1);
}

}  // namespace
