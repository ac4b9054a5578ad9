// The standard global function ffi.DeepCopy: a copy of a value and of everything reachable from
// it. The reference's Python package builds `copy.deepcopy` of its containers and dataclasses on
// it. Immutable leaves (numbers, strings, bytes, shapes) and opaque objects (functions, tensors,
// modules, errors) are shared, not copied; arrays, lists, maps and dicts are rebuilt from copies
// of their items; a reflected object is copied through its `__ffi_shallow_copy__` type attribute
// and then has each field replaced by a copy. An object shared twice in the input is copied once,
// so the copy keeps the input's sharing. A reflected object that cannot be copied is a TypeError.
#include <ffi/any.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>

#include <unordered_map>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

class DeepCopier {
 public:
  Any Copy(const AnyView& v) {
    int32_t type_index = v.type_index();
    if (type_index < kTVMFFIStaticObjectBegin) return Any(v);
    const Object* obj = reinterpret_cast<const Object*>(v.raw()->v_obj);
    auto it = copied_.find(obj);
    if (it != copied_.end()) return it->second;
    Any result = CopyObject(v, type_index);
    copied_.emplace(obj, result);
    return result;
  }

 private:
  Any CopyObject(const AnyView& v, int32_t type_index) {
    switch (type_index) {
      case kTVMFFIArray: {
        std::vector<Any> items;
        for (const Any& item : v.cast<Array<Any>>()) items.push_back(Copy(item));
        return Array<Any>(items.begin(), items.end());
      }
      case kTVMFFIList: {
        // Mutable containers are registered before their items are copied, so that an item
        // leading back to the list (a cycle) finds the copy.
        List<Any> out;
        copied_.emplace(reinterpret_cast<const Object*>(v.raw()->v_obj), out);
        for (const Any& item : v.cast<List<Any>>()) out.push_back(Copy(item));
        return out;
      }
      case kTVMFFIMap: {
        std::vector<std::pair<Any, Any>> entries;
        for (const auto& kv : v.cast<Map<Any, Any>>()) {
          entries.emplace_back(Copy(kv.first), Copy(kv.second));
        }
        return Map<Any, Any>(entries.begin(), entries.end());
      }
      case kTVMFFIDict: {
        Dict<Any, Any> out;
        copied_.emplace(reinterpret_cast<const Object*>(v.raw()->v_obj), out);
        for (const auto& kv : v.cast<Dict<Any, Any>>()) out.Set(Copy(kv.first), Copy(kv.second));
        return out;
      }
      case kTVMFFIStr:
      case kTVMFFIBytes:
      case kTVMFFIShape:
      case kTVMFFIFunction:
      case kTVMFFITensor:
      case kTVMFFIModule:
      case kTVMFFIError:
      case kTVMFFIOpaquePyObject:
      case kTVMFFIBigInt:
        return Any(v);
      default:
        return CopyReflected(v, type_index);
    }
  }

  Any CopyReflected(const AnyView& v, int32_t type_index) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    AnyView shallow = reflection::TypeAttrColumn("__ffi_shallow_copy__")[type_index];
    if (shallow == nullptr) {
      // Objects without fields (enum singletons, opaque handles) have nothing to copy.
      bool has_field = false;
      reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo*) { has_field = true; });
      if (!has_field) return Any(v);
      FFI_THROW(TypeError) << "Cannot deep copy `" << detail::ByteView(info->type_key)
                           << "`: the type registers no copy (__ffi_shallow_copy__)";
    }
    Any copy = shallow.cast<Function>()(v);
    const Object* dst = reinterpret_cast<const Object*>(copy.raw()->v_obj);
    copied_.emplace(reinterpret_cast<const Object*>(v.raw()->v_obj), copy);  // Cycles see the copy.
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      Any value = reflection::FieldGetter(field)(dst);
      if (value.type_index() < kTVMFFIStaticObjectBegin) return;
      Any replaced = Copy(value);
      if (replaced.raw()->v_obj == value.raw()->v_obj) return;  // Shared leaf: keep as is.
      void* addr = const_cast<char*>(reinterpret_cast<const char*>(dst)) + field->offset;
      FFI_CHECK_SAFE_CALL(reflection::CallFieldSetter(field, addr, replaced.raw()));
    });
    return copy;
  }

  std::unordered_map<const Object*, Any> copied_;
};

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef().def(
      "ffi.DeepCopy", [](AnyView v) { return DeepCopier().Copy(v); },
      "A copy of the value and of every container and object reachable from it.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
