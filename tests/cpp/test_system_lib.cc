// System libraries: functions linked statically into this executable (system_lib/syslib_ops.cc, a
// static library) register themselves with TVMFFIEnvModRegisterSystemLibSymbol, and
// ffi.SystemLib(prefix) gives a module over them with the reference's lookup: `<prefix><name>`
// first, then `<name>`, one module per prefix for the life of the process.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <string>

#include "testing.h"

extern "C" void* syslib_test_library_ctx;

namespace {

using namespace ffi_testing;

ffi::Module SystemLib(const char* prefix) {
  return ffi::Function::GetGlobalRequired("ffi.SystemLib")(prefix).cast<ffi::Module>();
}

TEST(SystemLib, FindsPrefixedNamesThenBareNames) {
  ffi::Module mod = SystemLib("syslib_test.");
  EXPECT_EQ(mod->GetFunction("add_one").value()(41).cast<int64_t>(), 42);
  EXPECT_EQ(mod->GetFunction("greet").value()("you").cast<std::string>(), "hello you");
  // Not registered under the prefix: found by its bare name.
  EXPECT_EQ(mod->GetFunction("syslib_plain").value()(21).cast<int64_t>(), 42);
  EXPECT_FALSE(mod->GetFunction("missing").has_value());
  // Typed errors of the registered function come through.
  ffi::Error e = ExpectError([&] { mod->GetFunction("add_one").value()("x"); });
  EXPECT_EQ(e.kind(), "TypeError");
}

TEST(SystemLib, WithoutAPrefixNamesAreTheRegisteredOnes) {
  ffi::Module mod = ffi::Function::GetGlobalRequired("ffi.SystemLib")().cast<ffi::Module>();
  EXPECT_EQ(mod->GetFunction("syslib_test.add_one").value()(1).cast<int64_t>(), 2);
  EXPECT_FALSE(mod->GetFunction("add_one").has_value());
  EXPECT_TRUE(mod.same_as(SystemLib("")));
}

TEST(SystemLib, OneModulePerPrefix) {
  ffi::Module a = SystemLib("syslib_test.");
  ffi::Module b = SystemLib("syslib_test.");
  ffi::Module other = SystemLib("other.");
  EXPECT_TRUE(a.same_as(b));
  EXPECT_FALSE(a.same_as(other));
  // The registry holds each module, the test holds two more references.
  EXPECT_EQ(a.use_count(), 3);
  EXPECT_EQ(other->GetFunction("syslib_plain").value()(2).cast<int64_t>(), 4);
  EXPECT_FALSE(other->GetFunction("add_one").has_value());
}

TEST(SystemLib, ListsItsFunctionsAndHasNoPath) {
  ffi::Module mod = SystemLib("syslib_test.");
  auto list = ffi::Function::GetGlobalRequired("ffi.ModuleListFunctionNames");
  std::string names = list(mod).cast<std::string>();
  // Prefixed names without the prefix, bare names as they are; companions (metadata, the
  // library context) are not functions.
  EXPECT_NE(names.find("add_one\n"), std::string::npos) << names;
  EXPECT_NE(names.find("greet\n"), std::string::npos) << names;
  EXPECT_NE(names.find("syslib_plain\n"), std::string::npos) << names;
  EXPECT_EQ(names.find("metadata"), std::string::npos) << names;
  EXPECT_EQ(names.find("library_ctx"), std::string::npos) << names;
  EXPECT_EQ(ffi::Function::GetGlobalRequired("ffi.ModuleGetPath")(mod).cast<std::string>(), "");
  // Companion symbols carry the prefix in front: `syslib_test.__tvm_ffi__metadata_add_one`.
  ffi::Function meta = mod->GetFunction("_metadata_add_one").value();
  EXPECT_NE(meta().cast<std::string>().find("int"), std::string::npos);
}

TEST(SystemLib, PointsItsLibraryContextAtTheModule) {
  ffi::Module mod = SystemLib("syslib_test.");
  // The polymorphic module object's address (the reference's ModuleObj*, as it and TVM's JIT
  // modules write it): its vtable pointer, which the object handle follows.
  EXPECT_EQ(static_cast<char*>(syslib_test_library_ctx) + sizeof(void*),
            reinterpret_cast<char*>(ffi::detail::ObjectUnsafe::Header(mod.get())));
}

/*! \brief TVMFFIEnvModLookupFromImports(syslib_test's context, name): the function, or null with
 * the error raised. */
TVMFFIObjectHandle LookupFromImports(const char* name) {
  TVMFFIObjectHandle f = nullptr;
  return TVMFFIEnvModLookupFromImports(syslib_test_library_ctx, name, &f) == 0 ? f : nullptr;
}

TEST(SystemLib, GeneratedCodeLooksFunctionsUpInImportsThenGlobals) {
  ffi::Module mod = SystemLib("syslib_test.");
  ffi::Function import = ffi::Function::GetGlobalRequired("ffi.ModuleImportModule");
  // The module itself is not searched (as the reference): `add_one` is its own function.
  ASSERT_EQ(LookupFromImports("add_one"), nullptr);
  ffi::Error e = TakeRaised();
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(),
            "Cannot find function add_one in the imported modules or global registry.");
  import(mod, SystemLib(""));  // has every registered name, `syslib_test.add_one` among them
  TVMFFIObjectHandle f = LookupFromImports("syslib_test.add_one");
  ASSERT_NE(f, nullptr);
  TVMFFIAny arg{};
  arg.type_index = kTVMFFIInt;
  arg.v_int64 = 9;
  TVMFFIAny result{};
  ASSERT_EQ(TVMFFIFunctionCall(f, &arg, 1, &result), 0);
  EXPECT_EQ(result.v_int64, 10);
  // Lent, not given: the module keeps the function, and the name gives it again.
  EXPECT_EQ(LookupFromImports("syslib_test.add_one"), f);
  // Then the global functions.
  TVMFFIObjectHandle global = LookupFromImports("ffi.SystemLib");
  ASSERT_NE(global, nullptr);
  EXPECT_EQ(global, ffi::detail::ObjectUnsafe::Header(
                        ffi::Function::GetGlobalRequired("ffi.SystemLib").get()));
  ffi::Function::GetGlobalRequired("ffi.ModuleClearImports")(mod);
  // What was found stays found (the module's cache), as generated code holds it.
  EXPECT_EQ(LookupFromImports("syslib_test.add_one"), f);
}

TEST(SystemLib, RefusesBadArguments) {
  ffi::Function get = ffi::Function::GetGlobalRequired("ffi.SystemLib");
  ffi::Error e = ExpectError([&] { get("a", "b"); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "ffi.SystemLib expects ([symbol_prefix]), got 2 arguments");
  EXPECT_EQ(ExpectError([&] { get(1); }).kind(), "TypeError");
}

}  // namespace
