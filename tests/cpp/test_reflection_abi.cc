// The reflection entry points of the C ABI: fields, methods, metadata and attributes of a type,
// global functions registered from a method info, and a library built with the reference's headers
// that registers through them.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "testing.h"

namespace {

using namespace ffi_testing;

// The records' layout is the reference's (x86-64 / aarch64 LP64): libraries built with its
// headers write and read them.
static_assert(sizeof(TVMFFIFieldInfo) == 120, "TVMFFIFieldInfo layout");
static_assert(offsetof(TVMFFIFieldInfo, flags) == 48, "TVMFFIFieldInfo::flags");
static_assert(offsetof(TVMFFIFieldInfo, getter) == 80, "TVMFFIFieldInfo::getter");
static_assert(offsetof(TVMFFIFieldInfo, default_value_or_factory) == 96, "default value");
static_assert(offsetof(TVMFFIFieldInfo, field_static_type_index) == 112, "static type index");
static_assert(sizeof(TVMFFIMethodInfo) == 72, "TVMFFIMethodInfo layout");
static_assert(offsetof(TVMFFIMethodInfo, method) == 56, "TVMFFIMethodInfo::method");
static_assert(sizeof(TVMFFITypeMetadata) == 32, "TVMFFITypeMetadata layout");
static_assert(offsetof(TVMFFITypeMetadata, structural_eq_hash_kind) == 28, "eq/hash kind");
static_assert(sizeof(TVMFFITypeAttrColumn) == 16, "TVMFFITypeAttrColumn layout");
static_assert(offsetof(TVMFFITypeAttrColumn, begin_index) == 12, "begin_index");
static_assert(offsetof(TVMFFITypeInfo, fields) == 48, "TVMFFITypeInfo::fields");
static_assert(offsetof(TVMFFITypeInfo, metadata) == 64, "TVMFFITypeInfo::metadata");
static_assert(kTVMFFIFieldFlagBitMaskSEqHashDefSimple == 1 << 12, "flag bits");
static_assert(kTVMFFISEqHashKindUniqueInstance == 5, "eq/hash kinds");

std::string_view View(const TVMFFIByteArray& a) { return std::string_view(a.data, a.size); }

/*! \brief A fresh type (a new key per call) derived from ffi.Object. */
int32_t NewType(const std::string& key) {
  TVMFFIByteArray k = Bytes(key);
  int32_t index = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, kTVMFFIObject);
  EXPECT_GE(index, kTVMFFIDynObjectBegin);
  return index;
}

/*! \brief A field getter reading an int64_t. */
int GetInt64(void* field, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->v_int64 = *static_cast<int64_t*>(field);
  return 0;
}

/*! \brief A field info for an int64_t at `offset`, with the given name and doc. */
TVMFFIFieldInfo Int64Field(const char* name, const char* doc, int64_t offset, int64_t flags) {
  TVMFFIFieldInfo f{};
  f.name = Bytes(name);
  f.doc = Bytes(doc);
  f.flags = flags;
  f.size = sizeof(int64_t);
  f.alignment = alignof(int64_t);
  f.offset = offset;
  f.getter = GetInt64;
  f.field_static_type_index = kTVMFFIInt;
  return f;
}

/*! \brief A C callback: returns 10 * its number of arguments. */
int CountArgs(void*, const TVMFFIAny*, int32_t num_args, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->v_int64 = 10 * num_args;
  return 0;
}

/*! \brief A new Function object (owned by the caller) around CountArgs. */
TVMFFIObjectHandle NewFunction() {
  TVMFFIObjectHandle f = nullptr;
  EXPECT_EQ(TVMFFIFunctionCreate(nullptr, CountArgs, nullptr, &f), 0);
  return f;
}

TVMFFIAny FunctionView(TVMFFIObjectHandle f) {
  TVMFFIAny any{};
  any.type_index = kTVMFFIFunction;
  any.v_obj = static_cast<TVMFFIObject*>(f);
  return any;
}

TEST(ReflectionAbi, FieldsAreCopiedAndExposedThroughTypeInfo) {
  int32_t t = NewType("testing.refl_abi.Fields");
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->num_fields, 0);
  // The caller's strings may die after registration: the runtime keeps copies.
  std::string name = "a";
  std::string doc = "first field";
  TVMFFIFieldInfo a = Int64Field(name.c_str(), doc.c_str(), 16, 0);
  ASSERT_EQ(TVMFFITypeRegisterField(t, &a), 0);
  name = "z";
  doc = "overwritten";
  TVMFFIFieldInfo b = Int64Field("b", "", 24, kTVMFFIFieldFlagBitMaskWritable);
  ASSERT_EQ(TVMFFITypeRegisterField(t, &b), 0);

  ASSERT_EQ(TVMFFIGetTypeInfo(t), info);  // The record itself stays where it is.
  ASSERT_EQ(info->num_fields, 2);
  EXPECT_EQ(View(info->fields[0].name), "a");
  EXPECT_EQ(View(info->fields[0].doc), "first field");
  EXPECT_EQ(info->fields[0].offset, 16);
  EXPECT_EQ(View(info->fields[1].name), "b");
  EXPECT_EQ(info->fields[1].flags, kTVMFFIFieldFlagBitMaskWritable);
  EXPECT_EQ(info->fields[1].field_static_type_index, kTVMFFIInt);

  int64_t value = 42;
  TVMFFIAny got{};
  ASSERT_EQ(info->fields[0].getter(&value, &got), 0);
  EXPECT_EQ(got.v_int64, 42);
}

TEST(ReflectionAbi, ManyFieldsKeepEarlierPointersValid) {
  int32_t t = NewType("testing.refl_abi.Many");
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) names.push_back("f" + std::to_string(i));
  TVMFFIFieldInfo first = Int64Field(names[0].c_str(), "", 0, 0);
  ASSERT_EQ(TVMFFITypeRegisterField(t, &first), 0);
  const TVMFFIFieldInfo* early = TVMFFIGetTypeInfo(t)->fields;
  for (int i = 1; i < 40; ++i) {
    TVMFFIFieldInfo f = Int64Field(names[i].c_str(), "", 8 * i, 0);
    ASSERT_EQ(TVMFFITypeRegisterField(t, &f), 0);
  }
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  ASSERT_EQ(info->num_fields, 40);
  EXPECT_EQ(View(info->fields[39].name), "f39");
  EXPECT_EQ(info->fields[39].offset, 8 * 39);
  EXPECT_EQ(View(early[0].name), "f0");  // A reader's old array is still readable.
}

TEST(ReflectionAbi, BadFieldRegistrationsRaiseAndChangeNothing) {
  int32_t t = NewType("testing.refl_abi.BadFields");
  TVMFFIFieldInfo a = Int64Field("a", "", 16, 0);
  ASSERT_EQ(TVMFFITypeRegisterField(t, &a), 0);
  TVMFFIFieldInfo again = Int64Field("a", "again", 24, 0);
  EXPECT_EQ(TVMFFITypeRegisterField(t, &again), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFIGetTypeInfo(t)->num_fields, 1);
  EXPECT_EQ(View(TVMFFIGetTypeInfo(t)->fields[0].doc), "");

  EXPECT_EQ(TVMFFITypeRegisterField(t, nullptr), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIFieldInfo unnamed = Int64Field("", "", 0, 0);
  EXPECT_EQ(TVMFFITypeRegisterField(t, &unnamed), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFITypeRegisterField(9999, &a), -1);
  EXPECT_EQ(RaisedKindAndClear(), "KeyError");
  EXPECT_EQ(TVMFFIGetTypeInfo(t)->num_fields, 1);
}

TEST(ReflectionAbi, FieldDefaultsAreOwned) {
  int32_t t = NewType("testing.refl_abi.Defaults");
  TVMFFIFieldInfo f = Int64Field("s", "", 16, kTVMFFIFieldFlagBitMaskHasDefault);
  // A borrowed C string as the default: the runtime must turn it into an owned String.
  std::string text = "a default long enough not to be a small string";
  f.default_value_or_factory.type_index = kTVMFFIRawStr;
  f.default_value_or_factory.v_c_str = text.c_str();
  ASSERT_EQ(TVMFFITypeRegisterField(t, &f), 0);
  text.assign(text.size(), 'x');
  const TVMFFIAny& stored = TVMFFIGetTypeInfo(t)->fields[0].default_value_or_factory;
  ffi::AnyView view = ffi::AnyView::FromRaw(stored);
  EXPECT_EQ(view.cast<std::string>(), "a default long enough not to be a small string");
}

TEST(ReflectionAbi, MethodsAreCallableThroughTypeInfo) {
  int32_t t = NewType("testing.refl_abi.Methods");
  TVMFFIObjectHandle f = NewFunction();
  TVMFFIMethodInfo m{};
  m.name = Bytes("count");
  m.doc = Bytes("counts its arguments");
  m.metadata = Bytes("{\"k\": 1}");
  m.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  m.method = FunctionView(f);
  ASSERT_EQ(TVMFFITypeRegisterMethod(t, &m), 0);
  TVMFFIObjectDecRef(f);  // The type holds its own reference.

  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  ASSERT_EQ(info->num_methods, 1);
  EXPECT_EQ(View(info->methods[0].name), "count");
  EXPECT_EQ(View(info->methods[0].doc), "counts its arguments");
  EXPECT_EQ(View(info->methods[0].metadata), "{\"k\": 1}");
  EXPECT_EQ(info->methods[0].flags, kTVMFFIFieldFlagBitMaskIsStaticMethod);
  ASSERT_EQ(info->methods[0].method.type_index, kTVMFFIFunction);
  TVMFFIAny args[2] = {};
  TVMFFIAny result{};
  ASSERT_EQ(TVMFFIFunctionCall(info->methods[0].method.v_obj, args, 2, &result), 0);
  EXPECT_EQ(result.v_int64, 20);

  // The name is taken by another function.
  TVMFFIObjectHandle g = NewFunction();
  TVMFFIMethodInfo other = m;
  other.method = FunctionView(g);
  EXPECT_EQ(TVMFFITypeRegisterMethod(t, &other), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  TVMFFIObjectDecRef(g);
  TVMFFIMethodInfo not_function = m;
  not_function.name = Bytes("other");
  not_function.method = TVMFFIAny{};
  not_function.method.type_index = kTVMFFIInt;
  EXPECT_EQ(TVMFFITypeRegisterMethod(t, &not_function), -1);
  EXPECT_EQ(RaisedKindAndClear(), "TypeError");
  EXPECT_EQ(TVMFFITypeRegisterMethod(t, nullptr), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFIGetTypeInfo(t)->num_methods, 1);

  // The same function again is another signature of one overloaded method: a second record,
  // after the first, which a lookup by name still finds.
  TVMFFIMethodInfo signature = m;
  signature.metadata = Bytes("{\"k\": 2}");
  ASSERT_EQ(TVMFFITypeRegisterMethod(t, &signature), 0);
  info = TVMFFIGetTypeInfo(t);
  ASSERT_EQ(info->num_methods, 2);
  EXPECT_EQ(View(info->methods[0].metadata), "{\"k\": 1}");
  EXPECT_EQ(View(info->methods[1].name), "count");
  EXPECT_EQ(View(info->methods[1].metadata), "{\"k\": 2}");
  EXPECT_EQ(info->methods[1].method.v_obj, info->methods[0].method.v_obj);
}

TEST(ReflectionAbi, MetadataIsCopiedAndReplaceable) {
  int32_t t = NewType("testing.refl_abi.Metadata");
  EXPECT_EQ(TVMFFIGetTypeInfo(t)->metadata, nullptr);
  std::string doc = "a type";
  TVMFFITypeMetadata md{};
  md.doc = Bytes(doc);
  md.total_size = 32;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  ASSERT_EQ(TVMFFITypeRegisterMetadata(t, &md), 0);
  doc = "changed";
  const TVMFFITypeMetadata* got = TVMFFIGetTypeInfo(t)->metadata;
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(View(got->doc), "a type");
  EXPECT_EQ(got->total_size, 32);
  EXPECT_EQ(got->structural_eq_hash_kind, kTVMFFISEqHashKindTreeNode);
  md.total_size = 48;
  ASSERT_EQ(TVMFFITypeRegisterMetadata(t, &md), 0);
  EXPECT_EQ(TVMFFIGetTypeInfo(t)->metadata->total_size, 48);

  EXPECT_EQ(TVMFFITypeRegisterMetadata(t, nullptr), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFITypeRegisterMetadata(-5, &md), -1);
  EXPECT_EQ(RaisedKindAndClear(), "KeyError");
}

TEST(ReflectionAbi, AttributeColumnsSpanTypeIndices) {
  TVMFFIByteArray name = Bytes("testing.refl_abi.attr");
  EXPECT_EQ(TVMFFIGetTypeAttrColumn(&name), nullptr);
  TVMFFIAny none{};
  // kTVMFFINone only makes sure the column exists.
  ASSERT_EQ(TVMFFITypeRegisterAttr(kTVMFFINone, &name, &none), 0);
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
  ASSERT_NE(column, nullptr);
  EXPECT_EQ(column->size, 0);

  int32_t t = NewType("testing.refl_abi.Attr");
  TVMFFIAny seven{};
  seven.type_index = kTVMFFIInt;
  seven.v_int64 = 7;
  ASSERT_EQ(TVMFFITypeRegisterAttr(t, &name, &seven), 0);
  ASSERT_EQ(TVMFFIGetTypeAttrColumn(&name), column);  // Stable.
  ASSERT_GT(column->size + column->begin_index, t);
  EXPECT_EQ(column->data[t - column->begin_index].type_index, kTVMFFIInt);
  EXPECT_EQ(column->data[t - column->begin_index].v_int64, 7);
  EXPECT_EQ(column->data[kTVMFFIStr - column->begin_index].type_index, kTVMFFINone);

  // A string value is owned by the column.
  TVMFFIByteArray other = Bytes("testing.refl_abi.attr_str");
  std::string text = "an attribute value that is not a small string";
  TVMFFIAny str{};
  str.type_index = kTVMFFIRawStr;
  str.v_c_str = text.c_str();
  ASSERT_EQ(TVMFFITypeRegisterAttr(kTVMFFIStr, &other, &str), 0);
  text.assign(text.size(), 'x');
  const TVMFFITypeAttrColumn* other_column = TVMFFIGetTypeAttrColumn(&other);
  ASSERT_NE(other_column, nullptr);
  ffi::AnyView v = ffi::AnyView::FromRaw(other_column->data[kTVMFFIStr]);
  EXPECT_EQ(v.cast<std::string>(), "an attribute value that is not a small string");

  EXPECT_EQ(TVMFFITypeRegisterAttr(t, &name, &seven), -1);  // Already set for this type.
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFITypeRegisterAttr(9999, &name, &seven), -1);
  EXPECT_EQ(RaisedKindAndClear(), "KeyError");
  EXPECT_EQ(TVMFFITypeRegisterAttr(t, nullptr, &seven), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFITypeRegisterAttr(t, &name, nullptr), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");
  EXPECT_EQ(TVMFFIGetTypeAttrColumn(nullptr), nullptr);
}

TEST(ReflectionAbi, GlobalFromMethodInfoKeepsMetadata) {
  TVMFFIObjectHandle f = NewFunction();
  TVMFFIMethodInfo m{};
  m.name = Bytes("testing.refl_abi.global");
  m.doc = Bytes("a documented global");
  m.metadata = Bytes("{\"arity\": 2}");
  m.method = FunctionView(f);
  ASSERT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(&m, 0), 0);

  ffi::Function g = ffi::Function::GetGlobalRequired("testing.refl_abi.global");
  EXPECT_EQ(g(1, 2, 3).cast<int64_t>(), 30);
  ffi::Function metadata = ffi::Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  EXPECT_EQ(metadata("testing.refl_abi.global").cast<std::string>(), "{\"arity\": 2}");
  EXPECT_EQ(ExpectError([&] { metadata("testing.refl_abi.absent"); }).kind(), "KeyError");

  EXPECT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(&m, 0), -1);  // Taken, no override.
  EXPECT_EQ(RaisedKindAndClear(), "RuntimeError");
  m.metadata = Bytes("");
  ASSERT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(&m, 1), 0);
  EXPECT_EQ(metadata("testing.refl_abi.global").cast<std::string>(), "");

  TVMFFIMethodInfo bad = m;
  bad.name = Bytes("testing.refl_abi.not_a_function");
  bad.method = TVMFFIAny{};
  EXPECT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(&bad, 0), -1);
  EXPECT_EQ(RaisedKindAndClear(), "TypeError");
  EXPECT_FALSE(ffi::Function::GetGlobal("testing.refl_abi.not_a_function").has_value());
  EXPECT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(nullptr, 0), -1);
  EXPECT_EQ(RaisedKindAndClear(), "ValueError");

  TVMFFIObjectDecRef(f);
  EXPECT_TRUE(ffi::Function::RemoveGlobal("testing.refl_abi.global"));
}

/*! \brief The field of `type_info` named `name`, or NULL. */
const TVMFFIFieldInfo* FindField(const TVMFFITypeInfo* type_info, std::string_view name) {
  for (int32_t i = 0; i < type_info->num_fields; ++i) {
    if (View(type_info->fields[i].name) == name) return &type_info->fields[i];
  }
  return nullptr;
}

TEST(ReflectionAbi, ReferenceBuiltLibraryRegistersGlobalsAndTypes) {
  std::string path = FFI_REFLECTION_REFERENCE;
  if (path.empty()) GTEST_SKIP() << "apache-tvm-ffi is not installed";
  // Kept loaded for the process: its functions and getters are code of the library.
  static ffi::Module lib = ffi::Module::LoadFromFile(path);

  ffi::Function add = ffi::Function::GetGlobalRequired("testing.ref_add");
  EXPECT_EQ(add(40, 2).cast<int64_t>(), 42);

  TVMFFIByteArray key = Bytes("testing.reflection.RefPoint");
  int32_t t = -1;
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &t), 0);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  ASSERT_NE(info, nullptr);
  const TVMFFIFieldInfo* x = FindField(info, "x");
  const TVMFFIFieldInfo* y = FindField(info, "y");
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(View(x->doc), "The integer coordinate.");
  EXPECT_EQ(x->flags & kTVMFFIFieldFlagBitMaskWritable, 0);
  EXPECT_NE(y->flags & kTVMFFIFieldFlagBitMaskWritable, 0);
  EXPECT_EQ(x->size, 8);
  ASSERT_NE(info->metadata, nullptr);
  EXPECT_GT(info->metadata->total_size, 0);

  // Read an object's fields the way a reflection host does: getter at header + offset.
  ffi::Any point = ffi::Function::GetGlobalRequired("testing.ref_make_point")(3, 0.5);
  ASSERT_EQ(point.type_index(), t);
  char* header = reinterpret_cast<char*>(point.raw()->v_obj);
  TVMFFIAny got{};
  ASSERT_EQ(x->getter(header + x->offset, &got), 0);
  EXPECT_EQ(got.type_index, kTVMFFIInt);
  EXPECT_EQ(got.v_int64, 3);

  const TVMFFIMethodInfo* norm = nullptr;
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (View(info->methods[i].name) == "norm1") norm = &info->methods[i];
  }
  ASSERT_NE(norm, nullptr);
  ffi::Function norm_fn = ffi::AnyView::FromRaw(norm->method).cast<ffi::Function>();
  EXPECT_DOUBLE_EQ(norm_fn(point).cast<double>(), 3.5);
}

TEST(ReflectionAbi, FailedRegistrationDuringLoadIsReportedByTheLoader) {
  std::string path = FFI_REFLECTION_REFERENCE;
  if (path.empty()) GTEST_SKIP() << "apache-tvm-ffi is not installed";
  static ffi::Module lib = ffi::Module::LoadFromFile(path);
  // A second copy runs the same static initializers again: its global function and fields are
  // already registered, which the reference's headers would turn into a terminating exception.
  std::filesystem::path copy =
      std::filesystem::temp_directory_path() /
      ("reflection_reference_copy_" +
       std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".so");
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  ffi::Error e = ExpectError([&] { ffi::Module::LoadFromFile(copy.string()); });
  // Windows keeps a loaded DLL's file from being removed: there the copy stays in the temp dir.
  std::error_code not_removed;
  std::filesystem::remove(copy, not_removed);
  // The loader names the library and carries the first registration's error.
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_NE(
      e.message().find("RuntimeError: Global function `testing.ref_add` is already registered"),
      std::string::npos)
      << e.message();

  // What the first copy registered is intact, fields not doubled.
  EXPECT_EQ(ffi::Function::GetGlobalRequired("testing.ref_add")(1, 2).cast<int64_t>(), 3);
  TVMFFIByteArray key = Bytes("testing.reflection.RefPoint");
  int32_t t = -1;
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &t), 0);
  EXPECT_EQ(TVMFFIGetTypeInfo(t)->num_fields, 2);
}

}  // namespace
