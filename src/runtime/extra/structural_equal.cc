// Structural equality (rules in structural.h): the globals ffi.StructuralEqual and
// ffi.GetFirstStructuralMismatch, which <ffi/extra/structural_equal.h> and the Python package
// call; the shared TensorBytes; and the `__s_equal__` / `__s_hash__` columns.
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/access_path.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "stack_guard.h"
#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {

std::string TensorBytes(const DLTensor& t) {
  if (!HostReadable(t.device)) {
    FFI_THROW(ValueError) << "Cannot compare or hash the content of a tensor on device type "
                          << static_cast<int>(t.device.device_type)
                          << " (only host memory is readable): pass skip_tensor_content=True";
  }
  const char* base = static_cast<const char*>(t.data) + t.byte_offset;
  uint64_t element_bits = static_cast<uint64_t>(t.dtype.bits) * t.dtype.lanes;
  if (t.strides == nullptr || ffi::detail::IsContiguous(t) || element_bits % 8 != 0) {
    // Compact (sub-byte element types are only ever compact).
    size_t size = ffi::GetDataSize(t);
    return size == 0 ? std::string() : std::string(base, size);
  }
  size_t element = element_bits / 8;
  size_t numel = ffi::GetDataSize(t) / element;
  std::string out;
  out.reserve(numel * element);
  std::vector<int64_t> index(static_cast<size_t>(t.ndim), 0);
  for (size_t n = 0; n < numel; ++n) {
    int64_t offset = 0;
    for (int d = 0; d < t.ndim; ++d) offset += index[d] * t.strides[d];
    out.append(base + offset * static_cast<int64_t>(element), element);
    for (int d = t.ndim - 1; d >= 0 && ++index[d] == t.shape[d]; --d) index[d] = 0;
  }
  return out;
}

namespace {

using reflection::AccessKind;
using reflection::AccessPath;
using reflection::AccessPathPair;
using reflection::AccessStep;

/*! \brief Hash of an ordered pair of pointers, for the set of pairs being compared. */
struct PairHash {
  size_t operator()(const std::pair<const Object*, const Object*>& p) const {
    return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
  }
};

/*!
 * \brief One structural comparison. With `track_path`, the first mismatch is recorded as a pair of
 * access paths (the steps to it on each side); otherwise no path is built.
 */
class StructuralEqualer {
 public:
  StructuralEqualer(bool map_free_vars, bool skip_tensor_content, bool track_path)
      : skip_tensor_content_(skip_tensor_content),
        track_path_(track_path),
        // Mapping free variables is comparing as if everything were a pattern definition.
        region_(map_free_vars ? kTVMFFIDefRegionKindPattern : kTVMFFIDefRegionKindNone) {}

  /*! \brief Whether `lhs` and `rhs` are structurally equal. */
  bool Equal(const AnyView& lhs, const AnyView& rhs) { return Compare(lhs, rhs); }

  /*! \brief The first mismatch found (with track_path), else None. */
  Optional<AccessPathPair> mismatch() const { return mismatch_; }

 private:
  /*! \brief Records the first mismatch (the current paths, each with its extra step) and returns
   * false. */
  bool Fail(Optional<AccessStep> lhs_step = std::nullopt,
            Optional<AccessStep> rhs_step = std::nullopt) {
    if (track_path_ && !mismatch_.has_value()) {
      mismatch_ = AccessPathPair(PathOf(lhs_steps_, lhs_step), PathOf(rhs_steps_, rhs_step));
    }
    return false;
  }

  static AccessPath PathOf(const std::vector<AccessStep>& steps, const Optional<AccessStep>& last) {
    AccessPath path = AccessPath::Root();
    for (const AccessStep& step : steps) path = path->Extend(step);
    if (last.has_value()) path = path->Extend(last.value());
    return path;
  }

  /*! \brief Compares `l` and `r` one step down each path (the step made only when tracking). */
  template <typename MakeSteps>
  bool CompareAt(const AnyView& l, const AnyView& r, uint32_t held, MakeSteps make_steps) {
    if (!track_path_) return Compare(l, r, held);
    std::pair<AccessStep, AccessStep> steps = make_steps();
    lhs_steps_.push_back(std::move(steps.first));
    rhs_steps_.push_back(std::move(steps.second));
    bool equal = Compare(l, r, held);
    lhs_steps_.pop_back();
    rhs_steps_.pop_back();
    return equal;
  }

  /*! \brief Whether `l` and `r` are equal; `held` references to each are the walk's own (a
   * field's value, copied out of its object), which MaybeShared discounts. */
  bool Compare(const AnyView& l, const AnyView& r, uint32_t held = 0) {
    int32_t li = l.type_index(), ri = r.type_index();
    if (li != ri) {
      if ((IsString(li) && IsString(ri)) || (IsBytes(li) && IsBytes(ri))) {
        return ContentOf(*l.raw()) == ContentOf(*r.raw()) || Fail();
      }
      return Fail();
    }
    if (li < kTVMFFIStaticObjectBegin) return ComparePod(l, r) || Fail();
    const Object* lo = ObjectOf(l);
    const Object* ro = ObjectOf(r);
    switch (li) {
      case kTVMFFIStr:
      case kTVMFFIBytes:
        return lo == ro || ContentOf(*l.raw()) == ContentOf(*r.raw()) || Fail();
      case kTVMFFIFunction:
      case kTVMFFIError:
      case kTVMFFIOpaquePyObject:
        return lo == ro || Fail();
      default:
        break;
    }
    stack_.Check();
    // A pair that may be met again (both sides shared) is remembered while it is compared and,
    // once found equal, for the rest of the walk: a pair met again inside itself (two cycles
    // walked in step) is taken as equal, and one found equal before is not compared again, so a
    // shared (DAG-shaped) value costs what its distinct nodes cost.
    if (!MaybeShared(lo, held) || !MaybeShared(ro, held)) return CompareObjects(l, r, lo, ro);
    std::pair<const Object*, const Object*> pair(lo, ro);
    if (!pairs_.insert(pair).second) return true;
    bool equal;
    try {
      equal = CompareObjects(l, r, lo, ro);
    } catch (...) {
      pairs_.erase(pair);  // a type's hook may catch the error and go on
      throw;
    }
    if (!equal) pairs_.erase(pair);
    return equal;
  }

  static bool ComparePod(const AnyView& l, const AnyView& r) {
    const TVMFFIAny& a = *l.raw();
    const TVMFFIAny& b = *r.raw();
    switch (a.type_index) {
      case kTVMFFINone:
        return true;
      case kTVMFFIFloat:
        // By the bits (0.0 and -0.0 differ, as the reference has them), every NaN equal.
        return a.v_uint64 == b.v_uint64 || (std::isnan(a.v_float64) && std::isnan(b.v_float64));
      case kTVMFFIDataType:
        return a.v_dtype.code == b.v_dtype.code && a.v_dtype.bits == b.v_dtype.bits &&
               a.v_dtype.lanes == b.v_dtype.lanes;
      case kTVMFFIDevice:
        return a.v_device.device_type == b.v_device.device_type &&
               a.v_device.device_id == b.v_device.device_id;
      case kTVMFFISmallStr:
      case kTVMFFISmallBytes:
      case kTVMFFIRawStr:
      case kTVMFFIByteArrayPtr:
        return ContentOf(a) == ContentOf(b);
      default:  // int, bool, pointers
        return a.v_int64 == b.v_int64;
    }
  }

  bool CompareObjects(const AnyView& l, const AnyView& r, const Object* lo, const Object* ro) {
    switch (l.type_index()) {
      case kTVMFFIArray:
      case kTVMFFIList:
        return CompareSequences(static_cast<const SeqBaseObj*>(lo),
                                static_cast<const SeqBaseObj*>(ro));
      case kTVMFFIMap:
      case kTVMFFIDict:
        return CompareMappings(static_cast<const MapBaseObj*>(lo),
                               static_cast<const MapBaseObj*>(ro));
      case kTVMFFIBigInt:
        return l.cast<BigInt>() == r.cast<BigInt>() || Fail();
      case kTVMFFIShape: {
        Shape a = l.cast<Shape>(), b = r.cast<Shape>();
        return (a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin())) || Fail();
      }
      case kTVMFFITensor:
        return CompareTensors(*l.cast<Tensor>().GetDLTensorPtr(),
                              *r.cast<Tensor>().GetDLTensorPtr()) ||
               Fail();
      default:
        return CompareReflected(l, r, lo, ro);
    }
  }

  bool CompareSequences(const SeqBaseObj* a, const SeqBaseObj* b) {
    int64_t n = std::min<int64_t>(a->size(), b->size());
    const Any* x = a->begin();
    const Any* y = b->begin();
    for (int64_t i = 0; i < n; ++i) {
      bool equal = CompareAt(x[i], y[i], 0, [i] {
        return std::make_pair(AccessStep::ArrayItem(i), AccessStep::ArrayItem(i));
      });
      if (!equal) return false;
    }
    if (a->size() == b->size()) return true;
    if (static_cast<int64_t>(a->size()) > n) {
      return Fail(AccessStep::ArrayItem(n), AccessStep::ArrayItemMissing(n));
    }
    return Fail(AccessStep::ArrayItemMissing(n), AccessStep::ArrayItem(n));
  }

  /*! \brief The partner of a key that is a bound variable or a matched DAG node, else null. */
  const Object* PartnerOf(const Any& key) const {
    if (key.type_index() < kTVMFFIStaticObjectBegin) return nullptr;
    const Object* obj = ObjectOf(key);
    for (const auto* map : {&var_map_, &dag_map_}) {
      if (map->empty()) continue;
      auto it = map->find(obj);
      if (it != map->end()) return it->second;
    }
    return nullptr;
  }
  /*! \brief A new reference to `obj`. */
  static Any RefTo(const Object* obj) {
    return ObjectRef(
        ffi::detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(const_cast<Object*>(obj)));
  }
  /*! \brief The key on the right that a left key stands for: a bound variable or a matched DAG
   * node maps to its partner, everything else to itself. */
  Any PartnerKey(const Any& key) const {
    const Object* partner = PartnerOf(key);
    return partner != nullptr ? RefTo(partner) : key;
  }

  bool CompareMappings(const MapBaseObj* a, const MapBaseObj* b) {
    for (const auto& kv : *a) {
      const Object* partner = PartnerOf(kv.first);
      Any partner_key = partner != nullptr ? RefTo(partner) : Any();
      const Any& key = partner != nullptr ? partner_key : kv.first;
      auto it = b->find(key);
      if (it == b->end()) {
        return Fail(AccessStep::MapItem(kv.first), AccessStep::MapItemMissing(kv.first));
      }
      bool equal = CompareAt(kv.second, (*it).second, 0, [&] {
        return std::make_pair(AccessStep::MapItem(kv.first), AccessStep::MapItem(key));
      });
      if (!equal) return false;
    }
    if (a->size() == b->size()) return true;
    // Every left key matched: the right has one more, the first not matched by a left key.
    std::unordered_set<Any, AnyHash, AnyEqual> matched;
    for (const auto& kv : *a) matched.insert(PartnerKey(kv.first));
    for (const auto& kv : *b) {
      if (!matched.count(kv.first)) {
        return Fail(AccessStep::MapItemMissing(kv.first), AccessStep::MapItem(kv.first));
      }
    }
    return Fail();
  }

  bool CompareTensors(const DLTensor& a, const DLTensor& b) const {
    if (a.ndim != b.ndim || a.dtype.code != b.dtype.code || a.dtype.bits != b.dtype.bits ||
        a.dtype.lanes != b.dtype.lanes || a.device.device_type != b.device.device_type ||
        a.device.device_id != b.device.device_id) {
      return false;
    }
    for (int d = 0; d < a.ndim; ++d) {
      if (a.shape[d] != b.shape[d]) return false;
    }
    if (skip_tensor_content_) return true;
    if ((a.strides == nullptr || ffi::detail::IsContiguous(a)) &&
        (b.strides == nullptr || ffi::detail::IsContiguous(b)) && HostReadable(a.device) &&
        HostReadable(b.device)) {
      // Compact on both sides: the bytes in place.
      size_t size = ffi::GetDataSize(a);
      return size == 0 || std::memcmp(static_cast<const char*>(a.data) + a.byte_offset,
                                      static_cast<const char*>(b.data) + b.byte_offset, size) == 0;
    }
    return TensorBytes(a) == TensorBytes(b);
  }

  /*!
   * \brief Objects by their kind: the kind decides identity and binding (unique instances, bound
   * DAG nodes and variables), and the content (the fields, or the type's own `__s_equal__` in
   * their place) is compared under it, as the reference does. A type of no kind may still be
   * compared by its own hook.
   */
  bool CompareReflected(const AnyView& l, const AnyView& r, const Object* lo, const Object* ro) {
    int32_t type_index = l.type_index();
    switch (KindOf(type_index)) {
      case kTVMFFISEqHashKindUniqueInstance:
        return lo == ro || Fail();
      case kTVMFFISEqHashKindConstTreeNode:
        // Holds no free variable, so a node is equal to itself whatever is bound.
        return lo == ro || CompareContent(l, r, type_index, lo, ro);
      case kTVMFFISEqHashKindTreeNode:
        return CompareContent(l, r, type_index, lo, ro);
      case kTVMFFISEqHashKindDAGNode:
        return CompareDagNodes(l, r, type_index, lo, ro);
      case kTVMFFISEqHashKindFreeVar:
        return CompareFreeVars(l, r, type_index, lo, ro);
      default:
        if (HasHook(type_index)) return CompareContent(l, r, type_index, lo, ro);
        ThrowUnsupported(type_index, "Structural equality");
    }
  }

  static AnyView HookOf(int32_t type_index) {
    static reflection::TypeAttrColumn column("__s_equal__");
    return column[type_index];
  }
  static bool HasHook(int32_t type_index) { return HookOf(type_index) != nullptr; }

  /*! \brief The content of two objects of one type: the type's `__s_equal__`, else the fields. */
  bool CompareContent(const AnyView& l, const AnyView& r, int32_t type_index, const Object* lo,
                      const Object* ro) {
    AnyView hook = HookOf(type_index);
    if (hook != nullptr) return CallHook(hook, l, r) || Fail();
    return CompareFields(type_index, lo, ro);
  }

  /*! \brief DAG nodes: the sharing of each side must match (a bijection), then the content. */
  bool CompareDagNodes(const AnyView& l, const AnyView& r, int32_t type_index, const Object* lo,
                       const Object* ro) {
    auto it = dag_map_.find(lo);
    if (it != dag_map_.end()) return it->second == ro || Fail();
    if (dag_rmap_.count(ro)) return Fail();
    if (lo != ro && !CompareContent(l, r, type_index, lo, ro)) return false;
    dag_map_.emplace(lo, ro);
    dag_rmap_.emplace(ro, lo);
    return true;
  }

  /*!
   * \brief Free variables: a bound one equals only its partner. An unbound one has its content
   * compared (as uses, in a simple def region: nested variables there resolve, never bind), then
   * binds when it is the same variable or a def region is open (map_free_vars opens one
   * everywhere); otherwise the two differ.
   */
  bool CompareFreeVars(const AnyView& l, const AnyView& r, int32_t type_index, const Object* lo,
                       const Object* ro) {
    auto it = var_map_.find(lo);
    if (it != var_map_.end()) return it->second == ro || Fail();
    if (var_rmap_.count(ro)) return Fail();
    {
      RegionScope scope(&region_,
                        region_ == kTVMFFIDefRegionKindSimple ? kTVMFFIDefRegionKindNone : region_);
      if (!CompareContent(l, r, type_index, lo, ro)) return false;
    }
    if (lo != ro && region_ == kTVMFFIDefRegionKindNone) return Fail();
    var_map_.emplace(lo, ro);
    var_rmap_.emplace(ro, lo);
    return true;
  }

  bool CompareFields(int32_t type_index, const Object* lo, const Object* ro) {
    bool equal = true;
    reflection::ForEachFieldInfoWithEarlyStop(
        TVMFFIGetTypeInfo(type_index), [&](const TVMFFIFieldInfo* field) {
          if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return false;
          reflection::FieldGetter get(field);
          Any x = get(lo), y = get(ro);  // one reference each of the walk's own
          equal = CompareInRegion(x, y, 1, FieldRegionKind(field->flags), [field] {
            String name(field->name.data, field->name.size);
            return std::make_pair(AccessStep::Attr(name), AccessStep::Attr(name));
          });
          return !equal;
        });
    return equal;
  }

  template <typename MakeSteps>
  bool CompareInRegion(const AnyView& x, const AnyView& y, uint32_t held, int64_t kind,
                       MakeSteps make_steps) {
    RegionScope scope(&region_, EnterRegion(region_, kind));
    return CompareAt(x, y, held, make_steps);
  }

  /*! \brief A type's own `__s_equal__(lhs, rhs, eq)`; `eq(l, r, def_region_kind, field_name)`
   * compares parts (a string field name adds a step to the mismatch paths). */
  bool CallHook(const AnyView& hook, const AnyView& l, const AnyView& r) {
    if (!compare_part_.defined()) {
      compare_part_ = Function::FromTyped(
          [this](AnyView x, AnyView y, int64_t kind, AnyView field_name) -> bool {
            return CompareInRegion(x, y, 0, kind, [&] {
              if (IsString(field_name.type_index())) {
                String name = field_name.cast<String>();
                return std::make_pair(AccessStep::Attr(name), AccessStep::Attr(name));
              }
              return std::make_pair(AccessStep::AttrMissing(String("<hook>")),
                                    AccessStep::AttrMissing(String("<hook>")));
            });
          });
    }
    return hook.cast<Function>()(l, r, compare_part_).cast<bool>();
  }

  bool skip_tensor_content_;
  bool track_path_;
  TVMFFIDefRegionKind region_;
  std::unordered_map<const Object*, const Object*> var_map_, var_rmap_, dag_map_, dag_rmap_;
  /*! \brief Pairs of shared objects being compared, or found equal (see Compare). */
  std::unordered_set<std::pair<const Object*, const Object*>, PairHash> pairs_;
  StackLimit stack_{"ffi.StructuralEqual"};
  /*! \brief What a type's `__s_equal__` hook compares parts with (made on first use). */
  Function compare_part_;
  std::vector<AccessStep> lhs_steps_, rhs_steps_;
  Optional<AccessPathPair> mismatch_;
};

}  // namespace

bool StructuralEqual(const AnyView& lhs, const AnyView& rhs, bool map_free_vars,
                     bool skip_tensor_content) {
  return StructuralEqualer(map_free_vars, skip_tensor_content, false).Equal(lhs, rhs);
}

namespace {
FFI_STATIC_INIT_BLOCK() {
  // The hook columns exist from the start, so lookups never fail before a type registers one.
  reflection::EnsureTypeAttrColumn("__s_equal__");
  reflection::EnsureTypeAttrColumn("__s_hash__");
  reflection::GlobalDef()
      .def(
          "ffi.StructuralEqual",
          [](AnyView lhs, AnyView rhs, bool map_free_vars, bool skip_tensor_content) {
            return StructuralEqual(lhs, rhs, map_free_vars, skip_tensor_content);
          },
          "StructuralEqual(lhs, rhs, map_free_vars, skip_tensor_content): whether two values "
          "are structurally equal.")
      .def(
          "ffi.GetFirstStructuralMismatch",
          [](AnyView lhs, AnyView rhs, bool map_free_vars, bool skip_tensor_content) {
            StructuralEqualer equaler(map_free_vars, skip_tensor_content, true);
            equaler.Equal(lhs, rhs);
            return equaler.mismatch();
          },
          "GetFirstStructuralMismatch(lhs, rhs, map_free_vars, skip_tensor_content): the access "
          "paths (into lhs, into rhs) of the first structural difference, or None.");
}

}  // namespace
}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
