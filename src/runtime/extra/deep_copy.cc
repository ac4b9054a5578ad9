// The standard global function ffi.DeepCopy: a copy of a value and of everything reachable from
// it (`copy.deepcopy` of containers and objects in both Python packages). Immutable leaves
// (numbers, strings, bytes, shapes, enum singletons) and opaque objects (functions, modules,
// errors) are shared, not copied; arrays, lists, maps and dicts are rebuilt from copies of their
// items; a tensor in host memory is copied into a new compact tensor (one elsewhere, whose memory
// only its framework can copy, is a TypeError; the reference refuses every tensor); a reflected
// object is copied through its `__ffi_shallow_copy__` type attribute and then has each field
// replaced by a copy. An object shared twice in the input is copied once, so the copy keeps the
// input's sharing, cycles included: every container's or object's copy is recorded before its
// items are copied, so an item leading back to it (through a list, a dict or an object field, as
// a value or as a key) finds the copy, which is then filled in place. A reflected object that
// cannot be copied is a RuntimeError.
#include <ffi/any.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/enum.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <ffi/tensor.h>

#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stack_guard.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

class DeepCopier {
 public:
  Any Copy(const AnyView& v) {
    int32_t type_index = v.type_index();
    if (type_index < kTVMFFIStaticObjectBegin) return Any(v);
    auto it = copied_.find(Key(v));
    if (it != copied_.end()) return it->second;
    CheckStackDepth("ffi.DeepCopy");
    return CopyObject(v, type_index);
  }

 private:
  static const Object* Key(const AnyView& v) {
    return reinterpret_cast<const Object*>(v.raw()->v_obj);
  }
  /*! \brief Records `copy` as the copy of `v` (before its items are copied) and returns it. */
  Any Record(const AnyView& v, Any copy) {
    copied_.emplace(Key(v), copy);
    return copy;
  }
  /*! \brief Inserts into a map or dict table that other copies may already refer to. */
  template <typename ObjT>
  static void InsertInPlace(const ObjectPtr<Object>& table, Any key, Any value) {
    ObjectPtr<Object> grown =
        detail::MapImpl::Insert<ObjT>(MapBaseObj::KVType(std::move(key), std::move(value)), table);
    // Grown storage moves into the recorded object, so its identity stays.
    if (grown) detail::MapImpl::SwitchTo(static_cast<MapBaseObj*>(table.get()), std::move(grown));
  }
  template <typename ObjT>
  Any CopyTable(const AnyView& v) {
    const auto* src = reinterpret_cast<const MapBaseObj*>(Key(v));
    ObjectPtr<ObjT> out = detail::MapImpl::SmallEmpty<ObjT>(src->size());
    ObjectPtr<Object> table(out);
    Any result = Record(v, Any(ObjectRef(table)));
    for (const auto& kv : *src) InsertInPlace<ObjT>(table, Copy(kv.first), Copy(kv.second));
    return result;
  }

  Any CopyObject(const AnyView& v, int32_t type_index) {
    switch (type_index) {
      case kTVMFFIArray:
      case kTVMFFIList: {
        const auto* src = reinterpret_cast<const SeqBaseObj*>(Key(v));
        int64_t n = static_cast<int64_t>(src->size());
        // The copy is made at its full size first, so that it can be recorded, then filled.
        ObjectPtr<SeqBaseObj> out;
        if (type_index == kTVMFFIArray) {
          out = ArrayObj::CreateRepeated(n, Any());
        } else {
          out = ListObj::CreateRepeated(n, Any());
        }
        Any result = Record(v, Any(ObjectRef(ObjectPtr<Object>(out))));
        for (int64_t i = 0; i < n; ++i) out->SetItem(i, Copy((*src)[i]));
        return result;
      }
      case kTVMFFIMap:
        return CopyTable<MapObj>(v);
      case kTVMFFIDict:
        return CopyTable<DictObj>(v);
      case kTVMFFITensor:
        return Record(v, CopyTensor(v.cast<Tensor>()));
      case kTVMFFIStr:
      case kTVMFFIBytes:
      case kTVMFFIShape:
      case kTVMFFIFunction:
      case kTVMFFIModule:
      case kTVMFFIError:
      case kTVMFFIOpaquePyObject:
      case kTVMFFIBigInt:
        return Any(v);
      default:
        // Each enum value is a singleton: a copy would be a second one.
        if (Key(v)->IsInstance<EnumObj>()) return Any(v);
        return CopyReflected(v, type_index);
    }
  }

  /*!
   * \brief A new tensor (from the environment's allocator) holding a copy of a host tensor's
   * elements, compact. Memory elsewhere (a GPU's) is a TypeError: only its framework can copy it.
   */
  static Tensor CopyTensor(const Tensor& src) {
    const DLTensor& t = *src.GetDLTensorPtr();
    if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost &&
        t.device.device_type != kDLROCMHost) {
      FFI_THROW(TypeError) << "Cannot deep copy a tensor on " << t.device
                           << ": its memory is not the host's (copy it with its framework)";
    }
    Tensor dst = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ShapeView(t.shape, t.ndim), t.dtype,
                                      DLDevice{kDLCPU, 0});
    size_t bytes = GetDataSize(t);
    const char* from = static_cast<const char*>(t.data) + t.byte_offset;
    char* to = static_cast<char*>(dst.data_ptr());
    if (bytes == 0) return dst;
    if (detail::IsContiguous(t)) {
      std::memcpy(to, from, bytes);
      return dst;
    }
    size_t item = (static_cast<size_t>(t.dtype.bits) * t.dtype.lanes + 7) / 8;
    if (static_cast<size_t>(t.dtype.bits) * t.dtype.lanes % 8 != 0) {
      FFI_THROW(TypeError) << "Cannot deep copy a strided tensor of " << t.dtype
                           << " (elements smaller than a byte)";
    }
    // Strided: element by element, the index counting up like an odometer.
    std::vector<int64_t> index(static_cast<size_t>(t.ndim), 0);
    for (size_t n = bytes / item, k = 0; k < n; ++k) {
      int64_t offset = 0;
      for (int32_t d = 0; d < t.ndim; ++d) offset += index[d] * t.strides[d];
      std::memcpy(to + k * item, from + offset * static_cast<int64_t>(item), item);
      for (int32_t d = t.ndim - 1; d >= 0 && ++index[d] == t.shape[d]; --d) index[d] = 0;
    }
    return dst;
  }

  Any CopyReflected(const AnyView& v, int32_t type_index) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    AnyView shallow = reflection::TypeAttrColumn("__ffi_shallow_copy__")[type_index];
    if (shallow == nullptr) {
      // Objects without fields (enum singletons, opaque handles) have nothing to copy.
      bool has_field = false;
      reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo*) { has_field = true; });
      if (!has_field) return Any(v);
      FFI_THROW(RuntimeError) << "Cannot deep copy `" << detail::ByteView(info->type_key)
                              << "`: the type is not copy-constructible (it registers no "
                                 "__ffi_shallow_copy__)";
    }
    Any copy = Record(v, shallow.cast<Function>()(v));
    const Object* dst = Key(copy);
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
