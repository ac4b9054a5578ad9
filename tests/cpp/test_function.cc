// Function: packed and typed callables, argument checking, the global registry, threads.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string ErrorKindOf(const std::function<void()>& fn, std::string* message = nullptr) {
  try {
    fn();
  } catch (const ffi::Error& e) {
    if (message) *message = e.message();
    return e.kind();
  }
  return "";
}

TEST(Function, PackedCallSeesArgumentsAndSetsResult) {
  ffi::Function f = ffi::Function::FromPacked([](ffi::PackedArgs args, ffi::Any* rv) {
    int64_t sum = 0;
    for (const ffi::AnyView& a : args) sum += a.cast<int64_t>();
    *rv = sum;
  });
  EXPECT_EQ(f(1, 2, 3).cast<int64_t>(), 6);
  EXPECT_EQ(f().cast<int64_t>(), 0);
}

TEST(Function, TypedCallConvertsArgumentsAndResult) {
  auto f = ffi::Function::FromTyped([](int64_t a, double b, ffi::String s) {
    return std::string(s) + ":" + std::to_string(a + static_cast<int64_t>(b));
  });
  EXPECT_EQ(f(1, 2.0, "x").cast<std::string>(), "x:3");
  // int converts to double.
  EXPECT_EQ(f(1, 2, "y").cast<std::string>(), "y:3");
}

TEST(Function, VoidReturnGivesNone) {
  int called = 0;
  auto f = ffi::Function::FromTyped([&called](int64_t x) { called += static_cast<int>(x); });
  ffi::Any r = f(5);
  EXPECT_TRUE(r.is_none());
  EXPECT_EQ(called, 5);
}

TEST(Function, WrongArgumentTypeNamesSignatureIndexAndTypes) {
  auto f = ffi::Function::FromTyped([](int64_t, ffi::String) {}, "add_one");
  std::string msg;
  EXPECT_EQ(ErrorKindOf([&] { f(1, 2); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #1 when calling: `add_one(0: int, 1: str) -> void`. "
            "Expected `str` but got `int`");
  EXPECT_EQ(ErrorKindOf([&] { f("a", "b"); }, &msg), "TypeError");
  EXPECT_NE(msg.find("argument #0"), std::string::npos) << msg;
}

TEST(Function, WrongArgumentCountIsTypeError) {
  auto f = ffi::Function::FromTyped([](int64_t a, int64_t b) { return a + b; }, "add");
  std::string msg;
  EXPECT_EQ(ErrorKindOf([&] { f(1); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched number of arguments when calling: `add(0: int, 1: int) -> int`. "
            "Expected 2 but got 1 arguments");
}

TEST(Function, ExceptionsInsideBecomeErrorsForTheCaller) {
  auto f = ffi::Function::FromTyped([](int64_t x) -> int64_t {
    if (x < 0) FFI_THROW(ValueError) << "negative: " << x;
    return x;
  });
  std::string msg;
  EXPECT_EQ(ErrorKindOf([&] { f(-4); }, &msg), "ValueError");
  EXPECT_EQ(msg, "negative: -4");
  // The raised error was consumed: nothing remains on the thread.
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  EXPECT_EQ(err, nullptr);
}

TEST(Function, SafeCallNeverLetsExceptionsCrossTheAbi) {
  auto f = ffi::Function::FromTyped([]() -> int { throw std::runtime_error("plain std error"); });
  TVMFFIAny result{};
  int rc = TVMFFIFunctionCall(ffi::detail::ObjectUnsafe::HeaderOf(f), nullptr, 0, &result);
  EXPECT_EQ(rc, -1);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  ffi::Error e(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)));
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "plain std error");
}

TEST(Function, FunctionsAsArgumentsAndResults) {
  auto twice = ffi::Function::FromTyped(
      [](ffi::Function g, int64_t x) { return g(g(x).cast<int64_t>()).cast<int64_t>(); });
  auto inc = ffi::Function::FromTyped([](int64_t x) { return x + 1; });
  EXPECT_EQ(twice(inc, 1).cast<int64_t>(), 3);
  auto make_adder = ffi::Function::FromTyped(
      [](int64_t k) { return ffi::Function::FromTyped([k](int64_t x) { return x + k; }); });
  ffi::Function add5 = make_adder(5).cast<ffi::Function>();
  EXPECT_EQ(add5(1).cast<int64_t>(), 6);
}

TEST(Function, OptionalArguments) {
  auto f = ffi::Function::FromTyped([](ffi::Optional<int64_t> x) { return x.value_or(-1); });
  EXPECT_EQ(f(nullptr).cast<int64_t>(), -1);
  EXPECT_EQ(f(7).cast<int64_t>(), 7);
  std::string msg;
  EXPECT_EQ(ErrorKindOf([&] { f("no"); }, &msg), "TypeError");
  EXPECT_NE(msg.find("Expected `Optional<int>` but got `str`"), std::string::npos) << msg;
}

TEST(Function, CallingNullFunctionIsValueError) {
  ffi::Function f;
  EXPECT_EQ(ErrorKindOf([&] { f(); }), "ValueError");
  TVMFFIAny result{};
  EXPECT_EQ(TVMFFIFunctionCall(nullptr, nullptr, 0, &result), -1);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  TVMFFIObjectDecRef(err);
}

TEST(Function, ExternCCallbackAndDeleterRunOnce) {
  static int deleted = 0;
  static int state = 10;
  auto cb = [](void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) -> int {
    if (n != 1 || args[0].type_index != kTVMFFIInt) {
      TVMFFIErrorSetRaisedFromCStr("TypeError", "want one int");
      return -1;
    }
    rv->type_index = kTVMFFIInt;
    rv->v_int64 = args[0].v_int64 + *static_cast<int*>(self);
    return 0;
  };
  {
    ffi::Function f = ffi::Function::FromExternC(&state, cb, [](void*) { ++deleted; });
    ffi::Function copy = f;
    EXPECT_EQ(f(5).cast<int64_t>(), 15);
    EXPECT_EQ(ErrorKindOf([&] { copy("x"); }), "TypeError");
  }
  EXPECT_EQ(deleted, 1);
}

TEST(Function, GlobalRegistrySetGetListRemove) {
  const std::string name = "testing.function.global_add";
  auto f = ffi::Function::FromTyped([](int64_t a, int64_t b) { return a + b; });
  ffi::Function::SetGlobal(name, f);
  ASSERT_TRUE(ffi::Function::GetGlobal(name).has_value());
  EXPECT_EQ((*ffi::Function::GetGlobal(name))(2, 3).cast<int64_t>(), 5);
  // Registering the same name again needs allow_override.
  EXPECT_EQ(ErrorKindOf([&] { ffi::Function::SetGlobal(name, f); }), "ValueError");
  ffi::Function::SetGlobal(name,
                           ffi::Function::FromTyped([](int64_t a, int64_t b) { return a * b; }),
                           /*allow_override=*/true);
  EXPECT_EQ(ffi::Function::GetGlobalRequired(name)(2, 3).cast<int64_t>(), 6);

  std::vector<std::string> names;
  ffi::Function::ListGlobalNames([&](const ffi::String& n) { names.push_back(n); });
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), name), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "ffi.ModuleGetFunction"), names.end());

  EXPECT_TRUE(ffi::Function::RemoveGlobal(name));
  EXPECT_FALSE(ffi::Function::RemoveGlobal(name));
  EXPECT_FALSE(ffi::Function::GetGlobal(name).has_value());
  EXPECT_EQ(ErrorKindOf([&] { ffi::Function::GetGlobalRequired(name); }), "ValueError");
}

TEST(Function, SetGlobalRejectsNonFunctions) {
  ffi::String s("not a function at all");
  TVMFFIByteArray name{"testing.bad", 11};
  EXPECT_EQ(TVMFFIFunctionSetGlobal(&name, ffi::detail::ObjectUnsafe::HeaderOf(s), 0), -1);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(err)->kind.data), "TypeError");
  TVMFFIObjectDecRef(err);
}

int64_t StaticSquare(int64_t x) { return x * x; }
FFI_STATIC_INIT_BLOCK() { ffi::GlobalDef().def("testing.function.static_square", StaticSquare); }

TEST(Function, StaticRegistration) {
  EXPECT_EQ(ffi::Function::GetGlobalRequired("testing.function.static_square")(9).cast<int64_t>(),
            81);
}

TEST(Function, ConcurrentCallsAndRegistrations) {
  auto f = ffi::Function::FromTyped(
      [](int64_t x, ffi::String s) { return ffi::String(std::string(s) + std::to_string(x)); });
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::string name = "testing.function.thread" + std::to_string(t);
      for (int i = 0; i < 2000; ++i) {
        if (f(i, "long prefix string ").cast<std::string>() !=
            "long prefix string " + std::to_string(i)) {
          ++failures;
        }
        if (i % 100 == 0) {
          ffi::Function::SetGlobal(name, f, true);
          if (!ffi::Function::GetGlobal(name).has_value()) ++failures;
        }
        try {
          f("bad", 1);
          ++failures;
        } catch (const ffi::Error& e) {
          if (e.kind() != "TypeError") ++failures;
        }
      }
      ffi::Function::RemoveGlobal(name);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(f.use_count(), 1u);
}

}  // namespace
