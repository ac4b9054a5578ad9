// Module: loading a kernel library built from the headers alone, calling it, and bad input.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

ffi::Module Kernels() { return ffi::Module::LoadFromFile(FFI_TEST_KERNELS); }

TEST(Module, LoadAndCallTypedFunctions) {
  ffi::Module mod = Kernels();
  ffi::Function add = mod->GetFunction("add_int").value();
  EXPECT_EQ(add(40, 2).cast<int64_t>(), 42);
  ffi::Function greet = mod->GetFunction("greet").value();
  EXPECT_EQ(greet("world", nullptr).cast<std::string>(), "hello, world!");
  EXPECT_EQ(greet("you", "?").cast<std::string>(), "hello, you?");
  EXPECT_DOUBLE_EQ(mod->GetFunction("scale").value()(1.5, 2).cast<double>(), 3.0);
}

TEST(Module, MissingFunctionIsEmptyOptional) {
  ffi::Module mod = Kernels();
  EXPECT_FALSE(mod->GetFunction("does_not_exist").has_value());
  // Only `__tvm_ffi_<name>` symbols are functions: ordinary exported symbols are not.
  EXPECT_FALSE(mod->GetFunction("ffi_test_not_a_function").has_value());
}

TEST(Module, KernelErrorsArriveWithKindMessageAndBacktrace) {
  ffi::Module mod = Kernels();
  ffi::Error e = ExpectError([&] { mod->GetFunction("fail_value").value()(7); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "bad value 7");
  EXPECT_NE(e.backtrace().find("test_kernels.cc"), std::string::npos) << e.backtrace();
  std::string what = e.what();
  EXPECT_EQ(what.rfind("Traceback (most recent call last):\n", 0), 0u) << what;
  EXPECT_NE(what.find("ValueError: bad value 7"), std::string::npos) << what;

  e = ExpectError([&] { mod->GetFunction("fail_check").value()(12); });
  EXPECT_EQ(e.kind(), "InternalError");
  EXPECT_NE(e.message().find("Check failed: x < 10 (12 vs. 10): x must be small"),
            std::string::npos)
      << e.message();

  e = ExpectError([&] { mod->GetFunction("throw_std").value()(-1); });
  EXPECT_EQ(e.kind(), "IndexError");
  EXPECT_EQ(e.message(), "negative index");
}

TEST(Module, BadArgumentsNameTheExportedFunction) {
  ffi::Module mod = Kernels();
  ffi::Error e = ExpectError([&] { mod->GetFunction("add_int").value()(1, "two"); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #1 when calling: `add_int(0: int, 1: int) -> int`. "
            "Expected `int` but got `str`");
  e = ExpectError([&] { mod->GetFunction("add_int").value()(1, 2, 3); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Expected 2 but got 3 arguments"), std::string::npos);
}

TEST(Module, CallbacksIntoTheHost) {
  ffi::Module mod = Kernels();
  auto square = ffi::Function::FromTyped([](int64_t x) { return x * x; });
  EXPECT_EQ(mod->GetFunction("apply_twice").value()(square, 3).cast<int64_t>(), 81);
  // An error thrown by the host callback travels through the kernel back to the host.
  auto failing =
      ffi::Function::FromTyped([](int64_t) -> int64_t { FFI_THROW(KeyError) << "from the host"; });
  ffi::Error e = ExpectError([&] { mod->GetFunction("apply_twice").value()(failing, 3); });
  EXPECT_EQ(e.kind(), "KeyError");
  EXPECT_EQ(e.message(), "from the host");
}

TEST(Module, TensorViewsThroughDLTensorPointers) {
  ffi::Module mod = Kernels();
  float x[4] = {1, 2, 3, 4}, y[4] = {};
  int64_t shape[1] = {4};
  DLTensor tx{x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  DLTensor ty = tx;
  ty.data = y;
  mod->GetFunction("add_one_float").value()(&tx, &ty);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[3], 5);
}

TEST(Module, ListsItsExportedFunctions) {
  ffi::Function list = ffi::Function::GetGlobalRequired("ffi.ModuleListFunctionNames");
  std::string names = list(Kernels()).cast<std::string>();
  // Sorted, one per line; companions (__tvm_ffi__metadata_*) and other symbols are not listed.
  EXPECT_EQ(names,
            "add_int\nadd_one_float\napply_twice\nfail_check\nfail_value\ngreet\nscale\n"
            "throw_std\n");
  ffi::Function meta = Kernels()->GetFunction("_metadata_add_int").value();
  EXPECT_EQ(meta().cast<std::string>(),
            "{\"signature\": \"add_int(0: int, 1: int) -> int\", \"arg_types\": [\"int\", "
            "\"int\"], \"return_type\": \"int\"}");
}

TEST(Module, StaticInitRegistersGlobals) {
  Kernels();
  EXPECT_EQ(ffi::Function::GetGlobalRequired("test_kernels.triple")(4).cast<int64_t>(), 12);
}

TEST(Module, FunctionKeepsModuleAlive) {
  ffi::Function add;
  {
    ffi::Module mod = Kernels();
    add = mod->GetFunction("add_int").value();
  }
  EXPECT_EQ(add(1, 1).cast<int64_t>(), 2);
}

TEST(Module, MissingFileIsClearError) {
  ffi::Error e = ExpectError([] { ffi::Module::LoadFromFile("/nonexistent/dir/libnothing.so"); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("/nonexistent/dir/libnothing.so"), std::string::npos);
  EXPECT_NE(e.message().find("does not exist"), std::string::npos);
}

TEST(Module, UnloadableLibraryIsClearError) {
  std::string path = ::testing::TempDir() + "ffi_not_a_library.so";
  std::ofstream(path) << "this is not an ELF file";
  ffi::Error e = ExpectError([&] { ffi::Module::LoadFromFile(path); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("Cannot load module"), std::string::npos) << e.message();
  std::remove(path.c_str());
}

TEST(Module, LoadThroughGlobalFunctionsAsACHostDoes) {
  ffi::Function load = ffi::Function::GetGlobalRequired("ffi.Module.load_from_file.so");
  ffi::Function get = ffi::Function::GetGlobalRequired("ffi.ModuleGetFunction");
  ffi::Any mod = load(FFI_TEST_KERNELS, "");
  EXPECT_EQ(mod.type_index(), kTVMFFIModule);
  EXPECT_TRUE(get(mod, "add_int", false).as<ffi::Function>().has_value());
  EXPECT_TRUE(get(mod, "nope", false).is_none());
  EXPECT_EQ(ExpectError([&] { load(); }).kind(), "TypeError");
  EXPECT_EQ(ExpectError([&] { get(1, "add_int", false); }).kind(), "TypeError");
}

}  // namespace
