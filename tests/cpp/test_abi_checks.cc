// The C ABI validates what it is given: the type registry refuses negative or absurd indices,
// child-slot counts and depths; entry points given null pointers or out-of-range values return a
// nonzero code with a raised ValueError and change nothing; owned copies of malformed values
// (null payloads, small strings longer than 7 bytes) are refused the same way.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();

/*! \brief Calls TVMFFITypeGetOrAllocIndex with `key`. */
int32_t Register(const std::string& key, int32_t static_index, int32_t depth, int32_t slots,
                 int32_t parent) {
  TVMFFIByteArray k{key.data(), key.size()};
  return TVMFFITypeGetOrAllocIndex(&k, static_index, depth, slots, 1, parent);
}

/*! \brief Whether `key` is registered. */
bool IsRegistered(const std::string& key) {
  TVMFFIByteArray k{key.data(), key.size()};
  int32_t index = -1;
  if (TVMFFITypeKeyToIndex(&k, &index) == 0) return true;
  EXPECT_EQ(RaisedKindAndClear(), "KeyError");
  return false;
}

// ---------------------------------------------------------------------------------------------
// Type registry
// ---------------------------------------------------------------------------------------------

TEST(TypeRegistryChecks, NegativeOrAbsurdChildSlotsAreRefused) {
  for (int32_t slots : {-1, kI32Min, kI32Max, 1 << 20}) {
    std::string key = "test.abi.slots" + std::to_string(slots);
    EXPECT_EQ(Register(key, -1, 1, slots, kTVMFFIObject), -1) << slots;
    EXPECT_EQ(RaisedKindAndClear(), "ValueError") << slots;
    EXPECT_FALSE(IsRegistered(key));
  }
}

TEST(TypeRegistryChecks, StaticAndParentIndicesOutOfRangeAreRefused) {
  for (int32_t index : {-2, -100, kI32Min, kI32Max, 1 << 20}) {
    EXPECT_EQ(Register("test.abi.static", index, 0, 0, -1), -1) << index;
    EXPECT_EQ(RaisedKindAndClear(), "ValueError") << index;
  }
  for (int32_t parent : {-3, kI32Min, kI32Max, 1 << 20}) {
    EXPECT_EQ(Register("test.abi.parent", -1, 1, 0, parent), -1) << parent;
    EXPECT_EQ(RaisedKindAndClear(), "ValueError") << parent;
  }
  // In range but unregistered: a KeyError naming the index.
  EXPECT_EQ(Register("test.abi.parent", -1, 1, 0, 9000), -1);
  EXPECT_EQ(RaisedKindAndClear(), "KeyError");
  EXPECT_FALSE(IsRegistered("test.abi.static"));
  EXPECT_FALSE(IsRegistered("test.abi.parent"));
}

TEST(TypeRegistryChecks, DepthMustFollowTheParent) {
  for (int32_t depth : {0, 2, -1, kI32Max, kI32Min}) {
    EXPECT_EQ(Register("test.abi.depth", -1, depth, 0, kTVMFFIObject), -1) << depth;
    EXPECT_EQ(RaisedKindAndClear(), "ValueError") << depth;
  }
  // A root type has depth 0.
  EXPECT_EQ(Register("test.abi.root_depth", -1, 3, 0, -1), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_FALSE(IsRegistered("test.abi.depth"));
}

TEST(TypeRegistryChecks, ReservedRangeBeyondTheTableIsRefused) {
  // A static index near the end with more child slots than remain.
  EXPECT_EQ(Register("test.abi.range", 16000, 0, 1000, -1), -1);
  EXPECT_EQ(RaisedKindAndClear(), "RuntimeError");
  EXPECT_FALSE(IsRegistered("test.abi.range"));
}

TEST(TypeRegistryChecks, ValidRegistrationsStillWorkWithConsistentAncestors) {
  int32_t parent = Register("test.abi.parent_ok", -1, 1, 4, kTVMFFIObject);
  ASSERT_GE(parent, kTVMFFIDynObjectBegin) << RaisedKindAndClear(true);
  int32_t child = Register("test.abi.child_ok", -1, 2, 0, parent);
  ASSERT_GE(child, 0) << RaisedKindAndClear(true);
  EXPECT_EQ(child, parent + 1);  // inside the parent's reserved slots
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(child);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->type_depth, 2);
  EXPECT_EQ(info->type_ancestors[0]->type_index, kTVMFFIObject);
  EXPECT_EQ(info->type_ancestors[1]->type_index, parent);
  // Asking again returns the same index whatever else is passed.
  EXPECT_EQ(Register("test.abi.child_ok", -1, 2, 0, parent), child);
  // Query-only mode.
  EXPECT_EQ(Register("test.abi.child_ok", -1, 0, 0, -2), child);
  EXPECT_EQ(Register("test.abi.never", -1, 0, 0, -2), -2);
  EXPECT_EQ(RaisedKindAndClear(), "");
}

TEST(TypeRegistryChecks, NullKeysAreRefused) {
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(nullptr, -1, 1, 0, 1, kTVMFFIObject), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIByteArray null_data{nullptr, 5};
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&null_data, -1, 1, 0, 1, kTVMFFIObject), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  int32_t index = 0;
  EXPECT_NE(TVMFFITypeKeyToIndex(nullptr, &index), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIByteArray key{"ffi.Object", 10};
  EXPECT_NE(TVMFFITypeKeyToIndex(&key, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &index), 0);
  EXPECT_EQ(index, kTVMFFIObject);
}

TEST(TypeRegistryChecks, TypeInfoOutOfRangeIsNull) {
  for (int32_t index : {-1, kI32Min, kI32Max, 1 << 14}) {
    EXPECT_EQ(TVMFFIGetTypeInfo(index), nullptr) << index;
  }
}

// ---------------------------------------------------------------------------------------------
// Null out pointers and arguments
// ---------------------------------------------------------------------------------------------

TEST(CApiChecks, ObjectAndHandleEntryPoints) {
  TVMFFIGetVersion(nullptr);  // no error channel: a no-op, not a crash
  EXPECT_NE(TVMFFIObjectCreateOpaque(nullptr, kTVMFFIOpaquePyObject, nullptr, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFIHandleInitOnce(nullptr, [](void** r) { return *r = nullptr, 0; }), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  void* handle = nullptr;
  EXPECT_NE(TVMFFIHandleInitOnce(&handle, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFIHandleDeinitOnce(nullptr, [](void*) { return 0; }), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFIHandleDeinitOnce(&handle, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
}

TEST(CApiChecks, DTypeStringEntryPoints) {
  DLDataType dtype{};
  EXPECT_NE(TVMFFIDataTypeFromString(nullptr, &dtype), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIByteArray text{"float32", 7};
  EXPECT_NE(TVMFFIDataTypeFromString(&text, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIByteArray null_text{nullptr, 3};
  EXPECT_NE(TVMFFIDataTypeFromString(&null_text, &dtype), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIAny out{};
  EXPECT_NE(TVMFFIDataTypeToString(nullptr, &out), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFIDataTypeToString(&kF32, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  // Text that is not a dtype, including digits that would overflow ("" and "float" are dtypes:
  // void and float32, as the reference reads them).
  for (const char* bad : {"floaty", "int99999999999", "float32x0", "float32x99999999", "x4"}) {
    TVMFFIByteArray b{bad, std::strlen(bad)};
    EXPECT_NE(TVMFFIDataTypeFromString(&b, &dtype), 0) << bad;
    EXPECT_EQ(RaisedKindAndClear(), "ValueError") << bad;
  }
}

TEST(CApiChecks, StringFunctionAndValueEntryPoints) {
  TVMFFIAny out{};
  TVMFFIByteArray null_data{nullptr, 4};
  TVMFFIByteArray text{"hello", 5};
  for (auto fn : {TVMFFIStringFromByteArray, TVMFFIBytesFromByteArray}) {
    EXPECT_NE(fn(nullptr, &out), 0);
    EXPECT_EQ(RaisedKindAndClear(), "ValueError");
    EXPECT_NE(fn(&null_data, &out), 0);
    EXPECT_EQ(RaisedKindAndClear(), "ValueError");
    EXPECT_NE(fn(&text, nullptr), 0);
    EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  }
  TVMFFIByteArray empty{nullptr, 0};  // an empty array may have no data
  ASSERT_EQ(TVMFFIStringFromByteArray(&empty, &out), 0);
  EXPECT_EQ(out.type_index, kTVMFFISmallStr);
  EXPECT_EQ(out.small_str_len, 0u);
  TVMFFIObjectHandle f = nullptr;
  EXPECT_NE(TVMFFIFunctionGetGlobal(&null_data, &f), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIByteArray name{"ffi.FunctionRemoveGlobal", 24};
  EXPECT_NE(TVMFFIFunctionGetGlobal(&name, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFIAnyViewToOwnedAny(nullptr, &out), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIAny view{};
  EXPECT_NE(TVMFFIAnyViewToOwnedAny(&view, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  // A null C string converts to no string at all, not to a crash.
  TVMFFIAny raw{};
  raw.type_index = kTVMFFIRawStr;
  raw.v_c_str = nullptr;
  EXPECT_FALSE(ffi::AnyView::FromRaw(raw).try_cast<ffi::String>().has_value());
  EXPECT_FALSE(ffi::AnyView::FromRaw(raw).try_cast<std::string>().has_value());
}

TEST(CApiChecks, TensorExportWithNullOutChangesNothing) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CountingCPUAlloc{}, {2}, kF32, kCPU);
  TVMFFIObject* h = ffi::detail::ObjectUnsafe::HeaderOf(t);
  uint64_t refs = h->combined_ref_count;
  EXPECT_NE(TVMFFITensorToDLPack(h, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFITensorToDLPackVersioned(h, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(h->combined_ref_count, refs);
}

TEST(CApiChecks, TensorImportWithNullOutTakesNothing) {
  int64_t shape[] = {2};
  static int deleted = 0;
  deleted = 0;
  DLManagedTensor m{};
  m.dl_tensor = DLTensor{nullptr, kCPU, 1, kF32, shape, nullptr, 0};
  m.deleter = [](DLManagedTensor*) { ++deleted; };
  EXPECT_NE(TVMFFITensorFromDLPack(&m, 0, 0, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(deleted, 0);  // the caller's still
}

TEST(CApiChecks, EnvironmentEntryPoints) {
  int64_t shape[] = {2};
  DLTensor proto{nullptr, kCPU, 1, kF32, shape, nullptr, 0};
  EXPECT_NE(TVMFFIEnvTensorAlloc(&proto, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  DLTensor zero_lanes{nullptr, kCPU, 1, DLDataType{kDLFloat, 32, 0}, shape, nullptr, 0};
  TVMFFIObjectHandle out = nullptr;
  EXPECT_NE(TVMFFIEnvTensorAlloc(&zero_lanes, &out), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");

  // Negative devices are refused and change nothing.
  int stream_a = 0;
  TVMFFIStreamHandle original = &stream_a;
  EXPECT_NE(TVMFFIEnvSetStream(-1, 0, &stream_a, &original), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_NE(TVMFFIEnvSetStream(kDLCUDA, kI32Min, &stream_a, nullptr), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFIEnvGetStream(-1, 0), nullptr);
  EXPECT_EQ(TVMFFIEnvGetStream(kI32Max, kI32Max), nullptr);

  // Any non-negative device works; setting null restores the default and reports the old one.
  ASSERT_EQ(TVMFFIEnvSetStream(kI32Max, kI32Max, &stream_a, nullptr), 0);
  EXPECT_EQ(TVMFFIEnvGetStream(kI32Max, kI32Max), &stream_a);
  ASSERT_EQ(TVMFFIEnvSetStream(kI32Max, kI32Max, nullptr, &original), 0);
  EXPECT_EQ(original, &stream_a);
  EXPECT_EQ(TVMFFIEnvGetStream(kI32Max, kI32Max), nullptr);
  ASSERT_EQ(TVMFFIEnvSetStream(kI32Max, kI32Max, nullptr, &original), 0);
  EXPECT_EQ(original, nullptr);
}

// ---------------------------------------------------------------------------------------------
// Owned copies of malformed values
// ---------------------------------------------------------------------------------------------

/*! \brief TVMFFIAnyViewToOwnedAny of `view`: the raised kind, or "" with `*out` set. */
std::string ToOwned(const TVMFFIAny& view, ffi::Any* out) {
  TVMFFIAny owned{};
  if (TVMFFIAnyViewToOwnedAny(&view, &owned) != 0) return RaisedKindAndClear();
  *out = ffi::Any::FromRaw(owned);
  return "";
}

TEST(OwnedCopyChecks, NullPayloads) {
  ffi::Any out;
  TVMFFIAny v{};
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = nullptr;
  EXPECT_EQ(ToOwned(v, &out), "");  // a null C string is None, as in the C++ conversions
  EXPECT_TRUE(out.is_none());

  v.type_index = kTVMFFIByteArrayPtr;
  v.v_ptr = nullptr;
  EXPECT_EQ(ToOwned(v, &out), "ValueError");
  TVMFFIByteArray null_bytes{nullptr, 4};
  v.v_ptr = &null_bytes;
  EXPECT_EQ(ToOwned(v, &out), "ValueError");

  v.type_index = kTVMFFIObjectRValueRef;
  v.v_ptr = nullptr;
  EXPECT_EQ(ToOwned(v, &out), "ValueError");

  v.type_index = kTVMFFIShape;
  v.v_obj = nullptr;
  EXPECT_EQ(ToOwned(v, &out), "ValueError");
  EXPECT_EQ(ExpectError([&] { ffi::Any a(ffi::AnyView::FromRaw(v)); }).kind(), "ValueError");
}

TEST(OwnedCopyChecks, SmallStringLongerThanItsPayloadIsRefused) {
  ffi::Any out;
  TVMFFIAny v{};
  v.type_index = kTVMFFISmallStr;
  v.small_str_len = 8;
  EXPECT_EQ(ToOwned(v, &out), "ValueError");
  v.type_index = kTVMFFISmallBytes;
  v.small_str_len = 0xFFFFFFFFu;
  EXPECT_EQ(ToOwned(v, &out), "ValueError");
  v.small_str_len = 7;
  std::memcpy(v.v_bytes, "abcdefg", 7);
  ASSERT_EQ(ToOwned(v, &out), "");
  EXPECT_EQ(out.cast<ffi::Bytes>().view(), "abcdefg");
}

}  // namespace
