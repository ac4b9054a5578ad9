// Structural hashing (rules in structural.h), consistent with structural equality: the global
// ffi.StructuralHash, which <ffi/extra/structural_hash.h> and the Python package call. Hashes are
// stable across processes (type keys, not dynamic type indices, enter them), except for values
// compared by identity (functions, unbound free variables, unique instances), which hash by
// address.
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>

#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "stack_guard.h"
#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {
namespace {

using ffi::detail::StableHashBytes;
using ffi::detail::StableHashCombine;

/*! \brief Tags that keep different kinds of value apart in a hash. */
enum Tag : uint64_t {
  kTagBoundVar = 0x51,    // a bound free variable: its binding order
  kTagDagBackRef = 0x52,  // a DAG node met before: its first-visit order
  kTagCycle = 0x53,       // the back edge of a cycle
  kTagIdentity = 0x54,    // a value compared by identity: its address
  kTagMapEntries = 0x55,  // the order-independent sum of a map's entries
};

uint64_t HashText(uint64_t tag, const std::string& s) {
  return StableHashCombine(tag, StableHashBytes(s.data(), s.size()));
}

/*! \brief One structural hash computation. */
/*! \brief A bijective mix of all 64 bits (the finalizer of splitmix64). */
uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class StructuralHasher {
 public:
  StructuralHasher(bool map_free_vars, bool skip_tensor_content)
      : map_free_vars_(map_free_vars), skip_tensor_content_(skip_tensor_content) {}

  uint64_t Hash(const AnyView& v) {
    int32_t index = v.type_index();
    if (IsString(index)) return HashText(kTVMFFIStr, TextOf(v));
    if (IsBytes(index)) return HashText(kTVMFFIBytes, TextOf(v));
    if (index < kTVMFFIStaticObjectBegin) return HashPod(*v.raw());
    CheckStackDepth("ffi.StructuralHash");
    const void* obj = v.raw()->v_obj;
    switch (index) {
      case kTVMFFIFunction:
      case kTVMFFIError:
      case kTVMFFIOpaquePyObject:
        return Identity(index, obj);
      default:
        break;
    }
    OpenScope<decltype(open_)> scope(&open_, obj);
    return scope.entered() ? HashObject(v) : kTagCycle;
  }

 private:
  static uint64_t Identity(int32_t index, const void* obj) {
    return StableHashCombine(StableHashCombine(kTagIdentity, static_cast<uint64_t>(index)),
                             reinterpret_cast<uintptr_t>(obj));
  }

  static uint64_t HashPod(const TVMFFIAny& a) {
    uint64_t bits = a.v_uint64;
    switch (a.type_index) {
      case kTVMFFINone:
        bits = 0;
        break;
      case kTVMFFIFloat: {
        double d = a.v_float64;
        if (std::isnan(d)) d = std::nan("");  // every NaN equals every other
        if (d == 0) d = 0;                    // -0.0 == 0.0
        std::memcpy(&bits, &d, sizeof(bits));
        break;
      }
      case kTVMFFIDataType:
        bits = (static_cast<uint64_t>(a.v_dtype.code) << 24) |
               (static_cast<uint64_t>(a.v_dtype.bits) << 16) | a.v_dtype.lanes;
        break;
      case kTVMFFIDevice:
        bits = (static_cast<uint64_t>(static_cast<uint32_t>(a.v_device.device_type)) << 32) |
               static_cast<uint32_t>(a.v_device.device_id);
        break;
      default:
        break;
    }
    return StableHashCombine(static_cast<uint64_t>(a.type_index), bits);
  }

  uint64_t HashObject(const AnyView& v) {
    int32_t index = v.type_index();
    uint64_t seed = static_cast<uint64_t>(index);
    switch (index) {
      case kTVMFFIArray:
        return HashSequence(seed, v.cast<Array<Any>>());
      case kTVMFFIList:
        return HashSequence(seed, v.cast<List<Any>>());
      case kTVMFFIMap:
        return HashMapping(seed, v.cast<Map<Any, Any>>());
      case kTVMFFIDict:
        return HashMapping(seed, v.cast<Dict<Any, Any>>());
      case kTVMFFIBigInt:
        return StableHashCombine(seed, v.cast<BigInt>().hash());
      case kTVMFFIShape:
        for (int64_t d : v.cast<Shape>()) seed = StableHashCombine(seed, static_cast<uint64_t>(d));
        return seed;
      case kTVMFFITensor:
        return HashTensor(seed, *v.cast<Tensor>().GetDLTensorPtr());
      default:
        return HashReflected(v);
    }
  }

  template <typename Seq>
  uint64_t HashSequence(uint64_t seed, const Seq& items) {
    for (const Any& item : items) seed = StableHashCombine(seed, Hash(item));
    return StableHashCombine(seed, items.size());
  }

  /*! \brief Entries hash independently of their order (a map's iteration order is not part of
   * its value). */
  template <typename M>
  uint64_t HashMapping(uint64_t seed, const M& map) {
    // Each entry's hash is mixed before the sum: the combine alone spreads small values so
    // little that sums of different maps collide ({a: 0, b: 2} and {a: 2, b: 0}).
    uint64_t sum = 0;
    for (const auto& kv : map) sum += Mix64(StableHashCombine(Hash(kv.first), Hash(kv.second)));
    return StableHashCombine(StableHashCombine(seed, kTagMapEntries), sum + map.size());
  }

  uint64_t HashTensor(uint64_t seed, const DLTensor& t) const {
    seed = StableHashCombine(seed, (static_cast<uint64_t>(t.dtype.code) << 24) |
                                       (static_cast<uint64_t>(t.dtype.bits) << 16) | t.dtype.lanes);
    seed = StableHashCombine(seed, static_cast<uint64_t>(t.device.device_type));
    seed = StableHashCombine(seed, static_cast<uint64_t>(t.device.device_id));
    for (int d = 0; d < t.ndim; ++d)
      seed = StableHashCombine(seed, static_cast<uint64_t>(t.shape[d]));
    if (skip_tensor_content_) return seed;
    std::string bytes = TensorBytes(t);
    return StableHashCombine(seed, StableHashBytes(bytes.data(), bytes.size()));
  }

  uint64_t HashReflected(const AnyView& v) {
    int32_t index = v.type_index();
    const Object* obj = ObjectOf(v);
    std::string_view key = TypeKey(index);
    uint64_t seed = StableHashBytes(key.data(), key.size());
    AnyView hook = reflection::TypeAttrColumn("__s_hash__")[index];
    if (hook != nullptr) {
      Function recurse =
          Function::FromTyped([this](AnyView x, int64_t init, int64_t kind) -> int64_t {
            return static_cast<int64_t>(
                StableHashCombine(static_cast<uint64_t>(init), HashInRegion(x, kind)));
          });
      return static_cast<uint64_t>(
          hook.cast<Function>()(v, static_cast<int64_t>(seed), recurse).cast<int64_t>());
    }
    switch (KindOf(index)) {
      case kTVMFFISEqHashKindUniqueInstance:
        return Identity(index, obj);
      case kTVMFFISEqHashKindTreeNode:
      case kTVMFFISEqHashKindConstTreeNode:
        return HashFields(seed, index, obj);
      case kTVMFFISEqHashKindDAGNode: {
        auto it = dag_order_.find(obj);
        if (it != dag_order_.end()) return StableHashCombine(kTagDagBackRef, it->second);
        uint64_t h = HashFields(seed, index, obj);
        dag_order_.emplace(obj, dag_order_.size());
        return h;
      }
      case kTVMFFISEqHashKindFreeVar:
        return HashFreeVar(seed, index, obj);
      default:
        ThrowUnsupported(index, "Structural hashing");
    }
  }

  /*! \brief A bound variable hashes as its binding order (so alpha-equivalent values hash alike);
   * an unbound one binds where equality would, else hashes by address. */
  uint64_t HashFreeVar(uint64_t seed, int32_t index, const Object* obj) {
    auto it = var_order_.find(obj);
    if (it != var_order_.end()) return StableHashCombine(kTagBoundVar, it->second);
    if (region_ == kTVMFFIDefRegionKindNone && !map_free_vars_) return Identity(index, obj);
    uint64_t order = var_order_.size();
    var_order_.emplace(obj, order);
    RegionScope scope(&region_,
                      region_ == kTVMFFIDefRegionKindPattern ? region_ : kTVMFFIDefRegionKindNone);
    uint64_t h = HashFields(seed, index, obj);
    return StableHashCombine(StableHashCombine(kTagBoundVar, order), h);
  }

  uint64_t HashFields(uint64_t seed, int32_t index, const Object* obj) {
    reflection::ForEachFieldInfo(TVMFFIGetTypeInfo(index), [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return;
      Any value = reflection::FieldGetter(field)(obj);
      seed = StableHashCombine(seed, HashInRegion(value, FieldRegionKind(field->flags)));
    });
    return seed;
  }

  /*! \brief Hash of `v` in the def region a field asking for `kind` walks in (as equality). */
  uint64_t HashInRegion(const AnyView& v, int64_t kind) {
    RegionScope scope(&region_, EnterRegion(region_, kind));
    return Hash(v);
  }

  bool map_free_vars_;
  bool skip_tensor_content_;
  TVMFFIDefRegionKind region_ = kTVMFFIDefRegionKindNone;
  std::unordered_map<const Object*, uint64_t> var_order_, dag_order_;
  std::unordered_set<const void*> open_;
};

}  // namespace

uint64_t StructuralHash(const AnyView& value, bool map_free_vars, bool skip_tensor_content) {
  // Mixed once more at the end, so that small values' hashes spread over all bits as well.
  return Mix64(StructuralHasher(map_free_vars, skip_tensor_content).Hash(value));
}

namespace {
FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef().def(
      "ffi.StructuralHash",
      [](AnyView value, bool map_free_vars, bool skip_tensor_content) {
        return static_cast<int64_t>(StructuralHash(value, map_free_vars, skip_tensor_content));
      },
      "StructuralHash(value, map_free_vars, skip_tensor_content): a hash consistent with "
      "ffi.StructuralEqual (equal values hash alike).");
}
}  // namespace

}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
