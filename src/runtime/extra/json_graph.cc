// The standard global functions ffi.ToJSONGraph, ffi.ToJSONGraphString, ffi.FromJSONGraph and
// ffi.FromJSONGraphString: a value and everything it reaches as a JSON object graph, in the
// reference runtime's format so that graphs written by either read in both:
//
//   {"root_index": R, "nodes": [{"type": KEY, "data": DATA}, ...], "metadata": ...}
//
// Nodes come children first; equal numbers and strings, and the same object, share one node.
// DATA is the value itself for bool/int/float/str, base64 for bytes, the dtype string, [type, id]
// for a device, the dims of a shape, node indices for arrays and [k, v, ...] node indices for
// maps and dicts. A reflected object's DATA maps field names to values: int, bool and float fields
// inline, others as node indices; a type can take over with `__data_to_json__` and
// `__data_from_json__`. Reading builds only the nodes the root reaches.
#include <ffi/any.h>
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/dtype.h>
#include <ffi/enum.h>
#include <ffi/extra/base64.h>
#include <ffi/extra/json.h>
#include <ffi/extra/serialization.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/creator.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stack_guard.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The bytes of a "ffi.Bytes" node's base64 text; a malformed text is a RuntimeError. */
Bytes BytesFromBase64(const String& text) {
  try {
    return Base64Decode(text);
  } catch (const Error& err) {
    FFI_THROW(RuntimeError) << "Invalid JSON Object Graph: " << err.message();
  }
}

/*! \brief The type's value in the attribute column `name`, or None (also when no such column). */
AnyView TypeAttrOf(const char* name, int32_t type_index) {
  TVMFFIByteArray key{name, std::strlen(name)};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&key);
  if (column == nullptr) return AnyView();
  int32_t offset = type_index - column->begin_index;
  if (offset < 0 || offset >= column->size) return AnyView();
  return AnyView::FromRaw(column->data[offset]);
}

bool IsInlineField(const TVMFFIFieldInfo* field) {
  int32_t t = field->field_static_type_index;
  return t == kTVMFFIInt || t == kTVMFFIBool || t == kTVMFFIFloat;
}

std::string TypeKeyOf(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return info == nullptr ? detail::TypeIndexToName(type_index)
                         : std::string(detail::ByteView(info->type_key));
}

/*! \brief Writes the nodes of a graph, one per distinct value. */
class GraphWriter {
 public:
  json::Value Write(const AnyView& value, const Any& metadata) {
    int64_t root = NodeOf(value);
    json::Object graph;
    graph.Set(String("root_index"), root);
    graph.Set(String("nodes"), nodes_);
    if (metadata != nullptr) graph.Set(String("metadata"), metadata);
    return graph;
  }

 private:
  // Numbers are shared by value, strings and bytes by content, objects by identity.
  static std::string KeyOf(const AnyView& v) {
    int32_t t = v.type_index();
    switch (t) {
      case kTVMFFIRawStr:
      case kTVMFFISmallStr:
      case kTVMFFIStr:  // A small string and a string object with the same text are one node.
        return "s" + std::string(v.cast<String>().view());
      case kTVMFFIByteArrayPtr:
      case kTVMFFISmallBytes:
      case kTVMFFIBytes:
        return "b" + std::string(v.cast<Bytes>().view());
      default:
        break;
    }
    std::string key = "v" + std::string(reinterpret_cast<const char*>(&t), sizeof(t));
    const TVMFFIAny* raw = v.raw();
    if (t == kTVMFFIDataType) return key + DLDataTypeToString(raw->v_dtype);
    if (t == kTVMFFIDevice) {
      return key + std::to_string(raw->v_device.device_type) + ":" +
             std::to_string(raw->v_device.device_id);
    }
    int64_t bits = t == kTVMFFINone ? 0 : raw->v_int64;
    if (t == kTVMFFIBool) bits = raw->v_int64 != 0;
    return key + std::string(reinterpret_cast<const char*>(&bits), sizeof(bits));
  }

  int64_t NodeOf(const AnyView& v) {
    std::string key = KeyOf(v);
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    // A node refers only to nodes written before it, so a value reaching itself has no graph:
    // refuse it rather than recurse until the stack runs out. So is a chain deeper than the
    // stack can follow (CheckStackDepth).
    if (!open_.insert(key).second) {
      FFI_THROW(ValueError) << "ToJSONGraph: the value contains a cycle (a `"
                            << TypeKeyOf(v.type_index()) << "` reaches itself)";
    }
    CheckStackDepth("ToJSONGraph");
    struct Close {
      std::unordered_set<std::string>* open;
      const std::string* key;
      ~Close() { open->erase(*key); }
    } close{&open_, &key};
    json::Object node = MakeNode(v);
    int64_t index = static_cast<int64_t>(nodes_.size());
    nodes_.push_back(node);
    index_.emplace(key, index);
    return index;
  }

  json::Array Indices(const Array<Any>& items) {
    json::Array out;
    for (const Any& item : items) out.push_back(NodeOf(item));
    return out;
  }

  template <typename MapLike>
  json::Array KeyValueIndices(const MapLike& entries) {
    json::Array out;
    for (const auto& kv : entries) {
      out.push_back(NodeOf(kv.first));
      out.push_back(NodeOf(kv.second));
    }
    return out;
  }

  json::Object MakeNode(const AnyView& v) {
    int32_t t = v.type_index();
    json::Object node;
    auto set = [&](const char* type, json::Value data) {
      node.Set(String("type"), String(type));
      node.Set(String("data"), std::move(data));
      return node;
    };
    switch (t) {
      case kTVMFFINone:
        node.Set(String("type"), String("None"));
        return node;
      case kTVMFFIBool:
        return set("bool", v.cast<bool>());
      case kTVMFFIInt:
        return set("int", v.cast<int64_t>());
      case kTVMFFIBigInt:  // decimal digits: JSON numbers lose precision past 2^53 in most readers
        return set("ffi.BigInt", String(v.cast<BigInt>().ToString()));
      case kTVMFFIFloat:
        return set("float", v.cast<double>());
      case kTVMFFIDataType:
        return set("DataType", String(DLDataTypeToString(v.raw()->v_dtype)));
      case kTVMFFIDevice: {
        DLDevice d = v.raw()->v_device;
        return set("Device", json::Array{static_cast<int64_t>(d.device_type),
                                         static_cast<int64_t>(d.device_id)});
      }
      case kTVMFFIRawStr:
      case kTVMFFISmallStr:
      case kTVMFFIStr:
        return set("ffi.String", v.cast<String>());
      case kTVMFFIByteArrayPtr:
      case kTVMFFISmallBytes:
      case kTVMFFIBytes:
        return set("ffi.Bytes", Base64Encode(v.cast<Bytes>()));
      case kTVMFFIShape: {
        json::Array dims;
        for (int64_t d : v.cast<Shape>()) dims.push_back(d);
        return set("ffi.Shape", dims);
      }
      case kTVMFFIArray:
        return set("ffi.Array", Indices(v.cast<Array<Any>>()));
      case kTVMFFIList: {
        List<Any> list = v.cast<List<Any>>();
        return set("ffi.List", Indices(Array<Any>(list.begin(), list.end())));
      }
      case kTVMFFIMap:
        return set("ffi.Map", KeyValueIndices(v.cast<Map<Any, Any>>()));
      case kTVMFFIDict:
        return set("ffi.Dict", KeyValueIndices(v.cast<Dict<Any, Any>>()));
      default:
        break;
    }
    std::string type_key = TypeKeyOf(t);
    if (t >= kTVMFFIStaticObjectBegin) {
      AnyView to_json = TypeAttrOf(type_attr::kDataToJson.name, t);
      if (to_json != nullptr) return set(type_key.c_str(), to_json.cast<Function>()(v));
      // Enum singletons travel as their index: the integer one for integer enums, else the name.
      const Object* obj = reinterpret_cast<const Object*>(v.raw()->v_obj);
      if (obj->IsInstance<EnumObj>()) {
        const auto* member = static_cast<const EnumObj*>(obj);
        return set(type_key.c_str(), obj->IsInstance<IntEnumObj>() ? Any(member->_int_index)
                                                                   : member->_str_index.as_any());
      }
      const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
      if (HasCreator(info)) return set(type_key.c_str(), Fields(info, v));
    }
    FFI_THROW(TypeError) << "Type `" << type_key << "` does not support ToJSONGraph"
                         << " (no native creator or __ffi_new__ type attr)";
  }

  json::Object Fields(const TVMFFITypeInfo* info, const AnyView& v) {
    const Object* obj = reinterpret_cast<const Object*>(v.raw()->v_obj);
    json::Object data;
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      Any value = reflection::FieldGetter(field)(obj);
      String name(detail::ByteView(field->name));
      if (IsInlineField(field)) {
        data.Set(name, value);
      } else if (field->field_static_type_index == kTVMFFIDataType) {
        // A dtype field is written in place as its text, as the reference writes it.
        data.Set(name, String(DLDataTypeToString(value.raw()->v_dtype)));
      } else {
        data.Set(name, NodeOf(value));
      }
    });
    return data;
  }

  json::Array nodes_;
  std::unordered_map<std::string, int64_t> index_;
  std::unordered_set<std::string> open_;  // the values being written (their keys)
};

/*! \brief Reads the nodes of a graph that its root reaches, each once. */
class GraphReader {
 public:
  explicit GraphReader(const json::Array& nodes) : nodes_(nodes), made_(nodes.size()) {}

  Any Read(int64_t index) {
    if (index < 0 || index >= static_cast<int64_t>(nodes_.size())) {
      FFI_THROW(ValueError) << "Invalid JSON Object Graph: invalid node index " << index;
    }
    std::optional<Any>& slot = made_[index];
    if (slot.has_value()) {
      if (slot->type_index() == kTVMFFIOpaquePtr && slot->raw()->v_ptr == &made_) {
        FFI_THROW(ValueError) << "Invalid JSON Object Graph: node " << index
                              << " refers back to itself";
      }
      return *slot;
    }
    CheckStackDepth("FromJSONGraph");
    slot = Any(static_cast<void*>(&made_));  // In progress: a cycle is refused, not followed.
    Any value = Make(index);
    made_[index] = value;
    return value;
  }

 private:
  static Any Field(const json::Object& node, const char* name, int64_t index) {
    std::optional<Any> v = node.Get(String(name));
    if (!v.has_value()) {
      FFI_THROW(KeyError) << "Invalid JSON Object Graph: node " << index << " has no `" << name
                          << "`";
    }
    return *v;
  }

  Array<Any> ReadAll(const json::Array& indices) {
    Array<Any> out;
    for (const Any& i : indices) out.push_back(Read(i.cast<int64_t>()));
    return out;
  }

  template <typename MapLike>
  MapLike ReadEntries(const json::Array& indices) {
    if (indices.size() % 2 != 0) {
      FFI_THROW(ValueError) << "Invalid JSON Object Graph: Map/Dict data must contain an even "
                            << "number of [key, value] entries, got " << indices.size();
    }
    MapLike out;
    for (size_t i = 0; i < indices.size(); i += 2) {
      Any key = Read(indices[i].cast<int64_t>());
      out.Set(key, Read(indices[i + 1].cast<int64_t>()));
    }
    return out;
  }

  Any Make(int64_t index) {
    json::Object node = nodes_[index].cast<json::Object>();
    String type = Field(node, "type", index).cast<String>();
    std::string_view key = type.view();
    if (key == "None") return Any();
    Any data = Field(node, "data", index);
    if (key == "bool") return data.cast<bool>();
    if (key == "int") return data.cast<int64_t>();
    if (key == "ffi.BigInt") {
      std::istringstream digits(std::string(data.cast<String>().view()));
      BigInt value;
      if (!(digits >> value) || digits.peek() != std::char_traits<char>::eof()) {
        FFI_THROW(ValueError) << "Invalid JSON Object Graph: node " << index
                              << " is not a decimal integer";
      }
      return value;
    }
    if (key == "float") return data.cast<double>();
    if (key == "ffi.String") return data.cast<String>();
    if (key == "ffi.Bytes") return BytesFromBase64(data.cast<String>());
    if (key == "DataType") return DLDataTypeFromString(data.cast<String>().view());
    if (key == "Device") {
      json::Array d = data.cast<json::Array>();
      if (d.size() != 2) FFI_THROW(ValueError) << "Invalid JSON Object Graph: bad Device data";
      return DLDevice{static_cast<DLDeviceType>(d[0].cast<int32_t>()), d[1].cast<int32_t>()};
    }
    if (key == "ffi.Shape") {
      std::vector<int64_t> dims;
      for (const Any& d : data.cast<json::Array>()) dims.push_back(d.cast<int64_t>());
      return Shape(dims.begin(), dims.end());
    }
    if (key == "ffi.Array") return ReadAll(data.cast<json::Array>());
    if (key == "ffi.List") {
      Array<Any> items = ReadAll(data.cast<json::Array>());
      return List<Any>(items.begin(), items.end());
    }
    if (key == "ffi.Map") return ReadEntries<Map<Any, Any>>(data.cast<json::Array>());
    if (key == "ffi.Dict") return ReadEntries<Dict<Any, Any>>(data.cast<json::Array>());
    return MakeObject(key, data);
  }

  Any MakeObject(std::string_view key, const Any& data) {
    int32_t type_index = 0;
    TVMFFIByteArray name{key.data(), key.size()};
    if (TVMFFITypeKeyToIndex(&name, &type_index) != 0) {
      TVMFFIObjectHandle error = nullptr;  // Replaced by a message naming the graph's type.
      TVMFFIErrorMoveFromRaised(&error);
      if (error != nullptr) TVMFFIObjectDecRef(error);
      FFI_THROW(RuntimeError) << "Cannot find type `" << key << "`";
    }
    AnyView from_json = TypeAttrOf(type_attr::kDataFromJson.name, type_index);
    if (from_json != nullptr) return from_json.cast<Function>()(data);
    if (TypeAttrOf(type_attr::kEnumState.name, type_index) != nullptr) {  // an enum's member
      if (data.type_index() == kTVMFFIInt) {
        return EnumObj::_GetByIntIndex(type_index, data.cast<int64_t>());
      }
      return EnumObj::_GetByStrIndex(type_index, data.cast<String>());
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    json::Object fields = data.cast<json::Object>();
    ObjectPtr<Object> obj = CreateEmptyObject(info);
    // The reader of a field value depends on the field, so InitFields is given the value lazily.
    std::vector<const TVMFFIFieldInfo*> order;
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) { order.push_back(f); });
    size_t next = 0;
    reflection::detail::InitFields(info, obj.get(), [&](std::string_view) -> std::optional<Any> {
      const TVMFFIFieldInfo* field = order[next++];
      std::optional<Any> v = fields.Get(String(detail::ByteView(field->name)));
      if (!v.has_value() || IsInlineField(field)) return v;
      if (field->field_static_type_index == kTVMFFIDataType && v->type_index() != kTVMFFIInt) {
        return Any(DLDataTypeFromString(v->cast<String>().view()));
      }
      return Read(v->cast<int64_t>());
    });
    return ObjectRef(std::move(obj));
  }

  json::Array nodes_;
  std::vector<std::optional<Any>> made_;
};

Any FromGraph(const json::Value& graph_value) {
  std::optional<json::Object> graph = graph_value.as<json::Object>();
  if (!graph.has_value()) {
    FFI_THROW(ValueError) << "Invalid JSON Object Graph, expected an object";
  }
  std::optional<Any> root = graph->Get(String("root_index"));
  if (!root.has_value() || root->type_index() != kTVMFFIInt) {
    FFI_THROW(ValueError) << "Invalid JSON Object Graph, expected `root_index` integer field";
  }
  std::optional<Any> nodes = graph->Get(String("nodes"));
  if (!nodes.has_value() || nodes->type_index() != kTVMFFIArray) {
    FFI_THROW(ValueError) << "Invalid JSON Object Graph, expected `nodes` array field";
  }
  return GraphReader(nodes->cast<json::Array>()).Read(root->cast<int64_t>());
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def(
          "ffi.ToJSONGraph",
          [](AnyView value, Any metadata) { return GraphWriter().Write(value, metadata); },
          "A value and everything it reaches as a JSON object graph (Map), with `metadata` "
          "stored beside it unless None.")
      .def(
          "ffi.ToJSONGraphString",
          [](AnyView value, Any metadata) {
            return json::Stringify(GraphWriter().Write(value, metadata));
          },
          "ffi.ToJSONGraph as compact JSON text.")
      .def("ffi.FromJSONGraph", FromGraph,
           "The value a JSON object graph (from ffi.ToJSONGraph) holds.")
      .def(
          "ffi.FromJSONGraphString",
          [](const String& text) { return FromGraph(json::Parse(text)); },
          "The value a JSON object graph text (from ffi.ToJSONGraphString) holds.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
