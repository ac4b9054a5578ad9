// Reflection registration (reflection/registry.h) and its readers (reflection/accessor.h):
// global functions with docs and metadata, an object type with fields, methods, static methods,
// a constructor and type attributes, read back through the C ABI records.
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/creator.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>
#include <tvm/ffi/tvm_compat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = tvm::ffi::reflection;

class PointObj : public ffi::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  ffi::String label = "unnamed";
  static constexpr bool _type_mutable = true;

  PointObj() = default;
  PointObj(int64_t x, double y) : x(x), y(y) {}
  int64_t Shifted(int64_t k) const { return x + k; }
  void Move(int64_t dx) { x += dx; }

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.refl.Point", PointObj, ffi::Object);
};

class Point : public ffi::ObjectRef {
 public:
  Point(int64_t x, double y) : ObjectRef(ffi::make_object<PointObj>(x, y)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Point, ffi::ObjectRef, PointObj);
};

/*! \brief A read-only type: references hand out const pointers. */
class FrozenObj : public ffi::Object {
 public:
  int64_t v = 7;
  TVM_FFI_DECLARE_OBJECT_INFO("testing.refl.Frozen", FrozenObj, ffi::Object);
};
class Frozen : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Frozen, ffi::ObjectRef, FrozenObj);
};

/*! \brief A type at a fixed index, and one whose class defines its own key. */
class FixedObj : public ffi::Object {
 public:
  static constexpr int32_t _type_index = 120;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("testing.refl.Fixed", FixedObj, ffi::Object);
};
class KeyedObj : public ffi::Object {
 public:
  static constexpr const char* _type_key = "testing.refl.Keyed";
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(KeyedObj, ffi::Object);
};

/*! \brief Types registered only inside a test (for the generated-constructor hook). */
class AutoInitObj : public ffi::Object {
 public:
  int64_t v = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.refl.AutoInit", AutoInitObj, ffi::Object);
};
class NoAutoInitObj : public ffi::Object {
 public:
  int64_t v = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.refl.NoAutoInit", NoAutoInitObj, ffi::Object);
};

int64_t Add(int64_t a, int64_t b) { return a + b; }

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::GlobalDef()
      .def("testing.refl.add", Add, "Adds two integers.",
           refl::Metadata{{"pure", true}, {"arity", 2}, {"note", "say \"hi\""}})
      .def_packed("testing.refl.count",
                  [](ffi::PackedArgs args, ffi::Any* rv) { *rv = args.size(); })
      .def_method("testing.refl.point_shifted", &PointObj::Shifted);
  refl::ObjectDef<PointObj>("A point in the plane.")
      .def(refl::init<int64_t, double>(), "Makes a point.")
      .def_ro("x", &PointObj::x, "The x coordinate.")
      .def_rw("y", &PointObj::y, refl::default_value(2.5), refl::Metadata{{"unit", "m"}})
      .def_rw("label", &PointObj::label, refl::repr(false))
      .def("shifted", &PointObj::Shifted, "x + k")
      .def("move", &PointObj::Move)
      .def("scaled_y", [](const PointObj* self, double k) { return self->y * k; })
      .def_static("origin", []() { return Point(0, 0.0); });
  refl::ObjectDef<FrozenObj>().def_ro("v", &FrozenObj::v);
  refl::TypeAttrDef<PointObj>()
      .def_convert<Point>()
      .def("__testing_refl_answer__", 42)
      .def("__testing_refl_twice__", [](int64_t a) { return 2 * a; });
  refl::EnsureTypeAttrColumn("__testing_refl_empty__");
}

std::string_view View(const TVMFFIByteArray& a) { return std::string_view(a.data, a.size); }

const TVMFFITypeInfo* PointInfo() { return TVMFFIGetTypeInfo(PointObj::RuntimeTypeIndex()); }

const TVMFFIFieldInfo* FindField(const TVMFFITypeInfo* info, std::string_view name) {
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (View(info->fields[i].name) == name) return &info->fields[i];
  }
  return nullptr;
}

TEST(Reflection, ObjectInfoMacrosGiveTheReferenceStatics) {
  // _type_index, RuntimeTypeIndex() and _GetOrAllocRuntimeTypeIndex() agree.
  EXPECT_GE(PointObj::_type_index, kTVMFFIDynObjectBegin);
  EXPECT_EQ(PointObj::_type_index, PointObj::RuntimeTypeIndex());
  EXPECT_EQ(PointObj::_GetOrAllocRuntimeTypeIndex(), PointObj::RuntimeTypeIndex());
  EXPECT_TRUE(PointObj::_type_final);
  EXPECT_FALSE(FrozenObj::_type_final);
  EXPECT_EQ(ffi::Object::_type_index, kTVMFFIObject);
  EXPECT_EQ(ffi::FunctionObj::_GetOrAllocRuntimeTypeIndex(), kTVMFFIFunction);
  // A mutable type's reference gives mutable access; a frozen one's does not.
  static_assert(std::is_same_v<decltype(std::declval<Point>().get()), PointObj*>);
  static_assert(std::is_same_v<decltype(std::declval<Frozen>().get()), const FrozenObj*>);
  static_assert(Point::_type_is_nullable && !Frozen::_type_is_nullable);
  Point p(1, 2.0);
  p->x = 5;
  EXPECT_EQ(p->x, 5);
  Point null_point(ffi::UnsafeInit{});
  EXPECT_FALSE(null_point.defined());
  // The reference's spelling of the internals.
  EXPECT_EQ(ffi::details::ObjectUnsafe::RawObjectPtrFromObjectRef(p), p.get());
  ffi::ObjectPtr<PointObj> ptr = ffi::details::ObjectUnsafe::ObjectPtrFromObjectRef<PointObj>(p);
  EXPECT_EQ(ptr.get(), p.get());
  EXPECT_EQ(p.use_count(), 2u);
}

TEST(Reflection, StaticAndPredefinedKeyDeclarations) {
  EXPECT_EQ(FixedObj::RuntimeTypeIndex(), 120);
  EXPECT_EQ(FixedObj::_GetOrAllocRuntimeTypeIndex(), 120);
  const TVMFFITypeInfo* fixed = TVMFFIGetTypeInfo(120);
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(View(fixed->type_key), "testing.refl.Fixed");
  EXPECT_EQ(fixed->type_depth, 1);
  EXPECT_GE(KeyedObj::_type_index, kTVMFFIDynObjectBegin);
  EXPECT_EQ(View(TVMFFIGetTypeInfo(KeyedObj::RuntimeTypeIndex())->type_key), "testing.refl.Keyed");
  auto obj = ffi::make_object<KeyedObj>();
  EXPECT_TRUE(ffi::ObjectRef(obj).as<KeyedObj>() != nullptr);
}

TEST(Reflection, GeneratedConstructorHookUnlessInitGivenOrRefused) {
  // The runtime's ffi._RegisterFFIInit (when it has one) is asked for a constructor for types
  // registered without init<...>; init(false) refuses it. A recording stand-in shows the calls.
  // The runtime's own (src/runtime/extra/kwargs.cc) is put back afterwards.
  static std::vector<int32_t> asked;
  ffi::Function runtime_hook = ffi::Function::GetGlobalRequired("ffi._RegisterFFIInit");
  ffi::Function::SetGlobal("ffi._RegisterFFIInit",
                           ffi::Function::FromTyped([](int32_t index) { asked.push_back(index); }),
                           /*allow_override=*/true);
  refl::ObjectDef<AutoInitObj>().def_ro("v", &AutoInitObj::v);
  refl::ObjectDef<NoAutoInitObj>(refl::init(false)).def_ro("v", &NoAutoInitObj::v);
  ffi::Function::SetGlobal("ffi._RegisterFFIInit", runtime_hook, /*allow_override=*/true);
  EXPECT_EQ(asked, std::vector<int32_t>{AutoInitObj::RuntimeTypeIndex()});
}

TEST(Reflection, GlobalFunctionsCarryTypeSchemaAndMetadata) {
  ffi::Function add = ffi::Function::GetGlobalRequired("testing.refl.add");
  EXPECT_EQ(add(2, 3).cast<int64_t>(), 5);
  auto metadata = ffi::Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  EXPECT_EQ(metadata("testing.refl.add").cast<std::string>(),
            R"({"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":)"
            R"(\"int\"}],\"params\":[{\"type\":\"int\"},{\"type\":\"int\"}]}}","pure":true,)"
            R"("arity":2,"note":"say \"hi\""})");
  EXPECT_EQ(ffi::Function::GetGlobalRequired("testing.refl.count")(1, "a", 2.0).cast<int64_t>(), 3);
  EXPECT_EQ(metadata("testing.refl.count").cast<std::string>(),
            R"({"type_schema":"{\"type\":\"ffi.Function\"}"})");
  // def_method: the object comes first.
  ffi::Function shifted = ffi::Function::GetGlobalRequired("testing.refl.point_shifted");
  EXPECT_EQ(shifted(Point(4, 0.0), 3).cast<int64_t>(), 7);
  // Registering a name twice is refused, the first registration intact.
  ffi::Error e = ExpectError([] { refl::GlobalDef().def("testing.refl.add", Add); });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(add(1, 1).cast<int64_t>(), 2);
}

TEST(Reflection, MetadataRefusesOtherValueTypes) {
  ffi::Error e = ExpectError([] { refl::Metadata m{{"bad", 1.5}}; });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("on key `bad`"), std::string::npos) << e.message();
}

TEST(Reflection, FieldsAreRecordedWithOffsetsDocsDefaultsAndFlags) {
  const TVMFFITypeInfo* info = PointInfo();
  ASSERT_EQ(info->num_fields, 3);
  const TVMFFIFieldInfo* x = FindField(info, "x");
  const TVMFFIFieldInfo* y = FindField(info, "y");
  const TVMFFIFieldInfo* label = FindField(info, "label");
  ASSERT_TRUE(x && y && label);
  EXPECT_EQ(View(x->doc), "The x coordinate.");
  EXPECT_EQ(x->flags & kTVMFFIFieldFlagBitMaskWritable, 0);
  EXPECT_EQ(x->size, 8);
  EXPECT_EQ(x->field_static_type_index, kTVMFFIInt);
  EXPECT_EQ(y->field_static_type_index, kTVMFFIFloat);
  EXPECT_EQ(label->field_static_type_index, kTVMFFIAny);  // a 16-byte cell, as an Any
  EXPECT_EQ(label->size, 16);
  EXPECT_EQ(View(x->metadata), R"({"type_schema":"{\"type\":\"int\"}"})");
  EXPECT_EQ(View(y->metadata), R"({"type_schema":"{\"type\":\"float\"}","unit":"m"})");
  EXPECT_EQ(View(label->metadata), R"({"type_schema":"{\"type\":\"ffi.String\"}"})");
  EXPECT_NE(y->flags & kTVMFFIFieldFlagBitMaskWritable, 0);
  EXPECT_NE(y->flags & kTVMFFIFieldFlagBitMaskHasDefault, 0);
  EXPECT_EQ(y->default_value_or_factory.type_index, kTVMFFIFloat);
  EXPECT_DOUBLE_EQ(y->default_value_or_factory.v_float64, 2.5);
  EXPECT_NE(label->flags & kTVMFFIFieldFlagBitMaskReprOff, 0);
  EXPECT_EQ(x->flags & kTVMFFIFieldFlagBitMaskHasDefault, 0);
  EXPECT_EQ(refl::GetFieldByteOffsetToObject(&PointObj::x), sizeof(TVMFFIObject));
  EXPECT_EQ(refl::GetFieldByteOffsetToObject(&PointObj::y), x->offset + 8);
  // Offsets are from the object header, which is where the C ABI hands objects around.
  Point p(11, 1.5);
  const char* base = reinterpret_cast<const char*>(p.get());
  EXPECT_EQ(reinterpret_cast<const int64_t*>(base + x->offset), &p->x);
  EXPECT_EQ(reinterpret_cast<const double*>(base + y->offset), &p->y);
  // The type's metadata: doc, size and a creator.
  ASSERT_NE(info->metadata, nullptr);
  EXPECT_EQ(View(info->metadata->doc), "A point in the plane.");
  EXPECT_EQ(info->metadata->total_size, static_cast<int32_t>(sizeof(PointObj)));
  ASSERT_NE(info->metadata->creator, nullptr);
}

TEST(Reflection, FieldGetterAndSetterReadAndWriteThroughTheRecords) {
  Point p(3, 4.5);
  refl::FieldGetter get_x("testing.refl.Point", "x");
  refl::FieldGetter get_label(FindField(PointInfo(), "label"));
  refl::FieldSetter set_y("testing.refl.Point", "y");
  EXPECT_EQ(get_x(p).cast<int64_t>(), 3);
  EXPECT_EQ(get_label(p).cast<std::string>(), "unnamed");
  set_y(p, 8);  // An int converts to the double field.
  EXPECT_DOUBLE_EQ(p->y, 8.0);
  // A value that does not convert is a TypeError and leaves the field as it was.
  ffi::Error e = ExpectError([&] { set_y(p, "text"); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_DOUBLE_EQ(p->y, 8.0);
  // Setting a field to its default.
  refl::SetFieldToDefault(FindField(PointInfo(), "y"),
                          reinterpret_cast<char*>(p.get()) + FindField(PointInfo(), "y")->offset);
  EXPECT_DOUBLE_EQ(p->y, 2.5);
  // Object references stay counted exactly through getters.
  EXPECT_EQ(p.use_count(), 1u);
  {
    ffi::Any label = get_label(p);
    EXPECT_EQ(label.cast<std::string>(), "unnamed");
  }
  // Unknown fields and types are errors of the reference's kinds.
  EXPECT_EQ(ExpectError([] { refl::FieldGetter("testing.refl.Point", "z"); }).kind(),
            "RuntimeError");
  EXPECT_EQ(ExpectError([] { refl::FieldGetter("testing.refl.NoSuchType", "x"); }).kind(),
            "KeyError");
}

TEST(Reflection, MethodsStaticMethodsAndConstructor) {
  Point p(10, 2.0);
  EXPECT_EQ(refl::GetMethod("testing.refl.Point", "shifted")(p, 5).cast<int64_t>(), 15);
  EXPECT_DOUBLE_EQ(refl::GetMethod("testing.refl.Point", "scaled_y")(p, 3.0).cast<double>(), 6.0);
  refl::GetMethod("testing.refl.Point", "move")(p, 1);
  EXPECT_EQ(p->x, 11);
  const TVMFFIMethodInfo* shifted = refl::GetMethodInfo("testing.refl.Point", "shifted");
  EXPECT_EQ(View(shifted->doc), "x + k");
  EXPECT_EQ(shifted->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod, 0);
  EXPECT_EQ(View(shifted->metadata),
            R"({"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":)"
            R"(\"int\"}],\"params\":[{\"type\":\"testing.refl.Point\"},{\"type\":\"int\"}]}}"})");
  const TVMFFIMethodInfo* origin = refl::GetMethodInfo("testing.refl.Point", "origin");
  EXPECT_NE(origin->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod, 0);
  Point o = refl::GetMethod("testing.refl.Point", "origin")().cast<Point>();
  EXPECT_EQ(o->x, 0);
  // A wrong self is a TypeError naming the method.
  ffi::Error e = ExpectError([] { refl::GetMethod("testing.refl.Point", "shifted")(1, 2); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("testing.refl.Point.shifted"), std::string::npos) << e.message();

  // init<int64_t, double>: the static method __ffi_init__ and the type attribute of that name.
  const TVMFFIMethodInfo* init = refl::GetMethodInfo("testing.refl.Point", "__ffi_init__");
  EXPECT_NE(init->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod, 0);
  EXPECT_EQ(View(init->doc), "Makes a point.");
  refl::TypeAttrColumn init_column(ffi::type_attr::kInit);
  ffi::Function make = init_column[PointObj::RuntimeTypeIndex()].cast<ffi::Function>();
  Point made = make(7, 0.5).cast<Point>();
  EXPECT_EQ(made->x, 7);
  EXPECT_DOUBLE_EQ(made->y, 0.5);
  EXPECT_EQ(made.use_count(), 1u);
}

TEST(Reflection, StandardTypeAttributes) {
  int32_t t = PointObj::RuntimeTypeIndex();
  // __ffi_new__ makes an empty (default-constructed) object.
  Point fresh = refl::TypeAttrColumn("__ffi_new__")[t].cast<ffi::Function>()().cast<Point>();
  EXPECT_EQ(fresh->x, 0);
  EXPECT_EQ(fresh->label.view(), "unnamed");
  // __ffi_shallow_copy__ copies field by field into a new object.
  Point p(5, 1.0);
  Point copy =
      refl::TypeAttrColumn(ffi::type_attr::kShallowCopy)[t].cast<ffi::Function>()(p).cast<Point>();
  EXPECT_FALSE(copy.same_as(p));
  EXPECT_EQ(copy->x, 5);
  // Both spellings of the keys name the same attributes.
  EXPECT_STREQ(refl::type_attr::kNew.name, ffi::type_attr::kNew.name);
  EXPECT_EQ(ffi::TypeIndex::kTVMFFIFunction, kTVMFFIFunction);
  // __ffi_type_final__ publishes finality.
  refl::TypeAttrColumn final_column(ffi::type_attr::kTypeFinal);
  EXPECT_EQ(ffi::type_attr::kTypeFinal.ValueFrom(final_column[t]), std::optional<bool>(true));
  EXPECT_EQ(final_column[FrozenObj::RuntimeTypeIndex()].cast<bool>(), false);
}

TEST(Reflection, TypeAttrDefAndColumns) {
  int32_t t = PointObj::RuntimeTypeIndex();
  refl::TypeAttrColumn answer("__testing_refl_answer__");
  EXPECT_EQ(answer[t].cast<int64_t>(), 42);
  EXPECT_TRUE(answer[FrozenObj::RuntimeTypeIndex()].is_none());  // Other types: None.
  EXPECT_TRUE(answer[-5].is_none());
  EXPECT_TRUE(answer[1 << 20].is_none());
  refl::TypeAttrColumn twice("__testing_refl_twice__");
  EXPECT_EQ(twice[t].cast<ffi::Function>()(21).cast<int64_t>(), 42);
  // A column made sure of exists, all None.
  EXPECT_TRUE(refl::TypeAttrColumn("__testing_refl_empty__")[t].is_none());
  // Missing column: RuntimeError. Registering an attribute twice: ValueError, value intact.
  EXPECT_EQ(ExpectError([] { refl::TypeAttrColumn("__testing_refl_missing__"); }).kind(),
            "RuntimeError");
  ffi::Error e =
      ExpectError([] { refl::TypeAttrDef<PointObj>().def("__testing_refl_answer__", 1); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(answer[t].cast<int64_t>(), 42);
  // AttrKey checks the value's type where it is read.
  refl::AttrKey<ffi::String> as_string{"__testing_refl_answer__"};
  EXPECT_EQ(ExpectError([&] { as_string.ValueFrom(answer[t]); }).kind(), "TypeError");
  EXPECT_EQ(as_string.ValueFrom(answer[FrozenObj::RuntimeTypeIndex()]), std::nullopt);
  // Strict: an int is not read as a float.
  refl::AttrKey<double> as_double{"__testing_refl_answer__"};
  EXPECT_EQ(ExpectError([&] { as_double.ValueFrom(answer[t]); }).kind(), "TypeError");
  EXPECT_EQ(refl::AttrKey<int64_t>{"__testing_refl_answer__"}.ValueFrom(answer[t]), 42);
}

/*! \brief The `__ffi_convert__` function registered for type `index`. */
ffi::Function ConvertOf(int32_t index) {
  return refl::TypeAttrColumn(ffi::type_attr::kConvert)[index].cast<ffi::Function>();
}

TEST(Reflection, DefConvertConvertsToTheTypeOrSaysWhyNot) {
  ffi::Function convert = ConvertOf(PointObj::RuntimeTypeIndex());
  Point p(3, 1.5);
  EXPECT_TRUE(convert(p).cast<Point>().same_as(p));
  ffi::Error e = ExpectError([&] { convert(7); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot cast from `int` to `testing.refl.Point`");
  e = ExpectError([&] { convert(ffi::Shape({1})); });
  EXPECT_EQ(e.message(), "Cannot cast from `ffi.Shape` to `testing.refl.Point`");
  // A type that registered none has no value in the column.
  EXPECT_TRUE(
      refl::TypeAttrColumn(ffi::type_attr::kConvert)[FrozenObj::RuntimeTypeIndex()].is_none());
}

TEST(Reflection, BuiltinTypesConvertLikeArguments) {
  // A Shape from an Array or a List of integers (a copy), or the Shape itself.
  ffi::Function to_shape = ConvertOf(kTVMFFIShape);
  ffi::Shape s = to_shape(ffi::Array<int64_t>{2, 3}).cast<ffi::Shape>();
  EXPECT_EQ(s, ffi::Shape({2, 3}));
  EXPECT_EQ(to_shape(ffi::List<ffi::Any>{4, true}).cast<ffi::Shape>(), ffi::Shape({4, 1}));
  EXPECT_TRUE(to_shape(s).cast<ffi::Shape>().same_as(s));
  ffi::Error e = ExpectError([&] { to_shape(ffi::Array<ffi::Any>{1, "x"}); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot cast from `ffi.Array` to `ffi.Shape`");
  // The others accept their own type (and what their reference class accepts) only.
  EXPECT_EQ(ConvertOf(kTVMFFIStr)("abcdefghij").cast<ffi::String>(), "abcdefghij");
  EXPECT_EQ(ConvertOf(kTVMFFIArray)(ffi::List<int64_t>{1}).cast<ffi::Array<ffi::Any>>().size(), 1);
  EXPECT_EQ(ExpectError([] { ConvertOf(kTVMFFIMap)(1); }).message(),
            "Cannot cast from `int` to `ffi.Map`");
  Point p(1, 1.0);
  EXPECT_TRUE(ConvertOf(kTVMFFIObject)(p).cast<ffi::ObjectRef>().same_as(p));
  for (int32_t index :
       {kTVMFFIObject, kTVMFFIStr, kTVMFFIBytes, kTVMFFIError, kTVMFFIFunction, kTVMFFIShape,
        kTVMFFITensor, kTVMFFIArray, kTVMFFIMap, kTVMFFIList, kTVMFFIDict}) {
    EXPECT_EQ(refl::TypeAttrColumn(ffi::type_attr::kConvert)[index].type_index(), kTVMFFIFunction)
        << index;
  }
}

TEST(Reflection, TheRootTypeHasItsSizeAsMetadata) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(kTVMFFIObject);
  ASSERT_NE(info->metadata, nullptr);
  EXPECT_EQ(info->metadata->total_size, static_cast<int32_t>(sizeof(TVMFFIObject)));
  EXPECT_EQ(info->metadata->structural_eq_hash_kind, kTVMFFISEqHashKindUnsupported);
}

TEST(Reflection, DuplicateFieldIsRefusedAndLeavesTheTypeIntact) {
  ffi::Error e = ExpectError([] { refl::ObjectDef<PointObj>().def_ro("x", &PointObj::x); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(PointInfo()->num_fields, 3);
  EXPECT_EQ(refl::FieldGetter("testing.refl.Point", "x")(Point(9, 0.0)).cast<int64_t>(), 9);
}

TEST(ReflectionGlobals, MakeObjectFromPackedArgs) {
  ffi::Function make = ffi::Function::GetGlobalRequired("ffi.MakeObjectFromPackedArgs");
  // Named fields set, the others at their defaults.
  Point p = make("testing.refl.Point", "label", "L", "x", 3).cast<Point>();
  EXPECT_EQ(p->x, 3);
  EXPECT_DOUBLE_EQ(p->y, 2.5);
  EXPECT_EQ(p->label.view(), "L");
  EXPECT_EQ(p.use_count(), 1u);
  // A field without a default must be given; unknown names and types, bad values and a
  // dangling name are refused with the reference's kinds and messages.
  ffi::Error missing = ExpectError([&] { make("testing.refl.Point", "label", "L"); });
  EXPECT_EQ(missing.kind(), "TypeError");
  EXPECT_EQ(missing.message(), "Required field `x` not set in type `testing.refl.Point`");
  ffi::Error unknown =
      ExpectError([&] { make("testing.refl.Point", "x", 1, "label", "L", "z", 2); });
  EXPECT_EQ(unknown.kind(), "TypeError");
  EXPECT_EQ(unknown.message(), "Type `testing.refl.Point` does not have field `z`");
  ffi::Error no_type = ExpectError([&] { make("testing.refl.NoSuchType"); });
  EXPECT_EQ(no_type.kind(), "RuntimeError");
  EXPECT_EQ(no_type.message(), "Cannot find type `testing.refl.NoSuchType`");
  EXPECT_EQ(ExpectError([&] { make("testing.refl.Point", "x"); }).kind(), "RuntimeError");
  EXPECT_EQ(ExpectError([&] { make("testing.refl.Point", "x", "one", "label", "L"); }).kind(),
            "TypeError");
  EXPECT_EQ(ExpectError([&] { make("testing.refl.Point", 1, 2); }).kind(), "TypeError");
}

TEST(Reflection, ObjectCreatorFromAMap) {
  refl::ObjectCreator creator("testing.refl.Point");
  using Fields = ffi::Map<ffi::String, ffi::Any>;
  Point p = creator(Fields{{"x", 4}, {"label", "L"}}).cast<Point>();
  EXPECT_EQ(p->x, 4);
  EXPECT_DOUBLE_EQ(p->y, 2.5);
  EXPECT_EQ(p->label.view(), "L");
  EXPECT_EQ(p.use_count(), 1u);
  ffi::Error missing = ExpectError([&] { creator(Fields{{"label", "L"}}); });
  EXPECT_EQ(missing.kind(), "TypeError");
  EXPECT_EQ(missing.message(), "Required field `x` not set in type `testing.refl.Point`");
  ffi::Error unknown = ExpectError([&] { creator(Fields{{"x", 1}, {"label", "L"}, {"w", 0}}); });
  EXPECT_EQ(unknown.kind(), "TypeError");
  EXPECT_EQ(unknown.message(), "Type `testing.refl.Point` does not have field `w`");
  // A type reflection cannot make (no creator, no __ffi_new__).
  EXPECT_FALSE(ffi::HasCreator(TVMFFIGetTypeInfo(KeyedObj::RuntimeTypeIndex())));
  EXPECT_EQ(ExpectError([] { refl::ObjectCreator("testing.refl.Keyed"); }).kind(), "RuntimeError");
}

TEST(ReflectionGlobals, GetRegisteredTypeKeys) {
  FixedObj::_GetOrAllocRuntimeTypeIndex();  // Registered on first use.
  ffi::Function keys = ffi::Function::GetGlobalRequired("ffi.GetRegisteredTypeKeys");
  auto all = keys().cast<ffi::Array<ffi::String>>();
  // In type index order: the root kind before the types registered here, which are all present.
  int64_t object_at = -1, point_at = -1, fixed_at = -1;
  for (int64_t i = 0; i < static_cast<int64_t>(all.size()); ++i) {
    if (all[i] == "ffi.Object") object_at = i;
    if (all[i] == "testing.refl.Point") point_at = i;
    if (all[i] == "testing.refl.Fixed") fixed_at = i;
  }
  EXPECT_GE(object_at, 0);
  EXPECT_GT(fixed_at, object_at);  // index 120
  EXPECT_GT(point_at, fixed_at);   // a dynamic index (>= 128)
}

TEST(TypedFunction, WrapsCallablesAndFunctions) {
  ffi::TypedFunction<int64_t(int64_t)> inc = [](int64_t x) { return x + 1; };
  EXPECT_EQ(inc(1), 2);
  // Travels as a Function, and back.
  ffi::Function packed = inc;
  EXPECT_EQ(packed(41).cast<int64_t>(), 42);
  ffi::Any held = inc;
  EXPECT_EQ(held.type_index(), kTVMFFIFunction);
  auto back = held.cast<ffi::TypedFunction<int64_t(int64_t)>>();
  EXPECT_EQ(back(9), 10);
  // As a parameter of a typed function.
  ffi::Function apply = ffi::Function::FromTyped(
      [](ffi::TypedFunction<int64_t(int64_t)> f, int64_t v) { return f(f(v)); });
  EXPECT_EQ(apply(inc, 1).cast<int64_t>(), 3);
  // A Function whose result does not convert: TypeError at the call.
  ffi::TypedFunction<int64_t()> wrong(ffi::Function::FromTyped([]() { return "text"; }));
  EXPECT_EQ(ExpectError([&] { wrong(); }).kind(), "TypeError");
  ffi::TypedFunction<void(int64_t)> sink = [](int64_t) {};
  sink(1);
  ffi::TypedFunction<int64_t(int64_t)> null_fn;
  EXPECT_TRUE(null_fn == nullptr);
  EXPECT_TRUE(inc != nullptr);
}

}  // namespace
