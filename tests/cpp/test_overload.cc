// Overloading (reflection/overload.h, reflection/overload_cast.h): overload_cast picking one C++
// function of an overload set, and OverloadObjectDef registering several signatures under one
// reflected method, static method or constructor that dispatches at call time.
#include <ffi/container/array.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/overload.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = tvm::ffi::reflection;

class CounterObj : public ffi::Object {
 public:
  int64_t value = 0;
  ffi::String tag = "";
  static constexpr bool _type_mutable = true;

  CounterObj() = default;
  explicit CounterObj(int64_t v) : value(v) {}
  explicit CounterObj(ffi::String t) : tag(std::move(t)) {}
  CounterObj(int64_t v, ffi::String t) : value(v), tag(std::move(t)) {}

  // Overloaded by argument count and by argument type.
  int64_t Add(int64_t k) const { return value + k; }
  int64_t Add(int64_t a, int64_t b) const { return value + a + b; }
  ffi::String Add(ffi::String s) const { return ffi::String(std::string(tag) + std::string(s)); }
  // Overloaded by constness only.
  int64_t Get(int64_t k) { return 1000 + k; }
  int64_t Get(int64_t k) const { return 2000 + k; }
  void Bump(int64_t k) { value += k; }
  void Bump(ffi::String t) { tag = t; }

  static int64_t Twice(int64_t x) { return 2 * x; }
  static ffi::String Twice(ffi::String s) { return ffi::String(std::string(s) + std::string(s)); }
  static double Twice(double x) { return 2 * x; }

  FFI_DECLARE_OBJECT_INFO_FINAL("testing.overload.Counter", CounterObj, ffi::Object);
};

class Counter : public ffi::ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(Counter, ffi::ObjectRef, CounterObj);
};

/*! \brief A type with one constructor and one signature per method (the plain path). */
class PlainObj : public ffi::Object {
 public:
  int64_t v = 0;
  explicit PlainObj(int64_t v) : v(v) {}
  int64_t Plus(int64_t k) const { return v + k; }
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.overload.Plain", PlainObj, ffi::Object);
};

/*! \brief Types registered inside tests. */
class ThrowingObj : public ffi::Object {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.overload.Throwing", ThrowingObj, ffi::Object);
};
class MixedObj : public ffi::Object {
 public:
  int64_t M() const { return 1; }
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.overload.Mixed", MixedObj, ffi::Object);
};

int64_t Area(int64_t side) { return side * side; }
int64_t Area(int64_t w, int64_t h) { return w * h; }
double Area(double side) { return side * side; }

FFI_STATIC_INIT_BLOCK() {
  refl::OverloadObjectDef<CounterObj>("A counter with overloaded members.")
      .def(refl::init<int64_t>(), "From a value.")
      .def(refl::init<ffi::String>(), "From a tag.")
      .def(refl::init<int64_t, ffi::String>())
      .def_ro("value", &CounterObj::value, "The value.")
      .def_rw("tag", &CounterObj::tag)
      .def("add", refl::overload_cast<int64_t>(&CounterObj::Add, refl::const_), "Adds one.")
      .def("add", refl::overload_cast<int64_t, int64_t>(&CounterObj::Add, refl::const_),
           "Adds two.")
      .def("add", refl::overload_cast<ffi::String>(&CounterObj::Add, refl::const_),
           "Appends to the tag.")
      .def("bump", refl::overload_cast<int64_t>(&CounterObj::Bump))
      .def("bump", refl::overload_cast<ffi::String>(&CounterObj::Bump))
      .def("get", refl::overload_cast<int64_t>(&CounterObj::Get, refl::const_))
      // Registration order decides: an int converts to float, so `int_first` keeps ints apart
      // from floats while `float_first` takes both; Any takes the rest.
      .def("int_first", [](const CounterObj*, int64_t) { return ffi::String("int"); })
      .def("int_first", [](const CounterObj*, double) { return ffi::String("float"); })
      .def("int_first", [](const CounterObj*, ffi::Any) { return ffi::String("any"); })
      .def("float_first", [](const CounterObj*, double) { return ffi::String("float"); })
      .def("float_first", [](const CounterObj*, int64_t) { return ffi::String("int"); })
      .def("size_of", [](const CounterObj*, ffi::Array<int64_t> xs) { return xs.size(); })
      .def("size_of", [](const CounterObj*, ffi::String s) { return s.size(); })
      .def_static("twice", refl::overload_cast<int64_t>(&CounterObj::Twice))
      .def_static("twice", refl::overload_cast<ffi::String>(&CounterObj::Twice))
      .def_static("twice", refl::overload_cast<double>(&CounterObj::Twice))
      .def_static("zero", []() { return int64_t{0}; });
  refl::OverloadObjectDef<PlainObj>().def(refl::init<int64_t>()).def("plus", &PlainObj::Plus);
}

std::string_view View(const TVMFFIByteArray& a) { return std::string_view(a.data, a.size); }

const TVMFFITypeInfo* CounterInfo() { return TVMFFIGetTypeInfo(CounterObj::RuntimeTypeIndex()); }

/*! \brief The records of method `name`, in registration order. */
std::vector<const TVMFFIMethodInfo*> Records(const TVMFFITypeInfo* info, std::string_view name) {
  std::vector<const TVMFFIMethodInfo*> out;
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (View(info->methods[i].name) == name) out.push_back(&info->methods[i]);
  }
  return out;
}

ffi::Function Method(const char* name) { return refl::GetMethod("testing.overload.Counter", name); }

Counter MakeCounter(int64_t v, const char* tag) {
  return Method("__ffi_init__")(v, tag).cast<Counter>();
}

// ---- overload_cast ------------------------------------------------------------------------

struct Cat {};
struct Dog {};
struct Pet {
  int Feed(const Cat*, int amount) { return 100 + amount; }
  int Feed(const Dog*, int amount) { return 200 + amount; }
  int Get(int x) { return 300 + x; }
  int Get(int x) const { return 400 + x; }
  int Run(int, int) { return 1; }
  int Run(int, double) { return 2; }
  int Run(int, int, int) { return 3; }
};
int FreeFeed(const Cat*, int x) { return 500 + x; }
int FreeFeed(const Dog*, int x) { return 600 + x; }

template <auto F>
struct CallWith {
  template <typename Self, typename... A>
  static auto Run(Self& self, A... args) {
    return (self.*F)(args...);
  }
};

TEST(OverloadCast, PicksByFullParameterList) {
  Pet p;
  auto run2 = refl::overload_cast<int, int>(&Pet::Run);
  static_assert(std::is_same_v<decltype(run2), int (Pet::*)(int, int)>);
  EXPECT_EQ((p.*run2)(0, 0), 1);
  EXPECT_EQ((p.*refl::overload_cast<int, double>(&Pet::Run))(0, 0.5), 2);
  EXPECT_EQ((p.*refl::overload_cast<int, int, int>(&Pet::Run))(0, 0, 0), 3);
  auto area2 = refl::overload_cast<int64_t, int64_t>(&Area);
  static_assert(std::is_same_v<decltype(area2), int64_t (*)(int64_t, int64_t)>);
  EXPECT_EQ(area2(3, 4), 12);
  EXPECT_EQ(refl::overload_cast<double>(&Area)(1.5), 2.25);
  EXPECT_EQ(refl::overload_cast<int64_t>(&Area)(5), 25);
}

TEST(OverloadCast, PicksByParameterPrefix) {
  Pet p;
  Cat cat;
  Dog dog;
  auto feed_cat = refl::overload_cast<const Cat*>(&Pet::Feed);
  static_assert(std::is_same_v<decltype(feed_cat), int (Pet::*)(const Cat*, int)>);
  EXPECT_EQ((p.*feed_cat)(&cat, 1), 101);
  EXPECT_EQ((p.*refl::overload_cast<const Dog*>(&Pet::Feed))(&dog, 2), 202);
  auto free_cat = refl::overload_cast<const Cat*>(&FreeFeed);
  static_assert(std::is_same_v<decltype(free_cat), int (*)(const Cat*, int)>);
  EXPECT_EQ(free_cat(&cat, 3), 503);
  EXPECT_EQ(refl::overload_cast<const Dog*>(&FreeFeed)(&dog, 4), 604);
}

TEST(OverloadCast, ConstMembersNeedTheTag) {
  Pet p;
  const Pet& cp = p;
  auto mutable_get = refl::overload_cast<int>(&Pet::Get);
  static_assert(std::is_same_v<decltype(mutable_get), int (Pet::*)(int)>);
  auto const_get = refl::overload_cast<int>(&Pet::Get, refl::const_);
  static_assert(std::is_same_v<decltype(const_get), int (Pet::*)(int) const>);
  EXPECT_EQ((p.*mutable_get)(1), 301);
  EXPECT_EQ((cp.*const_get)(1), 401);
}

TEST(OverloadCast, IsAConstantExpression) {
  Pet p;
  Cat cat;
  constexpr auto kFeed = refl::overload_cast<const Cat*>(&Pet::Feed);
  EXPECT_EQ((CallWith<kFeed>::Run(p, &cat, 5)), 105);
  EXPECT_EQ((CallWith<refl::overload_cast<int, int, int>(&Pet::Run)>::Run(p, 0, 0, 0)), 3);
}

TEST(OverloadCast, PickedMethodsRegisterWithObjectDef) {
  // The methods registered above through overload_cast, const and non-const.
  Counter c = MakeCounter(5, "a");
  EXPECT_EQ(Method("get")(c, 1).cast<int64_t>(), 2001);  // the const overload
  Method("bump")(c, 3);
  EXPECT_EQ(c->value, 8);
}

// ---- OverloadObjectDef: dispatch ------------------------------------------------------------

TEST(OverloadObjectDef, MethodsDispatchByArgumentCount) {
  ffi::Function add = Method("add");
  Counter c = MakeCounter(10, "t");
  EXPECT_EQ(add(c, 1).cast<int64_t>(), 11);
  EXPECT_EQ(add(c, 1, 2).cast<int64_t>(), 13);
}

TEST(OverloadObjectDef, MethodsDispatchByArgumentType) {
  ffi::Function add = Method("add");
  Counter c = MakeCounter(10, "t");
  EXPECT_EQ(add(c, "ag").cast<std::string>(), "tag");
  EXPECT_EQ(add(c, ffi::String("ail")).cast<std::string>(), "tail");
  ffi::Function size_of = Method("size_of");
  EXPECT_EQ(size_of(c, ffi::Array<int64_t>{1, 2, 3}).cast<int64_t>(), 3);
  EXPECT_EQ(size_of(c, "hello").cast<int64_t>(), 5);
  // A void overload chosen by type.
  ffi::Function bump = Method("bump");
  bump(c, 4);
  bump(c, "new");
  EXPECT_EQ(c->value, 14);
  EXPECT_EQ(std::string(c->tag), "new");
}

TEST(OverloadObjectDef, TheFirstSignatureThatFitsWins) {
  Counter c = MakeCounter(0, "");
  EXPECT_EQ(Method("int_first")(c, 3).cast<std::string>(), "int");
  EXPECT_EQ(Method("int_first")(c, 2.5).cast<std::string>(), "float");
  EXPECT_EQ(Method("int_first")(c, "x").cast<std::string>(), "any");  // a catch-all, last
  EXPECT_EQ(Method("float_first")(c, 3).cast<std::string>(), "float");
  EXPECT_EQ(Method("float_first")(c, 2.5).cast<std::string>(), "float");
}

TEST(OverloadObjectDef, StaticMethodsOverload) {
  ffi::Function twice = Method("twice");
  EXPECT_EQ(twice(21).cast<int64_t>(), 42);
  EXPECT_EQ(twice("ab").cast<std::string>(), "abab");
  EXPECT_EQ(twice(1.25).cast<double>(), 2.5);
  EXPECT_EQ(Method("zero")().cast<int64_t>(), 0);
}

TEST(OverloadObjectDef, ConstructorsOverload) {
  ffi::Function init = Method("__ffi_init__");
  Counter a = init(7).cast<Counter>();
  EXPECT_EQ(a->value, 7);
  EXPECT_EQ(std::string(a->tag), "");
  Counter b = init("tagged").cast<Counter>();
  EXPECT_EQ(b->value, 0);
  EXPECT_EQ(std::string(b->tag), "tagged");
  Counter c = init(3, "both").cast<Counter>();
  EXPECT_EQ(c->value, 3);
  EXPECT_EQ(std::string(c->tag), "both");
  // The type attribute holds the same dispatching Function.
  ffi::AnyView attr = refl::TypeAttrColumn("__ffi_init__")[CounterObj::RuntimeTypeIndex()];
  ffi::Function from_attr = attr.cast<ffi::Function>();
  EXPECT_EQ(from_attr.get(), init.get());
  EXPECT_EQ(std::string(from_attr("x").cast<Counter>()->tag), "x");
}

TEST(OverloadObjectDef, NoMatchIsATypeErrorListingEverySignature) {
  ffi::Function add = Method("add");
  Counter c = MakeCounter(1, "");
  ffi::Error e = ExpectError([&] { add(c, 1.5); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "No matching overload found when calling: `testing.overload.Counter.add` with 2 "
            "arguments:\n"
            "Overload #0: Mismatched type on argument #1 when calling: "
            "`testing.overload.Counter.add(0: testing.overload.Counter, 1: int) -> int`. "
            "Expected `int` but got `float`\n"
            "Overload #1: Mismatched number of arguments when calling: "
            "`testing.overload.Counter.add(0: testing.overload.Counter, 1: int, 2: int) -> int`. "
            "Expected 3 but got 2 arguments\n"
            "Overload #2: Mismatched type on argument #1 when calling: "
            "`testing.overload.Counter.add(0: testing.overload.Counter, 1: str) -> str`. "
            "Expected `str` but got `float`");
  // The object itself does not convert.
  e = ExpectError([&] { add(1, 2); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Overload #0: Mismatched type on argument #0"), std::string::npos)
      << e.message();
  e = ExpectError([&] { Method("__ffi_init__")(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("`testing.overload.Counter.__ffi_init__` with 0 arguments:\n"
                             "Overload #0: Mismatched number of arguments"),
            std::string::npos)
      << e.message();
}

TEST(OverloadObjectDef, ErrorsInTheChosenBodyPropagate) {
  // A method that throws is not taken for a mismatch: the next signature is not tried.
  static int second_calls = 0;
  refl::OverloadObjectDef<ThrowingObj>()
      .def_static("f", [](int64_t) -> int64_t { FFI_THROW(ValueError) << "inside"; })
      .def_static("f", [](double) -> int64_t { return ++second_calls; });
  ffi::Function f = refl::GetMethod("testing.overload.Throwing", "f");
  ffi::Error e = ExpectError([&] { f(1); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "inside");
  EXPECT_EQ(second_calls, 0);
  EXPECT_EQ(f(0.5).cast<int64_t>(), 1);
}

TEST(OverloadObjectDef, OneSignatureFailsAsATypedFunction) {
  ffi::Function plus = refl::GetMethod("testing.overload.Plain", "plus");
  ffi::Any obj = refl::GetMethod("testing.overload.Plain", "__ffi_init__")(4);
  EXPECT_EQ(plus(obj, 3).cast<int64_t>(), 7);
  ffi::Error e = ExpectError([&] { plus(obj, "x"); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #1 when calling: "
            "`testing.overload.Plain.plus(0: testing.overload.Plain, 1: int) -> int`. "
            "Expected `int` but got `str`");
  e = ExpectError([&] { plus(obj); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Mismatched number of arguments"), std::string::npos);
}

TEST(OverloadObjectDef, StaticAndInstanceCannotShareAName) {
  ffi::Error e = ExpectError([] {
    refl::OverloadObjectDef<MixedObj>().def("m", &MixedObj::M).def_static("m", []() { return 2; });
  });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_NE(e.message().find("`testing.overload.Mixed.m` cannot be both"), std::string::npos)
      << e.message();
}

// ---- OverloadObjectDef: records ---------------------------------------------------------------

TEST(OverloadObjectDef, EverySignatureIsRecordedWithOneFunction) {
  const TVMFFITypeInfo* info = CounterInfo();
  std::vector<const TVMFFIMethodInfo*> add = Records(info, "add");
  ASSERT_EQ(add.size(), 3u);
  EXPECT_EQ(View(add[0]->doc), "Adds one.");
  EXPECT_EQ(View(add[1]->doc), "Adds two.");
  EXPECT_EQ(View(add[2]->doc), "Appends to the tag.");
  for (const TVMFFIMethodInfo* m : add) {
    EXPECT_EQ(m->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod, 0);
    EXPECT_EQ(m->method.v_obj, add[0]->method.v_obj);
  }
  // Each record carries its own signature's type schema.
  EXPECT_NE(View(add[0]->metadata)
                .find(R"(\"params\":[{\"type\":\"testing.overload.Counter\"},)"
                      R"({\"type\":\"int\"}]})"),
            std::string_view::npos)
      << View(add[0]->metadata);
  EXPECT_NE(View(add[1]->metadata).find(R"({\"type\":\"int\"},{\"type\":\"int\"}]})"),
            std::string_view::npos)
      << View(add[1]->metadata);
  EXPECT_NE(View(add[2]->metadata).find(R"({\"type\":\"ffi.String\"}]})"), std::string_view::npos)
      << View(add[2]->metadata);
  std::vector<const TVMFFIMethodInfo*> twice = Records(info, "twice");
  ASSERT_EQ(twice.size(), 3u);
  for (const TVMFFIMethodInfo* m : twice) {
    EXPECT_NE(m->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod, 0);
    EXPECT_GT(m->metadata.size, 0u);
  }
  std::vector<const TVMFFIMethodInfo*> init = Records(info, "__ffi_init__");
  ASSERT_EQ(init.size(), 3u);
  EXPECT_EQ(View(init[0]->doc), "From a value.");
  EXPECT_EQ(View(init[1]->doc), "From a tag.");
  // A lookup by name finds the first record, whose Function dispatches among all.
  EXPECT_EQ(refl::GetMethodInfo("testing.overload.Counter", "add"), add[0]);
  EXPECT_EQ(Records(info, "zero").size(), 1u);
  EXPECT_EQ(View(info->metadata->doc), "A counter with overloaded members.");
}

TEST(OverloadObjectDef, FieldsAndStandardAttributesAsObjectDef) {
  Counter c = MakeCounter(3, "x");
  EXPECT_EQ(refl::GetFieldInfo("testing.overload.Counter", "value")->flags &
                kTVMFFIFieldFlagBitMaskWritable,
            0);
  EXPECT_NE(refl::GetFieldInfo("testing.overload.Counter", "tag")->flags &
                kTVMFFIFieldFlagBitMaskWritable,
            0);
  // ObjectDef's closing registrations ran: a creator makes an empty object, a shallow copy.
  ffi::AnyView make_new = refl::TypeAttrColumn("__ffi_new__")[CounterObj::RuntimeTypeIndex()];
  EXPECT_EQ(make_new.cast<ffi::Function>()().cast<Counter>()->value, 0);
  ffi::AnyView copy = refl::TypeAttrColumn("__ffi_shallow_copy__")[CounterObj::RuntimeTypeIndex()];
  Counter copied = copy.cast<ffi::Function>()(c).cast<Counter>();
  EXPECT_NE(copied.get(), c.get());
  EXPECT_EQ(copied->value, 3);
}

}  // namespace
