// JSON text and JSON object graphs through <ffi/extra/json.h> and <ffi/extra/serialization.h>
// (the runtime's ffi.json.* and ffi.*JSONGraph* globals). Expected texts are the reference
// runtime's outputs for the same values.
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/extra/json.h>
#include <ffi/extra/serialization.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/tvm_compat.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "testing.h"

namespace {

namespace refl = ffi::reflection;

// The same fields as the reference's testing.TestObjectDerived: two inline PODs, a string, a map
// and an array.
class GraphNodeObj : public ffi::Object {
 public:
  int64_t v_i64 = 0;
  double v_f64 = 0;
  ffi::String v_str;
  ffi::Map<ffi::Any, ffi::Any> v_map;
  ffi::Array<ffi::Any> v_array;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.json.GraphNode", GraphNodeObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<GraphNodeObj>()
      .def_ro("v_i64", &GraphNodeObj::v_i64)
      .def_ro("v_f64", &GraphNodeObj::v_f64, refl::default_value(0.5))
      .def_ro("v_str", &GraphNodeObj::v_str)
      .def_ro("v_map", &GraphNodeObj::v_map)
      .def_ro("v_array", &GraphNodeObj::v_array);
}

TEST(Json, ParseBuildsMapsArraysAndNumbers) {
  ffi::json::Value v = ffi::json::Parse(R"({"a": [1, 2.5, true, null, "x"], "b": {}})");
  auto obj = v.cast<ffi::json::Object>();
  auto items = obj.Get(ffi::String("a"))->cast<ffi::json::Array>();
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].type_index(), kTVMFFIInt);
  EXPECT_EQ(items[0].cast<int64_t>(), 1);
  EXPECT_EQ(items[1].cast<double>(), 2.5);
  EXPECT_TRUE(items[2].cast<bool>());
  EXPECT_EQ(items[3].type_index(), kTVMFFINone);
  EXPECT_EQ(items[4].cast<ffi::String>(), "x");
  EXPECT_EQ(ffi::json::Parse("9223372036854775808").type_index(), kTVMFFIFloat);
  EXPECT_TRUE(std::isnan(ffi::json::Parse("NaN").cast<double>()));
}

TEST(Json, ParseErrorThrowsOrFillsMessage) {
  ffi::Error e = ffi_testing::ExpectError([] { ffi::json::Parse("[1,]"); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "Expecting value: line 1 column 4 (char 3)");
  ffi::String message;
  ffi::json::Value v = ffi::json::Parse("{\"a\" 1}", &message);
  EXPECT_EQ(v.type_index(), kTVMFFINone);
  EXPECT_EQ(message, "Expecting ':' delimiter: line 1 column 6 (char 5)");
}

TEST(Json, StringifyMatchesReference) {
  ffi::json::Object obj;
  obj.Set(ffi::String("b"), int64_t{1});
  obj.Set(ffi::String("a"), ffi::json::Array{1.0, 0.1, -0.0, 1e16, ffi::String("q\"/")});
  EXPECT_EQ(ffi::json::Stringify(obj),
            R"({"b":1,"a":[1.0,0.10000000000000001,-0.0,10000000000000000,"q\"\/"]})");
  EXPECT_EQ(ffi::json::Stringify(obj, 2),
            "{\n  \"b\": 1,\n  \"a\": [\n    1.0,\n    0.10000000000000001,\n    -0.0,\n"
            "    10000000000000000,\n    \"q\\\"\\/\"\n  ]\n}");
  // The reference's EscapeStringJSON escapes these too.
  EXPECT_EQ(ffi::EscapeStringJSON(ffi::String("/\b\f\x7f")), "\"\\/\\b\\f\\u007f\"");
  ffi::Error e = ffi_testing::ExpectError([] { ffi::json::Stringify(ffi::Shape({1, 2})); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_EQ(e.message(), "Unsupported type: `ffi.Shape`");
}

TEST(Json, GraphOfReflectedObjectMatchesReferenceFormat) {
  auto node = ffi::make_object<GraphNodeObj>();
  node->v_i64 = 1;
  node->v_f64 = 2.0;
  node->v_str = "s";
  node->v_map.Set(ffi::String("a"), int64_t{1});
  node->v_array.push_back(int64_t{1});
  ffi::ObjectRef ref(node);
  ffi::json::Value graph = ffi::ToJSONGraph(ref);
  EXPECT_EQ(ffi::json::Stringify(graph),
            R"({"root_index":5,"nodes":[{"type":"ffi.String","data":"s"},)"
            R"({"type":"ffi.String","data":"a"},{"type":"int","data":1},)"
            R"({"type":"ffi.Map","data":[1,2]},{"type":"ffi.Array","data":[2]},)"
            R"({"type":"testing.json.GraphNode","data":{"v_i64":1,"v_f64":2.0,"v_str":0,)"
            R"("v_map":3,"v_array":4}}]})");
  ffi::Any back = ffi::FromJSONGraph(graph);
  const GraphNodeObj* copy = back.as<const GraphNodeObj*>().value();
  EXPECT_NE(copy, node.get());
  EXPECT_EQ(copy->v_i64, 1);
  EXPECT_EQ(copy->v_f64, 2.0);
  EXPECT_EQ(copy->v_str, "s");
  EXPECT_EQ(copy->v_map.Get(ffi::String("a"))->cast<int64_t>(), 1);
  EXPECT_EQ(copy->v_array.size(), 1u);
  EXPECT_EQ(ffi::json::Stringify(ffi::ToJSONGraph(back)), ffi::json::Stringify(graph));
}

TEST(Json, GraphKeepsSharingAndUsesDefaults) {
  auto node = ffi::make_object<GraphNodeObj>();
  ffi::ObjectRef ref(node);
  ffi::json::Value graph = ffi::ToJSONGraph(ffi::json::Array{ref, ref}, ffi::String("meta"));
  EXPECT_EQ(graph.cast<ffi::json::Object>().Get(ffi::String("metadata"))->cast<ffi::String>(),
            "meta");
  auto pair = ffi::FromJSONGraph(graph).cast<ffi::json::Array>();
  EXPECT_EQ(pair[0].raw()->v_obj, pair[1].raw()->v_obj);
  EXPECT_EQ(ref.use_count(), 2);  // `node` and `ref`: the graph and its copy hold none.

  // A missing field takes its default; a missing required one is a TypeError.
  ffi::Any made = ffi::FromJSONGraph(ffi::json::Parse(
      R"({"root_index":3,"nodes":[{"type":"ffi.String","data":""},{"type":"ffi.Map","data":[]},)"
      R"({"type":"ffi.Array","data":[]},{"type":"testing.json.GraphNode",)"
      R"("data":{"v_i64":7,"v_str":0,"v_map":1,"v_array":2}}]})"));
  EXPECT_EQ(made.as<const GraphNodeObj*>().value()->v_f64, 0.5);
  ffi::Error e = ffi_testing::ExpectError([] {
    ffi::FromJSONGraph(ffi::json::Parse(
        R"({"root_index":0,"nodes":[{"type":"testing.json.GraphNode","data":{"v_i64":7}}]})"));
  });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Required field `v_str` not set in type `testing.json.GraphNode`");
}

TEST(Json, NestingDeeperThanTheStackIsARecursionError) {
  constexpr int kDepth = 100000;
  ffi::Array<ffi::Any> deep;
  for (int i = 0; i < kDepth; ++i) deep = ffi::Array<ffi::Any>{ffi::Any(deep)};
  std::string brackets = std::string(kDepth, '[') + std::string(kDepth, ']');
  std::vector<std::string> kinds;
  ffi_testing::RunOnSmallStack([&] {
    kinds.push_back(ffi_testing::CatchError([&] { ffi::json::Parse(brackets); }).kind());
    kinds.push_back(ffi_testing::CatchError([&] { ffi::json::Stringify(deep); }).kind());
    kinds.push_back(ffi_testing::CatchError([&] { ffi::ToJSONGraph(deep); }).kind());
  });
  EXPECT_EQ(kinds, std::vector<std::string>(3, "RecursionError"));
  EXPECT_EQ(deep.size(), 1u);  // intact
  EXPECT_EQ(ffi::json::Stringify(ffi::json::Parse("[[[1]]]")), "[[[1]]]");
}

}  // namespace
