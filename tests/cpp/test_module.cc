// Module: loading a kernel library built from the headers alone, calling it, and bad input.
#include <ffi/container/array.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

/*! \brief The file name suffix of the libraries CMake builds here. */
#ifdef _WIN32
constexpr const char* kLibrarySuffix = ".dll";
#else
constexpr const char* kLibrarySuffix = ".so";
#endif

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
  // dlsym would stop at the NUL and find `add_int`.
  EXPECT_FALSE(mod->GetFunction(ffi::String(std::string("add_int\0x", 9))).has_value());
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
            "\"int\"], \"return_type\": \"int\", \"type_schema\": "
            R"("{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],)"
            R"(\"params\":[{\"type\":\"int\"},{\"type\":\"int\"}]}}"})");
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

/*! \brief A test library built by tests/cpp/CMakeLists.txt from tests/cpp/loader/<name>.cc. */
std::string LoaderLibrary(const std::string& name) {
  return std::string(FFI_LOADER_DIR) + "/loader_" + name + kLibrarySuffix;
}

TEST(ModuleLoading, DataSymbolsAreRefusedByName) {
  ffi::Module mod = ffi::Module::LoadFromFile(LoaderLibrary("data_symbol"));
  EXPECT_EQ(mod->GetFunction("ok").value()(4).cast<int64_t>(), 7);
  ffi::Error e = ExpectError([&] { mod->GetFunction("x"); });
  EXPECT_EQ(e.kind(), "AttributeError");
  EXPECT_NE(e.message().find("symbol `__tvm_ffi_x` is a data object"), std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find(std::string("loader_data_symbol") + kLibrarySuffix), std::string::npos)
      << e.message();
#ifndef _WIN32  // PE exports no thread-local variables (GCC's emulated TLS exports a control block)
  e = ExpectError([&] { mod->GetFunction("tls"); });
  EXPECT_EQ(e.kind(), "AttributeError");
  EXPECT_NE(e.message().find("`__tvm_ffi_tls` is a thread-local variable"), std::string::npos)
      << e.message();
#endif
  // Listing names only code; the loader did not write its module into the function called
  // `__tvm_ffi__library_ctx` (it would have crashed writing into code).
  ffi::Function list = ffi::Function::GetGlobalRequired("ffi.ModuleListFunctionNames");
  EXPECT_EQ(list(mod).cast<std::string>(), "ok\nslots\n");
}

TEST(ModuleLoading, ContextSymbolsFillTheSlotsOfTheirExactNames) {
  static int context_a = 0, context_b = 0;
  ASSERT_EQ(TVMFFIEnvModRegisterContextSymbol("__test_context_slot", &context_a), 0);
  ASSERT_EQ(TVMFFIEnvModRegisterContextSymbol("test_plain_slot", &context_b), 0);
  ffi::Module mod = ffi::Module::LoadFromFile(LoaderLibrary("data_symbol"));
  auto slots = mod->GetFunction("slots").value()().cast<ffi::Array<int64_t>>();
  EXPECT_EQ(slots[0], reinterpret_cast<int64_t>(&context_a));
  EXPECT_EQ(slots[1], reinterpret_cast<int64_t>(&context_b));
  EXPECT_EQ(slots[2], 0);  // `__` + a registered name is another name
}

#ifndef _WIN32  // a Windows DLL with an undefined symbol cannot be linked, so there is no fixture
TEST(ModuleLoading, UndefinedSymbolFailsTheLoadNamingIt) {
  ffi::Error e = ExpectError([] { ffi::Module::LoadFromFile(LoaderLibrary("undefined_symbol")); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("ffi_loader_test_never_defined"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("loader_undefined_symbol.so"), std::string::npos) << e.message();
}
#endif

TEST(ModuleLoading, DuplicateRegistrationInStaticInitFailsTheLoad) {
  ffi::Function::SetGlobal("ffi_loader_test.dup",
                           ffi::Function::FromTyped([]() { return int64_t{100}; }));
  std::string path = LoaderLibrary("duplicate_global");
  ffi::Error e = ExpectError([&] { ffi::Module::LoadFromFile(path); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("Global function `ffi_loader_test.dup` is already registered"),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find(path), std::string::npos) << e.message();
  // The host's function stays; the library stays loaded with what else it registered.
  EXPECT_EQ(ffi::Function::GetGlobalRequired("ffi_loader_test.dup")().cast<int64_t>(), 100);
  EXPECT_EQ(ffi::Function::GetGlobalRequired("ffi_loader_test.before")().cast<int64_t>(), 1);
  EXPECT_EQ(ffi::Function::GetGlobalRequired("ffi_loader_test.after")().cast<int64_t>(), 3);
  // Nothing is left raised, and loading the same library again fails the same way.
  TVMFFIObjectHandle raised = nullptr;
  TVMFFIErrorMoveFromRaised(&raised);
  EXPECT_EQ(raised, nullptr);
  ffi::Error again = ExpectError([&] { ffi::Module::LoadFromFile(path); });
  EXPECT_EQ(again.message(), e.message());
  // Outside the loader a failed registration is still an error for the caller.
  ffi::Error direct = ExpectError([] {
    ffi::Function::SetGlobal("ffi_loader_test.dup", ffi::Function::FromTyped([]() { return 0; }));
  });
  EXPECT_EQ(direct.kind(), "RuntimeError");
  ffi::Function::RemoveGlobal("ffi_loader_test.dup");
}

TEST(ModuleLoading, DuplicateRegistrationByAReferenceBuiltLibrary) {
  std::string path = LoaderLibrary("duplicate_global_reference");
  if (std::string(FFI_REFERENCE_KERNELS).empty()) GTEST_SKIP() << "apache-tvm-ffi not installed";
  ffi::Function::SetGlobal("ffi_loader_test.reference_dup",
                           ffi::Function::FromTyped([]() { return int64_t{100}; }));
  // The reference's headers throw from the static initializer when registration fails, which
  // would terminate the process; inside the loader it is a load error.
  ffi::Error e = ExpectError([&] { ffi::Module::LoadFromFile(path); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("`ffi_loader_test.reference_dup` is already registered"),
            std::string::npos)
      << e.message();
  ffi::Function::RemoveGlobal("ffi_loader_test.reference_dup");
}

TEST(ModuleLoading, BadPathsAreRefusedByKind) {
  ffi::Function load = ffi::Function::GetGlobalRequired("ffi.Module.load_from_file.so");
  // A path with a NUL byte cannot name a file: dlopen would see only its first part.
  std::string with_nul = std::string(FFI_TEST_KERNELS) + std::string("\0.txt", 5);
  ffi::Error e = ExpectError([&] { load(ffi::String(with_nul)); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("NUL"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find(std::string("test_kernels") + kLibrarySuffix + "\\0.txt"),
            std::string::npos)
      << e.message();
  EXPECT_EQ(ExpectError([&] { load(""); }).kind(), "ValueError");

  e = ExpectError([] { ffi::Module::LoadFromFile(FFI_LOADER_DIR); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("is a directory"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find(FFI_LOADER_DIR), std::string::npos) << e.message();

#ifndef _WIN32  // Windows' devices (NUL) are no files that stat sees
  e = ExpectError([] { ffi::Module::LoadFromFile("/dev/null"); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(e.message().find("not a regular file"), std::string::npos) << e.message();
#endif
}

TEST(ModuleLoading, TruncatedLibrariesAreRefusedAtEveryLength) {
  // glibc maps a truncated library's missing pages and the process dies of SIGBUS inside dlopen;
  // the loader must check the file first. Cut a real library at many lengths.
  std::ifstream in(FFI_TEST_KERNELS, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4096u);
  for (size_t n : {size_t{0}, size_t{3}, size_t{16}, size_t{63}, size_t{64}, size_t{200},
                   size_t{1000}, size_t{4096}, size_t{20000}, bytes.size() / 2, bytes.size() - 1}) {
    // One file per cut: a cut that loads stays mapped, and rewriting a mapped library corrupts it.
    std::string path = ::testing::TempDir() + "ffi_truncated_library_" + std::to_string(n) + ".so";
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), n);
    ffi::Optional<ffi::Error> e = TryCatchError([&] { ffi::Module::LoadFromFile(path); });
    // Unlinking a library that loaded is safe: its mapping keeps the pages.
    std::remove(path.c_str());
    // The last cuts may only lose section headers, which loading never reads.
    if (!e.has_value()) {
      EXPECT_GT(n, bytes.size() / 4) << "a library cut at " << n << " bytes loaded";
      continue;
    }
    EXPECT_EQ(e.value().kind(), "RuntimeError") << n;
    EXPECT_NE(e.value().message().find(path), std::string::npos) << e.value().message();
  }
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
