// Binary compatibility: a kernel library compiled against the reference implementation's headers
// (apache-tvm-ffi, test-only) loads and runs in this runtime, errors included.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <string>

namespace {

class Interop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(FFI_REFERENCE_KERNELS).empty()) {
      GTEST_SKIP() << "apache-tvm-ffi is not installed; reference kernels were not built";
    }
    mod_ = ffi::Module::LoadFromFile(FFI_REFERENCE_KERNELS);
  }
  ffi::Function Get(const char* name) { return mod_->GetFunction(name).value(); }
  ffi::Module mod_;
};

TEST_F(Interop, CallsWithPlainValues) { EXPECT_EQ(Get("add")(40, 2).cast<int64_t>(), 42); }

TEST_F(Interop, StringsBothWaysSmallAndLarge) {
  EXPECT_EQ(Get("concat")("ab", "cd").cast<std::string>(), "abcd");
  // A long result is a String object made by the reference headers' code; we release it.
  ffi::Any r = Get("concat")(ffi::String("a fairly long string, "), "made over there");
  EXPECT_EQ(r.type_index(), kTVMFFIStr);
  EXPECT_EQ(r.cast<std::string>(), "a fairly long string, made over there");
}

TEST_F(Interop, TheirErrorsArriveAsOurErrors) {
  try {
    Get("fail")("because");
    FAIL() << "expected an error";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_EQ(e.message(), "reference kernel failed: because");
    EXPECT_NE(e.backtrace().find("reference_kernels.cc"), std::string::npos) << e.backtrace();
  }
}

TEST_F(Interop, TheirArgumentCheckingSeesOurTypeNames) {
  try {
    Get("add")(1, "x");
    FAIL() << "expected an error";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_NE(e.message().find("argument #1"), std::string::npos) << e.message();
  }
}

TEST_F(Interop, OurFunctionsAsTheirCallbacks) {
  auto triple = ffi::Function::FromTyped([](int64_t x) { return 3 * x; });
  EXPECT_EQ(Get("call_back")(triple, 5).cast<int64_t>(), 16);
  auto failing =
      ffi::Function::FromTyped([](int64_t) -> int64_t { FFI_THROW(KeyError) << "ours"; });
  try {
    Get("call_back")(failing, 5);
    FAIL() << "expected an error";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "KeyError");
    EXPECT_EQ(e.message(), "ours");
  }
}

TEST_F(Interop, TensorViewsOfOurDLTensors) {
  float x[3] = {1, 2, 3}, y[3] = {};
  int64_t shape[1] = {3};
  DLTensor tx{x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  DLTensor ty = tx;
  ty.data = y;
  Get("add_one")(&tx, &ty);
  EXPECT_EQ(y[2], 4);
  int64_t shape2[2] = {1, 3};
  DLTensor bad = tx;
  bad.ndim = 2;
  bad.shape = shape2;
  try {
    Get("add_one")(&bad, &ty);
    FAIL() << "expected an error";
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "InternalError");
    EXPECT_NE(e.message().find("x must be 1-d"), std::string::npos) << e.message();
  }
}

}  // namespace
