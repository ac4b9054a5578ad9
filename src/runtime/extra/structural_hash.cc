// Structural hashing: the global ffi.StructuralHash, which <ffi/extra/structural_hash.h>, the
// exported StructuralHash::Hash and the Python packages call.
//
// The values are the reference runtime's, bit for bit: users persist them (tuning databases keyed
// by a workload's hash), so a drop-in must give the same numbers. Every value folds into one word
// with StableHashCombine, the convention's combine:
// - a POD value: (type index, its 64-bit payload), a NaN as the canonical quiet NaN; an inline
//   string as a string object with the same bytes; strings, bytes and big integers: (type index,
//   StableHashBytes of the content);
// - arrays, lists, shapes: (the type key's hash, size), then each element; maps and dicts:
//   (the type key's hash, size), then, in the order of their keys' hashes, each key's hash and its
//   value's hash. Only keys whose hash does not depend on the walk take part: PODs, strings, big
//   integers and reflected objects hashed earlier in the walk; a value whose key shares its hash
//   with another key's is left out (the order among them is not defined);
// - tensors: (the type key's hash, ndim), the shape, the dtype, then the content's bytes unless
//   skip_tensor_content;
// - reflected objects: from the type key's hash, each field not flagged SEqHashIgnore (or the
//   type's `__s_hash__` hook); a free variable adds its definition order inside a def region (a
//   Pattern region everywhere with map_free_vars) and is its address outside one; a DAG node adds
//   its first-visit order. An object met again is its first hash.
// Beyond the reference (which raises or recurses forever there): functions, errors and Python
// objects hash by identity, a strided tensor by its elements in row-major order, and a walk that
// comes back into a value it is inside (a cycle) hashes the back edge as a constant.
//
// Equal values (structural_equal.cc) hash alike, with one exception kept from the reference: bytes
// of up to 7 bytes held inline hash apart from a bytes object with the same content.
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "stack_guard.h"
#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {
namespace {

using ffi::detail::StableHashBytes;
using ffi::detail::StableHashCombine;

/*! \brief What a back edge into a value being hashed contributes (a cycle). */
constexpr uint64_t kCycleHash = 0x53;

/*! \brief The hash of the type key of `type_index` (registered with the type). */
uint64_t TypeKeyHash(int32_t type_index) { return TVMFFIGetTypeInfo(type_index)->type_key_hash; }

/*! \brief A string, bytes or big integer value's hash; nothing for any other value. */
std::optional<uint64_t> ContentHash(const TVMFFIAny& a) {
  switch (a.type_index) {
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      const TVMFFIByteArray* bytes = TVMFFIBytesGetByteArrayPtr(a.v_obj);
      return StableHashCombine(a.type_index, StableHashBytes(bytes->data, bytes->size));
    }
    case kTVMFFIBigInt: {
      const auto* big = static_cast<const ffi::detail::BigIntObj*>(
          ffi::detail::ObjectUnsafe::FromHeader(a.v_obj));
      return StableHashCombine(a.type_index,
                               StableHashBytes(big->words(), big->size * sizeof(int64_t)));
    }
    default:
      return std::nullopt;
  }
}

/*! \brief A POD value's hash; `canonical_nan` folds every NaN into one (as values, not as keys). */
uint64_t PodHash(const TVMFFIAny& a, bool canonical_nan) {
  if (a.type_index == kTVMFFISmallStr) {
    // As the string object with the same bytes (the padding bytes are zero).
    return StableHashCombine(kTVMFFIStr, StableHashBytes(&a.v_uint64, sizeof(a.v_uint64)));
  }
  if (canonical_nan && a.type_index == kTVMFFIFloat && std::isnan(a.v_float64)) {
    TVMFFIAny nan = a;
    nan.v_float64 = std::numeric_limits<double>::quiet_NaN();
    return StableHashCombine(a.type_index, nan.v_uint64);
  }
  return StableHashCombine(a.type_index, a.v_uint64);
}

/*! \brief One structural hash computation. */
class StructuralHasher {
 public:
  StructuralHasher(bool map_free_vars, bool skip_tensor_content)
      : region_(map_free_vars ? kTVMFFIDefRegionKindPattern : kTVMFFIDefRegionKindNone),
        skip_tensor_content_(skip_tensor_content) {}

  /*! \brief The hash of `v`; `held` references to it are the walk's own (a field's value, copied
   * out of its object), which MaybeShared discounts. */
  uint64_t Hash(const AnyView& v, uint32_t held = 0) {
    const TVMFFIAny& a = *v.raw();
    if (a.type_index < kTVMFFIStaticObjectBegin) return PodHash(a, /*canonical_nan=*/true);
    if (std::optional<uint64_t> h = ContentHash(a)) return *h;
    switch (a.type_index) {
      case kTVMFFIFunction:
      case kTVMFFIError:
      case kTVMFFIOpaquePyObject:
        return StableHashCombine(a.type_index, reinterpret_cast<uintptr_t>(a.v_obj));
      default:
        break;
    }
    stack_.Check();
    // An object met once needs no record: only a shared one can be met again, or be a map key
    // hashed before.
    if (!MaybeShared(ObjectOf(v), held)) return HashObject(v);
    return Memoized(v);
  }

 private:
  /*! \brief Whether objects of this type are containers (their hash is no map key's, KeyHash). */
  static bool IsContainer(int32_t index) {
    return index == kTVMFFIArray || index == kTVMFFIList || index == kTVMFFIMap ||
           index == kTVMFFIDict || index == kTVMFFIShape || index == kTVMFFITensor;
  }

  /*!
   * \brief The hash of a shared object value, each hashed once per walk. A container's hash is
   * kept only when no map key was left out inside it: such a key may count when the container is
   * met again (its object hashed in between), and then the hash differs, as it does in the
   * reference, which hashes containers anew each time.
   */
  uint64_t Memoized(const AnyView& v) {
    TVMFFIObject* obj = v.raw()->v_obj;
    uint64_t hash = kCycleHash;
    ObjectHashMemo::State state = memo_.Open(obj, &hash);
    if (state != ObjectHashMemo::State::kNew) return hash;  // done, or a cycle's back edge
    uint64_t left_out_before = left_out_keys_;
    try {
      hash = HashObject(v);
    } catch (...) {
      memo_.Drop(obj);  // a type's hook may catch the error and go on: not left open
      throw;
    }
    if (IsContainer(v.type_index()) && left_out_keys_ != left_out_before) {
      memo_.Drop(obj);
    } else {
      memo_.Close(obj, hash);
    }
    return hash;
  }

  uint64_t HashObject(const AnyView& v) {
    int32_t index = v.type_index();
    switch (index) {
      case kTVMFFIArray:
      case kTVMFFIList:
        return HashSequence(index, static_cast<const SeqBaseObj*>(ObjectOf(v)));
      case kTVMFFIMap:
      case kTVMFFIDict:
        return HashMapping(index, static_cast<const MapBaseObj*>(ObjectOf(v)));
      case kTVMFFIShape: {
        Shape shape = v.cast<Shape>();
        uint64_t h = StableHashCombine(TypeKeyHash(index), shape.size());
        for (int64_t d : shape) h = StableHashCombine(h, static_cast<uint64_t>(d));
        return h;
      }
      case kTVMFFITensor:
        return HashTensor(index, *v.cast<Tensor>().GetDLTensorPtr());
      default:
        return HashReflected(v);
    }
  }

  uint64_t HashSequence(int32_t index, const SeqBaseObj* seq) {
    uint64_t h = StableHashCombine(TypeKeyHash(index), static_cast<uint64_t>(seq->size()));
    for (const Any& item : *seq) h = StableHashCombine(h, Hash(item));
    return h;
  }

  /*!
   * \brief The hash of a map key that does not depend on where the walk is: PODs (NaNs as they
   * are), strings, bytes, big integers, and reflected objects hashed earlier in the walk; nothing
   * for any other key.
   */
  std::optional<uint64_t> KeyHash(const TVMFFIAny& key) const {
    if (key.type_index < kTVMFFIStaticObjectBegin) return PodHash(key, /*canonical_nan=*/false);
    if (std::optional<uint64_t> h = ContentHash(key)) return h;
    if (IsContainer(key.type_index)) return std::nullopt;
    const uint64_t* hash = memo_.Find(key.v_obj);
    if (hash == nullptr) return std::nullopt;
    return *hash;
  }

  uint64_t HashMapping(int32_t index, const MapBaseObj* map) {
    uint64_t h = StableHashCombine(TypeKeyHash(index), static_cast<uint64_t>(map->size()));
    std::vector<std::pair<uint64_t, const Any*>> items;
    items.reserve(map->size());
    for (const auto& kv : *map) {
      if (std::optional<uint64_t> key_hash = KeyHash(*kv.first.raw())) {
        items.emplace_back(*key_hash, &kv.second);
      } else {
        ++left_out_keys_;
      }
    }
    std::sort(items.begin(), items.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < items.size();) {
      size_t end = i + 1;
      while (end < items.size() && items[end].first == items[i].first) ++end;
      h = StableHashCombine(h, items[i].first);
      // Keys sharing a hash have no defined order, so their values cannot enter the hash.
      if (end == i + 1) h = StableHashCombine(h, Hash(*items[i].second));
      i = end;
    }
    return h;
  }

  uint64_t HashTensor(int32_t index, const DLTensor& t) const {
    uint64_t h = StableHashCombine(TypeKeyHash(index), static_cast<uint64_t>(t.ndim));
    for (int d = 0; d < t.ndim; ++d) h = StableHashCombine(h, static_cast<uint64_t>(t.shape[d]));
    TVMFFIAny dtype{};
    dtype.v_dtype = t.dtype;
    h = StableHashCombine(h, dtype.v_uint64);
    if (skip_tensor_content_) return h;
    if (t.strides == nullptr || ffi::detail::IsContiguous(t)) {
      if (!HostReadable(t.device)) TensorBytes(t);  // raises: the content cannot be read
      const char* data = static_cast<const char*>(t.data) + t.byte_offset;
      return StableHashCombine(h, StableHashBytes(data, ffi::GetDataSize(t)));
    }
    std::string bytes = TensorBytes(t);  // strided: the elements in row-major order
    return StableHashCombine(h, StableHashBytes(bytes.data(), bytes.size()));
  }

  uint64_t HashReflected(const AnyView& v) {
    int32_t index = v.type_index();
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
    TVMFFISEqHashKind kind = KindOf(index);
    if (kind == kTVMFFISEqHashKindUnsupported) ThrowUnsupported(index, "Structural hashing");
    const Object* obj = ObjectOf(v);
    uint64_t h;
    if (kind != kTVMFFISEqHashKindFreeVar) {
      h = HashFields(v, info);
    } else {
      // A free variable's own fields are walked outside a simple def region (nested variables
      // there are uses), even where the result is then its address: the walk numbers the
      // variables it defines on the way, which later variables' hashes depend on.
      {
        RegionScope scope(
            &region_, region_ == kTVMFFIDefRegionKindSimple ? kTVMFFIDefRegionKindNone : region_);
        h = HashFields(v, info);
      }
      h = region_ != kTVMFFIDefRegionKindNone ? StableHashCombine(h, free_var_count_++)
                                              : reinterpret_cast<uintptr_t>(obj);
    }
    if (kind == kTVMFFISEqHashKindDAGNode) h = StableHashCombine(h, dag_node_count_++);
    return h;
  }

  uint64_t HashFields(const AnyView& v, const TVMFFITypeInfo* info) {
    uint64_t h = info->type_key_hash;
    static reflection::TypeAttrColumn s_hash("__s_hash__");
    AnyView hook = s_hash[info->type_index];
    if (hook != nullptr) return HashByHook(v, hook.cast<Function>(), h);
    const Object* obj = ObjectOf(v);
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return;
      Any value = reflection::FieldGetter(field)(obj);
      RegionScope scope(&region_, EnterRegion(region_, FieldRegionKind(field->flags)));
      h = StableHashCombine(h, Hash(value, /*held=*/1));
    });
    return h;
  }

  /*! \brief A type's `__s_hash__(obj, init, hash_part)`; `hash_part(part, init, region kind)`
   * combines the part's hash (walked in that region) into `init`. */
  uint64_t HashByHook(const AnyView& v, const Function& hook, uint64_t init) {
    if (!hash_part_.defined()) {
      hash_part_ = Function::FromTyped([this](AnyView part, int64_t part_init, int kind) {
        RegionScope scope(&region_, EnterRegion(region_, kind));
        // A hook may pass a borrowed C string or byte array (TVM passes std::string names): it
        // hashes as the string or bytes it holds.
        Any owned = part;
        return static_cast<int64_t>(
            StableHashCombine(static_cast<uint64_t>(part_init), Hash(owned, /*held=*/1)));
      });
    }
    return static_cast<uint64_t>(hook(v, static_cast<int64_t>(init), hash_part_).cast<int64_t>());
  }

  TVMFFIDefRegionKind region_;
  bool skip_tensor_content_;
  uint32_t free_var_count_ = 0;
  uint32_t dag_node_count_ = 0;
  /*! \brief Map keys left out so far (KeyHash had none for them). */
  uint64_t left_out_keys_ = 0;
  ObjectHashMemo memo_;
  Function hash_part_;
  StackLimit stack_{"ffi.StructuralHash"};
};

}  // namespace

uint64_t StructuralHash(const AnyView& value, bool map_free_vars, bool skip_tensor_content) {
  Any owned = value;  // a borrowed C string or byte array hashes as the string or bytes it holds
  return StructuralHasher(map_free_vars, skip_tensor_content).Hash(owned, /*held=*/1);
}

namespace {
FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef().def(
      "ffi.StructuralHash",
      [](AnyView value, bool map_free_vars, bool skip_tensor_content) {
        return static_cast<int64_t>(StructuralHash(value, map_free_vars, skip_tensor_content));
      },
      "StructuralHash(value, map_free_vars, skip_tensor_content): a hash consistent with "
      "ffi.StructuralEqual (equal values hash alike), equal to the reference runtime's.");
}
}  // namespace

}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
