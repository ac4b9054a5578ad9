// The C ABI: layout pinned by static assertions, and the C functions exercised directly.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "testing.h"

extern "C" int ffi_test_c_any_roundtrip(void);

namespace {

using namespace ffi_testing;

static_assert(sizeof(TVMFFIAny) == 16);
static_assert(offsetof(TVMFFIAny, v_int64) == 8);
static_assert(sizeof(TVMFFIObject) == 24);
static_assert(offsetof(TVMFFIObject, type_index) == 8);
static_assert(offsetof(TVMFFIObject, deleter) == 16);
static_assert(sizeof(TVMFFIErrorCell) == 72);
static_assert(sizeof(TVMFFIShapeCell) == 16);
static_assert(sizeof(TVMFFISeqCell) == 32 && offsetof(TVMFFISeqCell, data_deleter) == 24);
static_assert(sizeof(TVMFFIFunctionCell) == 16);
static_assert(sizeof(TVMFFITypeInfo) == 72);
static_assert(offsetof(TVMFFITypeInfo, metadata) == 64);
static_assert(sizeof(DLTensor) == 48);
static_assert(sizeof(DLManagedTensor) == 64);
static_assert(sizeof(DLManagedTensorVersioned) == 80);
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24);
static_assert(sizeof(DLDataType) == 4 && sizeof(DLDevice) == 8);
static_assert(kTVMFFINone == 0 && kTVMFFIInt == 1 && kTVMFFIBool == 2 && kTVMFFIFloat == 3);
static_assert(kTVMFFIOpaquePtr == 4 && kTVMFFIDataType == 5 && kTVMFFIDevice == 6);
static_assert(kTVMFFIRawStr == 8 && kTVMFFIByteArrayPtr == 9 && kTVMFFIObjectRValueRef == 10);
static_assert(kTVMFFISmallStr == 11 && kTVMFFISmallBytes == 12);
static_assert(kTVMFFIObject == 64 && kTVMFFIStr == 65 && kTVMFFIBytes == 66);
static_assert(kTVMFFIError == 67 && kTVMFFIFunction == 68 && kTVMFFIShape == 69);
static_assert(kTVMFFITensor == 70 && kTVMFFIModule == 73 && kTVMFFIOpaquePyObject == 74);
static_assert(kDLCPU == 1 && kDLCUDA == 2 && kDLCUDAHost == 3 && kDLROCM == 10);
static_assert(kDLFloat == 2 && kDLBfloat == 4 && kDLBool == 6 && kDLFloat4_e2m1fn == 17);
// The C++ objects put the ABI cells right after the 24-byte header.
static_assert(sizeof(ffi::Object) == 24);
static_assert(sizeof(ffi::Any) == 16 && sizeof(ffi::AnyView) == 16);

TEST(CApi, CHeaderCompilesAsC99) { EXPECT_EQ(ffi_test_c_any_roundtrip(), 42); }

TEST(CApi, Version) {
  TVMFFIVersion v{};
  TVMFFIGetVersion(&v);
  EXPECT_EQ(v.major, TVM_FFI_VERSION_MAJOR);
  EXPECT_EQ(v.minor, TVM_FFI_VERSION_MINOR);
  EXPECT_EQ(v.patch, TVM_FFI_VERSION_PATCH);
}

TEST(CApi, ErrorCellOffsetsOfHeaderErrors) {
  ffi::Error e("ValueError", "boom", "");
  TVMFFIObject* h = ffi::detail::ObjectUnsafe::HeaderOf(e);
  EXPECT_EQ(reinterpret_cast<char*>(TVMFFIErrorGetCellPtr(h)),
            reinterpret_cast<char*>(h) + sizeof(TVMFFIObject));
  EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(h)->kind.data), "ValueError");
}

TEST(CApi, StringFromByteArraySmallAndLarge) {
  TVMFFIByteArray small{"abc", 3};
  TVMFFIAny out{};
  ASSERT_EQ(TVMFFIStringFromByteArray(&small, &out), 0);
  EXPECT_EQ(out.type_index, kTVMFFISmallStr);
  EXPECT_EQ(out.small_str_len, 3u);
  EXPECT_EQ(std::string(TVMFFISmallBytesGetContentByteArray(&out).data, 3), "abc");

  TVMFFIByteArray seven{"1234567", 7};
  ASSERT_EQ(TVMFFIStringFromByteArray(&seven, &out), 0);
  EXPECT_EQ(out.type_index, kTVMFFISmallStr);
  EXPECT_STREQ(out.v_bytes, "1234567");

  TVMFFIByteArray large{"12345678", 8};
  ASSERT_EQ(TVMFFIStringFromByteArray(&large, &out), 0);
  ASSERT_EQ(out.type_index, kTVMFFIStr);
  TVMFFIByteArray* arr = TVMFFIBytesGetByteArrayPtr(out.v_obj);
  EXPECT_EQ(std::string(arr->data, arr->size), "12345678");
  EXPECT_EQ(arr->data[8], '\0');
  TVMFFIObjectDecRef(out.v_obj);
}

TEST(CApi, BytesFromByteArrayKeepsEmbeddedNul) {
  const char raw[] = {'a', '\0', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
  TVMFFIByteArray in{raw, sizeof(raw)};
  TVMFFIAny out{};
  ASSERT_EQ(TVMFFIBytesFromByteArray(&in, &out), 0);
  ASSERT_EQ(out.type_index, kTVMFFIBytes);
  TVMFFIByteArray* arr = TVMFFIBytesGetByteArrayPtr(out.v_obj);
  EXPECT_EQ(std::string(arr->data, arr->size), std::string(raw, sizeof(raw)));
  TVMFFIObjectDecRef(out.v_obj);
  TVMFFIByteArray two{raw, 2};
  ASSERT_EQ(TVMFFIBytesFromByteArray(&two, &out), 0);
  EXPECT_EQ(out.type_index, kTVMFFISmallBytes);
  EXPECT_EQ(out.small_str_len, 2u);
}

TEST(CApi, AnyViewToOwnedAny) {
  TVMFFIAny view{}, out{};
  view.type_index = kTVMFFIRawStr;
  view.v_c_str = "a long raw string";
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(&view, &out), 0);
  ASSERT_EQ(out.type_index, kTVMFFIStr);
  EXPECT_EQ(std::string(TVMFFIBytesGetByteArrayPtr(out.v_obj)->data), "a long raw string");

  // An object gains a reference.
  TVMFFIAny owned2{};
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(&out, &owned2), 0);
  EXPECT_EQ(owned2.v_obj, out.v_obj);
  EXPECT_EQ(out.v_obj->combined_ref_count & 0xffffffffu, 2u);
  TVMFFIObjectDecRef(owned2.v_obj);
  TVMFFIObjectDecRef(out.v_obj);

  // A borrowed DLTensor* cannot be owned: TypeError, nothing written.
  DLTensor t{};
  view.type_index = kTVMFFIDLTensorPtr;
  view.v_ptr = &t;
  TVMFFIAny none{};
  EXPECT_NE(TVMFFIAnyViewToOwnedAny(&view, &none), 0);
  EXPECT_EQ(none.type_index, kTVMFFINone);
  EXPECT_EQ(RaisedKindAndClear(), "TypeError");

  // Plain values copy.
  view.type_index = kTVMFFIFloat;
  view.v_float64 = 2.5;
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(&view, &out), 0);
  EXPECT_EQ(out.type_index, kTVMFFIFloat);
  EXPECT_EQ(out.v_float64, 2.5);
}

TEST(CApi, ErrorsRaiseMoveAndClear) {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "first");
  TVMFFIErrorSetRaisedFromCStr("KeyError", "second");  // replaces, releasing the first
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  EXPECT_EQ(std::string(cell->kind.data, cell->kind.size), "KeyError");
  EXPECT_EQ(std::string(cell->message.data, cell->message.size), "second");
  TVMFFIObjectDecRef(err);
  TVMFFIErrorMoveFromRaised(&err);
  EXPECT_EQ(err, nullptr);  // cleared

  const char* parts[] = {"a", "b", nullptr, "c"};
  TVMFFIErrorSetRaisedFromCStrParts("RuntimeError", parts, 4);
  TVMFFIErrorMoveFromRaised(&err);
  cell = TVMFFIErrorGetCellPtr(err);
  EXPECT_EQ(std::string(cell->message.data, cell->message.size), "abc");
  TVMFFIObjectDecRef(err);
}

TEST(CApi, ErrorCreateWithCauseHoldsReferences) {
  TVMFFIByteArray kind{"ValueError", 10}, msg{"outer", 5}, bt{"", 0};
  TVMFFIObjectHandle cause = nullptr, outer = nullptr;
  ASSERT_EQ(TVMFFIErrorCreate(&kind, &msg, &bt, &cause), 0);
  ASSERT_EQ(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, &bt, cause, nullptr, &outer), 0);
  EXPECT_EQ(TVMFFIErrorGetCellPtr(outer)->cause_chain, cause);
  EXPECT_EQ(static_cast<TVMFFIObject*>(cause)->combined_ref_count & 0xffffffffu, 2u);
  TVMFFIObjectDecRef(outer);
  EXPECT_EQ(static_cast<TVMFFIObject*>(cause)->combined_ref_count & 0xffffffffu, 1u);
  TVMFFIObjectDecRef(cause);
}

TEST(CApi, BacktraceTextNamesTheCaller) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace("my_file.cc", 12, "my_func", 0);
  std::string text(bt->data, bt->size);
  EXPECT_EQ(text.rfind("  File \"my_file.cc\", line 12, in my_func\n", 0), 0u) << text;
}

TEST(CApi, HandleInitOnceRunsOnce) {
  static int calls = 0;
  static void* handle = nullptr;
  auto init = [](void** out) -> int {
    ++calls;
    *out = &calls;
    return 0;
  };
  ASSERT_EQ(TVMFFIHandleInitOnce(&handle, init), 0);
  ASSERT_EQ(TVMFFIHandleInitOnce(&handle, init), 0);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(handle, &calls);
  auto deinit = [](void* h) -> int { return h == &calls ? 0 : 1; };
  ASSERT_EQ(TVMFFIHandleDeinitOnce(&handle, deinit), 0);
  EXPECT_EQ(handle, nullptr);
  // A failing initialiser propagates its error and leaves the handle unset.
  auto failing = [](void**) -> int {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "init failed");
    return -1;
  };
  EXPECT_EQ(TVMFFIHandleInitOnce(&handle, failing), -1);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(RaisedKindAndClear(), "RuntimeError");
  // An initialiser that succeeds with a NULL handle has made nothing: an error.
  EXPECT_NE(TVMFFIHandleInitOnce(&handle, [](void** out) { return *out = nullptr, 0; }), 0);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(RaisedKindAndClear(), "RuntimeError");
  // A failing deinitialiser reports its error, and the handle is cleared all the same.
  ASSERT_EQ(TVMFFIHandleInitOnce(&handle, init), 0);
  auto failing_deinit = [](void*) -> int {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "deinit failed");
    return -1;
  };
  EXPECT_EQ(TVMFFIHandleDeinitOnce(&handle, failing_deinit), -1);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(RaisedKindAndClear(), "RuntimeError");
}

TEST(CApi, OpaqueObjectRunsDeleterOnce) {
  static int deleted = 0;
  int payload = 7;
  TVMFFIObjectHandle obj = nullptr;
  ASSERT_EQ(
      TVMFFIObjectCreateOpaque(
          &payload, kTVMFFIOpaquePyObject, [](void* h) { deleted += *static_cast<int*>(h); }, &obj),
      0);
  EXPECT_EQ(TVMFFIOpaqueObjectGetCellPtr(obj)->handle, &payload);
  TVMFFIObjectIncRef(obj);
  TVMFFIObjectDecRef(obj);
  EXPECT_EQ(deleted, 0);
  TVMFFIObjectDecRef(obj);
  EXPECT_EQ(deleted, 7);
  EXPECT_NE(TVMFFIObjectCreateOpaque(&payload, kTVMFFITensor, nullptr, &obj), 0);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
}

}  // namespace
