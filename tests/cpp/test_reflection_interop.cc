// Libraries registering through the reflection API, loaded into our runtime: the same source
// (loader/reflection_lib.cc) built with our headers ("ours") and with the reference's ("ref").
// Both must work through the C ABI records alone, and both must register the same records.
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/extra/visit_error_context.h>
#include <ffi/reflection/access_path.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;
namespace refl = ffi::reflection;

// Objects the headers define are read by code built with either header set, so their layouts are
// the reference's: an Optional of a reference is one pointer there too.
static_assert(sizeof(ffi::Optional<ffi::ObjectRef>) == sizeof(void*));
static_assert(sizeof(refl::AccessPathObj) == 48);
static_assert(sizeof(ffi::VisitErrorContextObj) == 40);

std::string_view View(const TVMFFIByteArray& a) { return std::string_view(a.data, a.size); }

/*! \brief The library of copy `prefix`, loaded once per process (its types register once). */
ffi::Module LoadCopy(const std::string& prefix) {
  static ffi::Module ours = ffi::Module::LoadFromFile(FFI_REFLECTION_LIB_OURS);
  if (prefix == "ours") return ours;
  static ffi::Module ref = ffi::Module::LoadFromFile(FFI_REFLECTION_LIB_REFERENCE);
  return ref;
}

std::vector<std::string> Copies() {
  std::vector<std::string> copies = {"ours"};
  if (std::string(FFI_REFLECTION_LIB_REFERENCE).size() != 0) copies.push_back("ref");
  return copies;
}

const TVMFFITypeInfo* CounterInfo(const std::string& prefix) {
  LoadCopy(prefix);
  std::string key = prefix + ".Counter";
  TVMFFIByteArray k{key.data(), key.size()};
  int32_t index = -1;
  EXPECT_EQ(TVMFFITypeKeyToIndex(&k, &index), 0);
  return TVMFFIGetTypeInfo(index);
}

class ReflectionInterop : public ::testing::TestWithParam<std::string> {};

TEST_P(ReflectionInterop, GlobalFunctionsFieldsMethodsAndConstructor) {
  const std::string p = GetParam();
  const std::string key = p + ".Counter";
  const TVMFFITypeInfo* info = CounterInfo(p);
  ASSERT_NE(info, nullptr);

  ffi::Any c = ffi::Function::GetGlobalRequired(p + ".make_counter")(3, "a");
  ASSERT_EQ(c.type_index(), info->type_index);
  ffi::ObjectRef counter = c.cast<ffi::ObjectRef>();
  EXPECT_EQ(refl::FieldGetter(key, "count")(counter).cast<int64_t>(), 3);
  EXPECT_EQ(refl::FieldGetter(key, "name")(counter).cast<std::string>(), "a");
  EXPECT_DOUBLE_EQ(refl::FieldGetter(key, "scale")(counter).cast<double>(), 1.0);
  refl::FieldSetter(key, "scale")(counter, 2.0);
  EXPECT_DOUBLE_EQ(refl::FieldGetter(key, "scale")(counter).cast<double>(), 2.0);
  EXPECT_EQ(ExpectError([&] { refl::FieldSetter(key, "scale")(counter, "x"); }).kind(),
            "TypeError");

  EXPECT_EQ(refl::GetMethod(key, "add")(counter, 4).cast<int64_t>(), 7);
  EXPECT_EQ(refl::GetMethod(key, "peek")(counter).cast<int64_t>(), 7);
  EXPECT_DOUBLE_EQ(refl::GetMethod(key, "scaled")(counter).cast<double>(), 14.0);
  EXPECT_EQ(ffi::Function::GetGlobalRequired(p + ".counter_peek")(counter).cast<int64_t>(), 7);
  ffi::ObjectRef zero = refl::GetMethod(key, "zero")().cast<ffi::ObjectRef>();
  EXPECT_EQ(refl::FieldGetter(key, "count")(zero).cast<int64_t>(), 0);
  EXPECT_EQ(ffi::Function::GetGlobalRequired(p + ".nargs")(1, 2, 3).cast<int64_t>(), 3);
  EXPECT_EQ(ffi::Function::GetGlobalRequired(p + ".with_meta")(1).cast<int64_t>(), 2);
  // Containers built here pass into either copy.
  ffi::Function containers = ffi::Function::GetGlobalRequired(p + ".containers");
  ffi::Array<int64_t> xs{1, 2, 3};
  ffi::Map<ffi::String, int64_t> extra{{"a", 1}, {"b", 2}};
  EXPECT_EQ(containers(xs, extra, 10).cast<int64_t>(), 18);
  EXPECT_EQ(containers(xs, nullptr, "s").cast<int64_t>(), 6);
  refl::FieldSetter(key, "tags")(counter, ffi::Array<ffi::String>{"x", "y"});
  EXPECT_EQ(refl::FieldGetter(key, "tags")(counter).cast<ffi::Array<ffi::String>>().size(), 2u);

  // The constructor through the type attribute, the empty object through __ffi_new__ with the
  // default set by reflection, and the library's own attribute.
  int32_t t = info->type_index;
  ffi::ObjectRef made =
      refl::TypeAttrColumn("__ffi_init__")[t].cast<ffi::Function>()(5, "b").cast<ffi::ObjectRef>();
  EXPECT_EQ(refl::FieldGetter(key, "count")(made).cast<int64_t>(), 5);
  EXPECT_EQ(made.use_count(), 1u);
  ffi::ObjectRef fresh =
      refl::TypeAttrColumn("__ffi_new__")[t].cast<ffi::Function>()().cast<ffi::ObjectRef>();
  const TVMFFIFieldInfo* scale = refl::GetFieldInfo(key, "scale");
  refl::SetFieldToDefault(
      scale, const_cast<char*>(reinterpret_cast<const char*>(fresh.get())) + scale->offset);
  EXPECT_DOUBLE_EQ(refl::FieldGetter(scale)(fresh).cast<double>(), 1.5);
  // A factory default: each object gets its own value.
  const TVMFFIFieldInfo* tags = refl::GetFieldInfo(key, "tags");
  EXPECT_NE(tags->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory, 0);
  refl::SetFieldToDefault(
      tags, const_cast<char*>(reinterpret_cast<const char*>(fresh.get())) + tags->offset);
  EXPECT_EQ(refl::FieldGetter(tags)(fresh).cast<ffi::Array<ffi::String>>().size(), 0u);
  EXPECT_EQ(refl::TypeAttrColumn("__" + p + "_kind__")[t].cast<int64_t>(), 7);
  EXPECT_EQ(refl::TypeAttrColumn("__ffi_type_final__")[t].cast<bool>(), true);
  EXPECT_FALSE(refl::TypeAttrColumn("__ffi_shallow_copy__")[t].is_none());
}

INSTANTIATE_TEST_SUITE_P(Copies, ReflectionInterop, ::testing::ValuesIn(Copies()),
                         [](const auto& info) { return info.param; });

/*! \brief `text` with the copy's prefix replaced by "P", to compare the two copies' records. */
std::string Neutral(std::string_view text, const std::string& prefix) {
  std::string out(text);
  for (size_t at = out.find(prefix); at != std::string::npos; at = out.find(prefix, at + 1)) {
    out.replace(at, prefix.size(), "P");
  }
  return out;
}

TEST(ReflectionInteropRecords, OursRegisterWhatTheReferenceRegisters) {
  if (Copies().size() < 2) GTEST_SKIP() << "apache-tvm-ffi is not installed";
  const TVMFFITypeInfo* ours = CounterInfo("ours");
  const TVMFFITypeInfo* ref = CounterInfo("ref");
  ASSERT_EQ(ours->num_fields, ref->num_fields);
  for (int32_t i = 0; i < ours->num_fields; ++i) {
    const TVMFFIFieldInfo& a = ours->fields[i];
    const TVMFFIFieldInfo& b = ref->fields[i];
    SCOPED_TRACE(std::string(View(a.name)));
    EXPECT_EQ(View(a.name), View(b.name));
    EXPECT_EQ(View(a.doc), View(b.doc));
    EXPECT_EQ(View(a.metadata), View(b.metadata));
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(a.offset, b.offset);
    // Every field has one layout under both header sets (a String field is a 16-byte cell,
    // recorded as an Any), so readers that copy or release fields by their records agree.
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.alignment, b.alignment);
    EXPECT_EQ(a.field_static_type_index, b.field_static_type_index);
    EXPECT_EQ(a.default_value_or_factory.type_index, b.default_value_or_factory.type_index);
  }
  ASSERT_EQ(ours->num_methods, ref->num_methods);
  for (int32_t i = 0; i < ours->num_methods; ++i) {
    const TVMFFIMethodInfo& a = ours->methods[i];
    const TVMFFIMethodInfo& b = ref->methods[i];
    SCOPED_TRACE(std::string(View(a.name)));
    EXPECT_EQ(View(a.name), View(b.name));
    EXPECT_EQ(View(a.doc), View(b.doc));
    EXPECT_EQ(Neutral(View(a.metadata), "ours"), Neutral(View(b.metadata), "ref"));
    EXPECT_EQ(a.flags, b.flags);
  }
  ASSERT_TRUE(ours->metadata && ref->metadata);
  EXPECT_GT(ours->metadata->total_size, 0);  // Differs by the String's size (see above).
  EXPECT_EQ(ours->metadata->structural_eq_hash_kind, ref->metadata->structural_eq_hash_kind);
  EXPECT_EQ(ours->metadata->creator != nullptr, ref->metadata->creator != nullptr);
  // The same standard attributes.
  for (const char* attr :
       {"__ffi_new__", "__ffi_init__", "__ffi_shallow_copy__", "__ffi_type_final__"}) {
    refl::TypeAttrColumn column(attr);
    EXPECT_EQ(column[ours->type_index].type_index(), column[ref->type_index].type_index()) << attr;
  }
  // Global functions: the same metadata JSON.
  ffi::Function metadata = ffi::Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  for (const char* name :
       {".make_counter", ".counter_peek", ".nargs", ".with_meta", ".containers"}) {
    EXPECT_EQ(Neutral(metadata(std::string("ours") + name).cast<std::string>(), "ours"),
              Neutral(metadata(std::string("ref") + name).cast<std::string>(), "ref"))
        << name;
  }
}

}  // namespace
