// The reference's vocabulary (<tvm/ffi/tvm_compat.h>): check macros with an error kind, debug-only
// checks, attribute macros and PyTorch-style tensor accessors.
#include <gtest/gtest.h>
#include <tvm/ffi/tvm_compat.h>

#include <string>

#include "testing.h"

// A user's own comparison of devices, as kernel libraries written for the reference's headers
// (which define none) may have: it must neither clash with ours nor make comparisons ambiguous.
bool operator==(const DLDevice& a, const DLDevice& b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

namespace {

using ffi_testing::ExpectError;

TEST(TvmCompat, UserOperatorOnDLDeviceIsNotAmbiguous) {
  DLDevice cpu{kDLCPU, 0}, gpu{kDLCUDA, 1};
  EXPECT_TRUE(cpu == cpu);
  EXPECT_FALSE(cpu == gpu);
  EXPECT_TRUE(cpu != gpu);  // ours, since the user defined only ==
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(ffi_testing::CountingCPUAlloc{}, {1},
                                           DLDataType{kDLFloat, 32, 1}, cpu);
  EXPECT_TRUE(t.device() == cpu);
}

TEST(TvmCompat, CheckThrowsTheGivenKind) {
  int n = 0;
  ffi::Error e = ExpectError([&] { TVM_FFI_CHECK(n > 0, ValueError) << "n = " << n; });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("n > 0"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("n = 0"), std::string::npos) << e.message();
  TVM_FFI_CHECK(n == 0, ValueError) << "not reached";
}

TEST(TvmCompat, BinaryChecksPrintOperandsAndUseTheKind) {
  int a = 2, b = 3;
  ffi::Error e = ExpectError([&] { TVM_FFI_CHECK_EQ(a, b, TypeError) << "why"; });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("a == b"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("2 vs. 3"), std::string::npos) << e.message();
  EXPECT_EQ(ExpectError([&] { TVM_FFI_CHECK_NE(a, a, IndexError); }).kind(), "IndexError");
  EXPECT_EQ(ExpectError([&] { TVM_FFI_CHECK_LT(b, a, ValueError); }).kind(), "ValueError");
  EXPECT_EQ(ExpectError([&] { TVM_FFI_CHECK_LE(b, a, ValueError); }).kind(), "ValueError");
  EXPECT_EQ(ExpectError([&] { TVM_FFI_CHECK_GT(a, b, ValueError); }).kind(), "ValueError");
  EXPECT_EQ(ExpectError([&] { TVM_FFI_CHECK_GE(a, b, ValueError); }).kind(), "ValueError");
  const char* p = nullptr;
  EXPECT_EQ(ExpectError([&] { TVM_FFI_CHECK_NOTNULL(p, KeyError); }).kind(), "KeyError");
  TVM_FFI_CHECK_LT(a, b, ValueError);
  TVM_FFI_CHECK_GE(b, a, ValueError);
}

TEST(TvmCompat, ChecksAreSingleStatements) {
  // An if/else around a check must bind as written (no dangling else).
  int taken = 0;
  if (taken == 0)
    TVM_FFI_CHECK(true, ValueError);
  else
    taken = 1;
  EXPECT_EQ(taken, 0);
}

TEST(TvmCompat, DebugChecksRunOnlyWithoutNDEBUG) {
  int evaluated = 0;
  auto count = [&] { return ++evaluated; };
#ifdef NDEBUG
  TVM_FFI_DCHECK(count() < 0) << "never run";
  TVM_FFI_DCHECK_EQ(count(), -1);
  EXPECT_EQ(evaluated, 0);
#else
  EXPECT_EQ(ExpectError([&] { TVM_FFI_DCHECK(count() < 0); }).kind(), "InternalError");
  EXPECT_EQ(evaluated, 1);
#endif
}

TEST(TvmCompat, LogAndThrow) {
  ffi::Error e = ExpectError([] { TVM_FFI_LOG_AND_THROW(RuntimeError) << "boom " << 7; });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("boom 7"), std::string::npos);
}

TVM_FFI_INLINE int Twice(int x) { return 2 * x; }
TVM_FFI_NO_INLINE TVM_FFI_COLD_CODE int Thrice(int x) { return 3 * x; }

TEST(TvmCompat, AttributeMacros) {
  EXPECT_EQ(Twice(2), 4);
  EXPECT_EQ(Thrice(2), 6);
  EXPECT_TRUE(TVM_FFI_PREDICT_TRUE(Twice(1) == 2));
  EXPECT_FALSE(TVM_FFI_PREDICT_FALSE(Twice(1) == 3));
  EXPECT_NE(std::string(TVM_FFI_FUNC_SIG).size(), 0u);
}

TEST(TvmCompat, PyTorchStyleTensorAccessors) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(ffi_testing::CountingCPUAlloc{}, {2, 3},
                                           DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.sizes(), t.shape());
  EXPECT_TRUE(t.is_contiguous());
  tvm::ffi::TensorView v = t;
  EXPECT_EQ(v.dim(), 2);
  EXPECT_EQ(v.sizes()[1], 3);
  EXPECT_TRUE(v.is_contiguous());
}

int64_t AddOneInt(int64_t x) { return x + 1; }

}  // namespace

// Real code writes the export with and without a trailing semicolon; both compile.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(compat_no_semicolon, AddOneInt)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(compat_semicolon, AddOneInt);

namespace {

TEST(TvmCompat, ExportsWithAndWithoutSemicolon) {
  for (auto fn : {__tvm_ffi_compat_no_semicolon, __tvm_ffi_compat_semicolon}) {
    TVMFFIAny arg{};
    arg.type_index = kTVMFFIInt;
    arg.v_int64 = 41;
    TVMFFIAny result{};
    ASSERT_EQ(fn(nullptr, &arg, 1, &result), 0);
    EXPECT_EQ(result.v_int64, 42);
  }
}

}  // namespace

namespace {
TEST(TvmCompat, NotNullChecksAreExpressions) {
  int value = 5;
  int* q = &value;
  int* r = TVM_FFI_CHECK_NOTNULL(q, ValueError);
  EXPECT_EQ(r, q);
  EXPECT_EQ(*TVM_FFI_ICHECK_NOTNULL(q), 5);
  EXPECT_EQ(TVM_FFI_DCHECK_NOTNULL(q), q);
  int* null = nullptr;
  ffi::Error e = ExpectError([&] { (void)TVM_FFI_CHECK_NOTNULL(null, KeyError); });
  EXPECT_EQ(e.kind(), "KeyError");
  EXPECT_EQ(e.message(), "Check not null: null");
  int calls = 0;
  auto next = [&]() -> int* {
    ++calls;
    return q;
  };
  (void)TVM_FFI_CHECK_NOTNULL(next(), ValueError);
  EXPECT_EQ(calls, 1);  // evaluated once
#ifndef NDEBUG
  EXPECT_EQ(ExpectError([&] { (void)TVM_FFI_DCHECK_NOTNULL(null); }).kind(), "InternalError");
#endif
}

TEST(TvmCompat, ReferenceSpellingsOfTypesAndParsers) {
  static_assert(ffi::TypeIndex::kTVMFFITensor == 70);
  static_assert(tvm::ffi::TypeIndex::kTVMFFIArray == 71);
  DLDataType bf16 = tvm::ffi::StringToDLDataType("bfloat16");
  EXPECT_EQ(bf16.code, kDLBfloat);
  EXPECT_EQ(bf16.bits, 16);
  EXPECT_EQ(ExpectError([] { (void)tvm::ffi::StringToDLDataType("float33x"); }).kind(),
            "ValueError");
}

TEST(TvmCompat, AnyComparesWithNullptr) {
  ffi::Any none;
  ffi::Any one = 1;
  EXPECT_TRUE(none == nullptr);
  EXPECT_TRUE(nullptr == none);
  EXPECT_FALSE(one == nullptr);
  EXPECT_TRUE(one != nullptr);
  ffi::AnyView view = one;
  EXPECT_TRUE(view != nullptr);
  EXPECT_TRUE(ffi::AnyView() == nullptr);
}
}  // namespace
