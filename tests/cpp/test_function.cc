// Function: packed and typed callables, argument checking, the global registry, threads.
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/ffi.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

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

// ---------------------------------------------------------------------------------------------
// Signatures and export metadata: compile-time constants
// ---------------------------------------------------------------------------------------------

class PointObj : public ffi::Object {
 public:
  int64_t x = 0;
  FFI_DECLARE_OBJECT_INFO("test.function.Point", PointObj, ffi::Object);
};

class Point : public ffi::ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(Point, ffi::ObjectRef, PointObj);
};

using ffi::detail::FunctionInfo;

// static_assert: each of these is computed by the compiler, not at run time.
static_assert(FunctionInfo<void(int64_t, ffi::TensorView)>::Signature() ==
              "(0: int, 1: Tensor) -> void");
static_assert(FunctionInfo<int()>::Signature() == "() -> int");
static_assert(FunctionInfo<void()>::Signature() == "() -> void");
static_assert(FunctionInfo<ffi::Optional<ffi::String>(ffi::Optional<int64_t>)>::Signature() ==
              "(0: Optional<int>) -> Optional<str>");
static_assert(FunctionInfo<Point(const Point&, ffi::Tensor)>::Signature() ==
              "(0: test.function.Point, 1: Tensor) -> test.function.Point");
static_assert(
    FunctionInfo<bool(double, float, bool, const ffi::String&, std::string)>::Signature() ==
    "(0: float, 1: float, 2: bool, 3: str, 4: str) -> bool");
static_assert(FunctionInfo<ffi::Shape(DLDataType, DLDevice, void*, ffi::Function, ffi::Any,
                                      ffi::AnyView, ffi::Bytes)>::Signature() ==
              "(0: DataType, 1: Device, 2: void*, 3: Function, 4: Any, 5: AnyView, 6: bytes) -> "
              "Shape");
static_assert(
    FunctionInfo<double(int8_t, uint8_t, int32_t, uint64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, int64_t, ffi::String, ffi::TensorView)>::Signature() ==
    "(0: int, 1: int, 2: int, 3: int, 4: int, 5: int, 6: int, 7: int, 8: int, 9: int, "
    "10: str, 11: Tensor) -> float");
static_assert(FunctionInfo<ffi::Optional<ffi::Optional<Point>>(ffi::Error)>::Signature() ==
              "(0: Error) -> Optional<Optional<test.function.Point>>");
// Pointers to functions, lambdas and member functions give the same text.
static_assert(FunctionInfo<int64_t (*)(int64_t)>::Signature() == "(0: int) -> int");
inline constexpr auto kLambda = [](int64_t, const ffi::String&) { return 1.5; };
static_assert(FunctionInfo<decltype(kLambda)>::Signature() == "(0: int, 1: str) -> float");
static_assert(FunctionInfo<decltype(kLambda)>::kNumArgs == 2);
static_assert(FunctionInfo<int()>::kNumArgs == 0);

static_assert(FunctionInfo<float(int)>::Metadata(ffi::ConstString("name")) ==
              "{\"signature\": \"name(0: int) -> float\", \"arg_types\": [\"int\"], "
              "\"return_type\": \"float\"}");
static_assert(FunctionInfo<void()>::Metadata(ffi::ConstString("f")) ==
              "{\"signature\": \"f() -> void\", \"arg_types\": [], \"return_type\": \"void\"}");

TEST(FunctionSignature, SignatureText) {
  constexpr auto sig = FunctionInfo<void(int64_t, ffi::TensorView)>::Signature();
  EXPECT_EQ(sig.view(), "(0: int, 1: Tensor) -> void");
  EXPECT_EQ(sig.size(), std::string_view("(0: int, 1: Tensor) -> void").size());
  EXPECT_EQ(std::string(sig.c_str()), "(0: int, 1: Tensor) -> void");  // NUL-terminated
  EXPECT_EQ(FunctionInfo<Point(Point)>::Signature().view(),
            "(0: test.function.Point) -> test.function.Point");
  // The "ffi." prefix goes from built-in keys only.
  EXPECT_EQ(std::string_view(ffi::TensorObj::_type_key).substr(0, 4), "ffi.");
  EXPECT_EQ(FunctionInfo<ffi::Tensor()>::Signature().view(), "() -> Tensor");
}

TEST(FunctionSignature, MetadataIsExactJson) {
  constexpr auto metadata = FunctionInfo<float(int)>::Metadata(ffi::ConstString("name"));
  EXPECT_EQ(metadata.view(),
            "{\"signature\": \"name(0: int) -> float\", \"arg_types\": [\"int\"], "
            "\"return_type\": \"float\"}");
  EXPECT_EQ(std::string(metadata.c_str()), metadata.view());
  EXPECT_EQ(
      FunctionInfo<ffi::Optional<ffi::String>(int64_t, ffi::TensorView, const Point&)>::Metadata(
          ffi::ConstString("my_func"))
          .view(),
      "{\"signature\": \"my_func(0: int, 1: Tensor, 2: test.function.Point) -> "
      "Optional<str>\", \"arg_types\": [\"int\", \"Tensor\", \"test.function.Point\"], "
      "\"return_type\": \"Optional<str>\"}");
  EXPECT_EQ(FunctionInfo<void()>::Metadata(ffi::ConstString("f")).view(),
            "{\"signature\": \"f() -> void\", \"arg_types\": [], \"return_type\": \"void\"}");
}

// ---------------------------------------------------------------------------------------------
// Typed calls: argument errors and conversions
// ---------------------------------------------------------------------------------------------

TEST(Function, WrongArgumentTypeMessageNamesTheGotType) {
  auto f = ffi::Function::FromTyped([](int64_t, ffi::String) {}, "f");
  std::string msg;
  EXPECT_EQ(ErrorKindOf([&] { f(1, 2.5); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #1 when calling: `f(0: int, 1: str) -> void`. "
            "Expected `str` but got `float`");
  EXPECT_EQ(ErrorKindOf([&] { f(nullptr, "s"); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #0 when calling: `f(0: int, 1: str) -> void`. "
            "Expected `int` but got `None`");
  auto g = ffi::Function::FromTyped([](Point, DLDevice) {}, "g");
  EXPECT_EQ(ErrorKindOf([&] { g(ffi::Shape({1}), DLDevice{kDLCPU, 0}); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #0 when calling: `g(0: test.function.Point, 1: Device) "
            "-> void`. Expected `test.function.Point` but got `ffi.Shape`");
}

TEST(Function, FirstBadArgumentIsReported) {
  auto f = ffi::Function::FromTyped([](int64_t, ffi::String, double) {}, "f3");
  std::string msg;
  // All three wrong: argument #0.
  EXPECT_EQ(ErrorKindOf([&] { f("a", 1, "c"); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #0 when calling: `f3(0: int, 1: str, 2: float) -> void`. "
            "Expected `int` but got `str`");
  // #1 and #2 wrong: argument #1.
  EXPECT_EQ(ErrorKindOf([&] { f(1, 2.5, "c"); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #1 when calling: `f3(0: int, 1: str, 2: float) -> void`. "
            "Expected `str` but got `float`");
  // Only the last wrong.
  EXPECT_EQ(ErrorKindOf([&] { f(1, "b", "c"); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched type on argument #2 when calling: `f3(0: int, 1: str, 2: float) -> void`. "
            "Expected `float` but got `str`");
}

TEST(Function, WrongArgumentCountBothWays) {
  auto none = ffi::Function::FromTyped([]() { return 1; }, "none");
  std::string msg;
  EXPECT_EQ(ErrorKindOf([&] { none(1, "x"); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched number of arguments when calling: `none() -> int`. Expected 0 but got 2 "
            "arguments");
  auto two = ffi::Function::FromTyped([](int64_t, ffi::String) {}, "two");
  EXPECT_EQ(ErrorKindOf([&] { two(1, "a", 2.5); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched number of arguments when calling: `two(0: int, 1: str) -> void`. "
            "Expected 2 but got 3 arguments");
  // The count is checked before the types.
  EXPECT_EQ(ErrorKindOf([&] { two("wrong type"); }, &msg), "TypeError");
  EXPECT_NE(msg.find("Expected 2 but got 1 arguments"), std::string::npos) << msg;
  // Without a name, the message shows the signature alone, as the reference's does.
  auto anonymous = ffi::Function::FromTyped([](int64_t x) { return x; });
  EXPECT_EQ(ErrorKindOf([&] { anonymous(); }, &msg), "TypeError");
  EXPECT_EQ(msg,
            "Mismatched number of arguments when calling: `(0: int) -> int`. "
            "Expected 1 but got 0 arguments");
}

TEST(Function, ArgumentsConvertedBeforeAFailureAreReleased) {
  // Every argument is converted before the first failure is reported: the references taken for
  // the good ones must be given back.
  int calls = 0;
  auto f = ffi::Function::FromTyped([&calls](ffi::String, ffi::String, int64_t) { ++calls; });
  ffi::String a("first string, longer than seven bytes");
  ffi::String b("second string, longer than seven bytes");
  EXPECT_EQ(ErrorKindOf([&] { f(a, b, "not an int"); }), "TypeError");
  EXPECT_EQ(ErrorKindOf([&] { f(a, 1, b); }), "TypeError");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(UseCount(a), 1u);
  EXPECT_EQ(UseCount(b), 1u);
  f(a, b, 3);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(UseCount(a), 1u);
  EXPECT_EQ(UseCount(b), 1u);
}

TEST(Function, ConvertedArgumentsAreMovedIntoTheCallable) {
  // The caller's reference plus the argument's own: a copy left behind would make it 3.
  uint64_t seen = 0;
  auto f = ffi::Function::FromTyped([&seen](ffi::String s) { seen = UseCount(s); });
  ffi::String s("a string longer than seven bytes");
  f(s);
  EXPECT_EQ(seen, 2u);
  EXPECT_EQ(UseCount(s), 1u);
  uint64_t seen_opt = 0;
  auto g = ffi::Function::FromTyped(
      [&seen_opt](ffi::Optional<ffi::String> o) { seen_opt = o.has_value() ? UseCount(*o) : 0; });
  g(s);
  EXPECT_EQ(seen_opt, 2u);
  EXPECT_EQ(UseCount(s), 1u);
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

TEST(Function, FunctionFromExternCGlobalWrapsPointers) {
  // The global form of FromExternC, for callers holding raw addresses (ctypes).
  static int deleted = 0;
  static int state = 100;
  TVMFFISafeCallType cb = [](void* self, const TVMFFIAny* args, int32_t, TVMFFIAny* rv) -> int {
    rv->type_index = kTVMFFIInt;
    rv->v_int64 = args[0].v_int64 + *static_cast<int*>(self);
    return 0;
  };
  void (*deleter)(void*) = [](void*) { ++deleted; };
  ffi::Function make = ffi::Function::GetGlobalRequired("ffi.FunctionFromExternC");
  {
    auto f = make(static_cast<void*>(&state), reinterpret_cast<void*>(cb),
                  reinterpret_cast<void*>(deleter))
                 .cast<ffi::Function>();
    EXPECT_EQ(f(1).cast<int64_t>(), 101);
  }
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(ErrorKindOf([&] { make(nullptr, nullptr, nullptr); }), "ValueError");
}

TEST(Function, ShapeParametersTakeArraysAndListsOfInts) {
  auto size = ffi::Function::FromTyped([](ffi::Shape s) { return s.Product(); });
  EXPECT_EQ(size(ffi::Shape({2, 3})).cast<int64_t>(), 6);
  ffi::Array<int64_t> array{2, 5};
  ffi::List<ffi::Any> list{3, 3};
  ffi::Array<ffi::Any> mixed{1, 2.5};
  EXPECT_EQ(size(array).cast<int64_t>(), 10);
  EXPECT_EQ(size(list).cast<int64_t>(), 9);
  EXPECT_EQ(ErrorKindOf([&] { size(mixed); }), "TypeError");
  EXPECT_EQ(ErrorKindOf([&] { size(ffi::Map<ffi::Any, ffi::Any>()); }), "TypeError");
}

TEST(Function, GlobalRegistrySetGetListRemove) {
  const std::string name = "testing.function.global_add";
  auto f = ffi::Function::FromTyped([](int64_t a, int64_t b) { return a + b; });
  ffi::Function::SetGlobal(name, f);
  ASSERT_TRUE(ffi::Function::GetGlobal(name).has_value());
  EXPECT_EQ((*ffi::Function::GetGlobal(name))(2, 3).cast<int64_t>(), 5);
  // Registering the same name again needs allow_override.
  EXPECT_EQ(ErrorKindOf([&] { ffi::Function::SetGlobal(name, f); }), "RuntimeError");
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
  EXPECT_EQ(TVMFFIFunctionSetGlobal(&name, HeapHeader(s), 0), -1);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(err)->kind.data), "TypeError");
  TVMFFIObjectDecRef(err);
}

/*!
 * \brief What a registry-reentrant deleter did: a function's deleter (a Python callback's, say) may
 * look up, register and remove global functions, which deadlocks if the registry destroys the
 * function while holding its lock.
 */
struct ReentrantDeleterLog {
  int deletions = 0;
  bool found_global = false;
};

/*! \brief A function whose deleter uses the registry, logging into `log`. */
ffi::Function FunctionWithReentrantDeleter(ReentrantDeleterLog* log) {
  auto call = [](void*, const TVMFFIAny*, int32_t, TVMFFIAny* rv) -> int {
    rv->type_index = kTVMFFIInt;
    rv->v_int64 = 1;
    return 0;
  };
  return ffi::Function::FromExternC(log, call, [](void* self) {
    auto* log = static_cast<ReentrantDeleterLog*>(self);
    ++log->deletions;
    log->found_global = ffi::Function::GetGlobal("ffi.FunctionRemoveGlobal").has_value();
    ffi::Function::SetGlobal("testing.function.set_by_deleter",
                             ffi::Function::FromTyped([]() { return 7; }), true);
    ffi::Function::RemoveGlobal("testing.function.removed_by_deleter");
  });
}

TEST(Function, RegistryDestroysReplacedFunctionsOutsideItsLock) {
  const std::string name = "testing.function.reentrant";
  ReentrantDeleterLog log;
  ffi::Function::SetGlobal("testing.function.removed_by_deleter",
                           ffi::Function::FromTyped([]() { return 0; }));
  ffi::Function::SetGlobal(name, FunctionWithReentrantDeleter(&log));
  EXPECT_EQ(log.deletions, 0);
  // Overriding drops the registry's reference, the last one: the deleter runs and uses the
  // registry (a deadlock if the registry still held its lock).
  ffi::Function::SetGlobal(name, ffi::Function::FromTyped([]() { return 2; }), true);
  EXPECT_EQ(log.deletions, 1);
  EXPECT_TRUE(log.found_global);
  EXPECT_EQ(ffi::Function::GetGlobalRequired("testing.function.set_by_deleter")().cast<int64_t>(),
            7);
  EXPECT_FALSE(ffi::Function::GetGlobal("testing.function.removed_by_deleter").has_value());
  EXPECT_EQ(ffi::Function::GetGlobalRequired(name)().cast<int64_t>(), 2);

  // Removing does the same.
  ReentrantDeleterLog removed_log;
  ffi::Function::SetGlobal(name, FunctionWithReentrantDeleter(&removed_log), true);
  ffi::Function::SetGlobal("testing.function.removed_by_deleter",
                           ffi::Function::FromTyped([]() { return 0; }));
  EXPECT_TRUE(ffi::Function::RemoveGlobal(name));
  EXPECT_EQ(removed_log.deletions, 1);
  EXPECT_TRUE(removed_log.found_global);
  EXPECT_FALSE(ffi::Function::GetGlobal("testing.function.removed_by_deleter").has_value());
  EXPECT_TRUE(ffi::Function::RemoveGlobal("testing.function.set_by_deleter"));
}

TEST(Function, RefusedRegistrationReleasesTheFunctionOutsideTheLock) {
  const std::string name = "testing.function.refused";
  ffi::Function::SetGlobal(name, ffi::Function::FromTyped([]() { return 1; }));
  ReentrantDeleterLog log;
  EXPECT_EQ(
      ErrorKindOf([&] { ffi::Function::SetGlobal(name, FunctionWithReentrantDeleter(&log)); }),
      "RuntimeError");
  EXPECT_EQ(log.deletions, 1);
  EXPECT_TRUE(log.found_global);
  EXPECT_EQ(ffi::Function::GetGlobalRequired(name)().cast<int64_t>(), 1);
  ffi::Function::RemoveGlobal(name);
  ffi::Function::RemoveGlobal("testing.function.set_by_deleter");
}

TEST(Function, NullNamesAreRefused) {
  auto f = ffi::Function::FromTyped([]() { return 1; });
  TVMFFIObjectHandle out = nullptr;
  EXPECT_EQ(TVMFFIFunctionSetGlobal(nullptr, ffi::detail::ObjectUnsafe::HeaderOf(f), 0), -1);
  TVMFFIErrorMoveFromRaised(&out);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(out)->kind.data), "ValueError");
  TVMFFIObjectDecRef(out);
  out = nullptr;
  TVMFFIObjectHandle got = nullptr;
  EXPECT_EQ(TVMFFIFunctionGetGlobal(nullptr, &got), -1);
  TVMFFIErrorMoveFromRaised(&out);
  ASSERT_NE(out, nullptr);
  TVMFFIObjectDecRef(out);
}

int64_t StaticSquare(int64_t x) { return x * x; }
FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef().def("testing.function.static_square", StaticSquare);
}

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

namespace {
TEST(FunctionPacked, RawArgumentArrayForm) {
  ffi::Function f =
      ffi::Function::FromPacked([](const ffi::AnyView* args, int32_t num_args, ffi::Any* result) {
        int64_t total = 0;
        for (int32_t i = 0; i < num_args; ++i) total += args[i].cast<int64_t>();
        *result = total;
      });
  EXPECT_EQ(f(1, 2, 3).cast<int64_t>(), 6);
  EXPECT_EQ(f().cast<int64_t>(), 0);
}

TEST(PackedArgs, SliceForwardsTheRest) {
  ffi::Function sum = ffi::Function::FromPacked([](ffi::PackedArgs args, ffi::Any* result) {
    int64_t total = 0;
    for (int32_t i = 0; i < args.size(); ++i) total += args[i].cast<int64_t>();
    *result = total;
  });
  ffi::Function apply = ffi::Function::FromPacked([](ffi::PackedArgs args, ffi::Any* result) {
    args[0].cast<ffi::Function>().CallPacked(args.Slice(1), result);
  });
  EXPECT_EQ(apply(sum, 1, 2, 3).cast<int64_t>(), 6);
  EXPECT_EQ(apply(sum).cast<int64_t>(), 0);
  ffi::Function middle = ffi::Function::FromPacked([](ffi::PackedArgs args, ffi::Any* result) {
    ffi::PackedArgs inner = args.Slice(1, 3);
    *result = inner.size() * 100 + inner[0].cast<int64_t>() * 10 + inner[1].cast<int64_t>();
  });
  EXPECT_EQ(middle(9, 4, 5, 9).cast<int64_t>(), 245);
  // The reference's spelling: a pointer to views and a count.
  ffi::AnyView views[] = {ffi::AnyView(int64_t{4}), ffi::AnyView(int64_t{5})};
  ffi::Any result;
  sum.CallPacked(views, 2, &result);
  EXPECT_EQ(result.cast<int64_t>(), 9);
}
// A function in the calling convention's C form, as a library exports `__tvm_ffi_<name>`.
int AddExternC(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  FFI_SAFE_CALL_BEGIN();
  if (num_args != 2) FFI_THROW(TypeError) << "AddExternC takes 2 arguments";
  auto* views = reinterpret_cast<const ffi::AnyView*>(args);
  *result = ffi::Any(views[0].cast<int64_t>() + views[1].cast<int64_t>()).release();
  FFI_SAFE_CALL_END();
}

TEST(Function, InvokeExternCCallsTheCFormDirectly) {
  EXPECT_EQ(ffi::Function::InvokeExternC(nullptr, AddExternC, 2, 3).cast<int64_t>(), 5);
  std::string message;
  EXPECT_EQ(ErrorKindOf([] { ffi::Function::InvokeExternC(nullptr, AddExternC, 1); }, &message),
            "TypeError");
  EXPECT_EQ(message, "AddExternC takes 2 arguments");
}

TEST(Function, PackedArgsFillViewsEachArgument) {
  ffi::AnyView views[3];
  ffi::String s("text");
  ffi::PackedArgs::Fill(views, 1, 2.5, s);
  EXPECT_EQ(views[0].cast<int64_t>(), 1);
  EXPECT_EQ(views[1].cast<double>(), 2.5);
  EXPECT_EQ(views[2].cast<ffi::String>(), "text");
}

}  // namespace
