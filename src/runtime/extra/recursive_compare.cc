// The standard global functions that compare and hash values by content, recursing through
// containers and reflected fields: ffi.RecursiveEq, ffi.RecursiveLt/Le/Gt/Ge and
// ffi.RecursiveHash. The reference's Python package builds `==`, `<`, ... and `hash()` of its
// containers and dataclasses on them, so they must exist, and behave as there, before that
// package can import.
//
// Rules (TVM-FFI's): types are strict, so 1, 1.0 and True are three unequal values and ordering
// values of different types is a TypeError, except that None equals only None and orders before
// everything else. Floats by value, with NaN equal to NaN (any payload) but unordered (TypeError);
// strings and bytes by content, whatever their storage (small inline or object); arrays, lists
// and shapes lexicographically; maps and dicts by their entries (equality only: ordering them is
// a TypeError); reflected objects through their `__ffi_eq__` / `__ffi_compare__` / `__ffi_hash__`
// type attributes when registered, otherwise field by field (fields marked compare-off or
// hash-off skipped), so objects of one type without fields (functions, tensors, ...) are all
// equal. A walk back into a pair it is comparing (a cycle) takes it as equal, or raises a
// ValueError when ordering.
#include <ffi/any.h>
#include <ffi/big_int.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/extra/dataclass.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>
#include <ffi/string.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stack_guard.h"
#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief What a value is compared as; values of different kinds never compare equal. */
enum class Kind {
  kNone,
  kInt,
  kBool,
  kFloat,
  kString,
  kBytes,
  kSequence,
  kShape,
  kMapping,
  kPod,
  kObject
};

Kind KindOf(const AnyView& v) {
  switch (v.type_index()) {
    case kTVMFFINone:
      return Kind::kNone;
    case kTVMFFIInt:
    case kTVMFFIBigInt:
      return Kind::kInt;
    case kTVMFFIBool:
      return Kind::kBool;
    case kTVMFFIFloat:
      return Kind::kFloat;
    case kTVMFFISmallStr:
    case kTVMFFIStr:
    case kTVMFFIRawStr:
      return Kind::kString;
    case kTVMFFISmallBytes:
    case kTVMFFIBytes:
    case kTVMFFIByteArrayPtr:
      return Kind::kBytes;
    case kTVMFFIArray:
    case kTVMFFIList:
      return Kind::kSequence;
    case kTVMFFIShape:
      return Kind::kShape;
    case kTVMFFIMap:
    case kTVMFFIDict:
      return Kind::kMapping;
    default:
      return v.type_index() < kTVMFFIStaticObjectBegin ? Kind::kPod : Kind::kObject;
  }
}

using structural::ContentOf;
using structural::MaybeShared;
using structural::ObjectHashMemo;
using structural::ObjectOf;
using structural::TypeKey;

int Sign(double d) { return d < 0 ? -1 : (d > 0 ? 1 : 0); }

/*! \brief Three-way comparison; `order` says whether the caller needs an order or only
 * (in)equality. */
class Comparer {
 public:
  explicit Comparer(bool order) : order_(order), ordering_(order) {}

  /*! \brief Three-way comparison of `a` and `b`; `held` references to each are the walk's own
   * (a field's value, copied out of its object), which MaybeShared discounts. */
  int Compare(const AnyView& a, const AnyView& b, uint32_t held = 0) {
    // One object equals itself (this also ends the walk around a cycle back to the same pair).
    if (a.type_index() >= kTVMFFIStaticObjectBegin && a.type_index() == b.type_index() &&
        a.raw()->v_obj == b.raw()->v_obj) {
      return 0;
    }
    Kind ka = KindOf(a), kb = KindOf(b);
    if (ka != kb) {
      // None orders before everything else.
      if (order_ && ka == Kind::kNone) return -1;
      if (order_ && kb == Kind::kNone) return 1;
      return Unordered(a, b);
    }
    if (a.type_index() < kTVMFFIStaticObjectBegin || b.type_index() < kTVMFFIStaticObjectBegin) {
      return CompareKind(a, b, ka);
    }
    stack_.Check();
    // Only a pair of shared objects can be met again. While it is compared, meeting it again
    // (two cycles walked in step) takes it as equal: nothing found so far tells them apart (an
    // order cannot be decided that way). Once found equal, it is equal for the rest of the walk,
    // so a shared (DAG-shaped) value costs what its distinct parts cost.
    if (!MaybeShared(ObjectOf(a), held) || !MaybeShared(ObjectOf(b), held)) {
      return CompareKind(a, b, ka);
    }
    std::pair<const void*, const void*> pair(a.raw()->v_obj, b.raw()->v_obj);
    auto [it, inserted] = pairs_.try_emplace(pair, false);
    if (!inserted) {
      if (!it->second && ordering_) {
        FFI_THROW(ValueError) << "Cannot order values with a cyclic reference";
      }
      return 0;  // equal before, or a cycle
    }
    int result;
    try {
      result = CompareKind(a, b, ka);
    } catch (...) {
      pairs_.erase(pair);
      throw;
    }
    if (result == 0) {
      pairs_[pair] = true;
    } else {
      pairs_.erase(pair);
    }
    return result;
  }

 private:
  int CompareKind(const AnyView& a, const AnyView& b, Kind ka) {
    switch (ka) {
      case Kind::kNone:
        return 0;
      case Kind::kInt:
        if (a.type_index() == kTVMFFIBigInt || b.type_index() == kTVMFFIBigInt) {
          BigInt x = a.cast<BigInt>(), y = b.cast<BigInt>();
          return x < y ? -1 : (x > y ? 1 : 0);
        }
        [[fallthrough]];
      case Kind::kBool: {
        int64_t x = a.raw()->v_int64, y = b.raw()->v_int64;
        return x < y ? -1 : (x > y ? 1 : 0);
      }
      case Kind::kFloat:
        return CompareFloats(a.raw()->v_float64, b.raw()->v_float64);
      case Kind::kString:
      case Kind::kBytes:
        return ContentOf(*a.raw()).compare(ContentOf(*b.raw()));
      case Kind::kSequence:
        return CompareSequences(a, b);
      case Kind::kShape:
        return CompareShapes(a.cast<Shape>(), b.cast<Shape>());
      case Kind::kMapping:
        return CompareMappings(a, b);
      case Kind::kPod:
        if (a.type_index() != b.type_index()) return Unordered(a, b);
        return std::memcmp(&a.raw()->v_int64, &b.raw()->v_int64, sizeof(int64_t));
      case Kind::kObject:
        return CompareObjects(a, b);
    }
    return 0;
  }

  /*! \brief Two values with no order between them: unequal, or TypeError when ordering. */
  int Unordered(const AnyView& a, const AnyView& b) {
    if (order_) {
      FFI_THROW(TypeError) << "Cannot order `" << TypeKey(a.type_index()) << "` and `"
                           << TypeKey(b.type_index()) << "`";
    }
    return 1;
  }

  /*! \brief NaN equals NaN (whatever its payload), but has no order. */
  int CompareFloats(double x, double y) const {
    if (std::isnan(x) || std::isnan(y)) {
      if (order_) FFI_THROW(TypeError) << "Cannot order NaN";
      return std::isnan(x) && std::isnan(y) ? 0 : 1;
    }
    return Sign(x - y);
  }

  int CompareSequences(const AnyView& a, const AnyView& b) {
    if (a.type_index() != b.type_index()) return Unordered(a, b);
    const auto* x = static_cast<const SeqBaseObj*>(ObjectOf(a));
    const auto* y = static_cast<const SeqBaseObj*>(ObjectOf(b));
    size_t n = x->size() < y->size() ? x->size() : y->size();
    for (size_t i = 0; i < n; ++i) {
      if (int c = Compare(x->begin()[i], y->begin()[i])) return c;
    }
    return x->size() < y->size() ? -1 : (x->size() > y->size() ? 1 : 0);
  }

  static int CompareShapes(const Shape& x, const Shape& y) {
    size_t n = x.size() < y.size() ? x.size() : y.size();
    for (size_t i = 0; i < n; ++i) {
      if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }

  int CompareMappings(const AnyView& a, const AnyView& b) {
    if (a.type_index() != b.type_index()) return Unordered(a, b);
    bool equal = a.type_index() == kTVMFFIMap ? SameEntries(a.cast<Map<Any, Any>>(), b)
                                              : SameEntries(a.cast<Dict<Any, Any>>(), b);
    if (equal) return 0;
    return Unordered(a, b);
  }

  template <typename M>
  bool SameEntries(const M& x, const AnyView& b) {
    M y = b.cast<M>();
    if (x.size() != y.size()) return false;
    bool order = order_;
    order_ = false;  // Entries are only tested for equality (keeping the walk's open pairs).
    bool same = true;
    for (const auto& kv : x) {
      auto it = y.find(kv.first);
      if (it == y.end() || Compare((*it).second, kv.second) != 0) {
        same = false;
        break;
      }
    }
    order_ = order;
    return same;
  }

  int CompareObjects(const AnyView& a, const AnyView& b) {
    const Object* x = a.raw()->v_obj ? reinterpret_cast<const Object*>(a.raw()->v_obj) : nullptr;
    const Object* y = b.raw()->v_obj ? reinterpret_cast<const Object*>(b.raw()->v_obj) : nullptr;
    if (x == y) return 0;
    if (a.type_index() != b.type_index()) return Unordered(a, b);
    int32_t type_index = a.type_index();
    if (!order_) {
      AnyView hook = reflection::TypeAttrColumn(type_attr::kEq)[type_index];
      if (hook != nullptr) {
        Function recurse = Function::FromTyped(
            [](AnyView l, AnyView r) { return Comparer(false).Compare(l, r) == 0; });
        return hook.cast<Function>()(a, b, recurse).cast<bool>() ? 0 : 1;
      }
    }
    AnyView cmp = reflection::TypeAttrColumn(type_attr::kCompare)[type_index];
    if (cmp != nullptr) {
      bool order = order_;
      Function recurse = Function::FromTyped([order](AnyView l, AnyView r) {
        return static_cast<int32_t>(Comparer(order).Compare(l, r));
      });
      return cmp.cast<Function>()(a, b, recurse).cast<int32_t>();
    }
    // Objects of one type without fields are all equal (as in TVM-FFI).
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    int result = 0;
    reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskCompareOff) return false;
      reflection::FieldGetter get(field);
      Any fx = get(x), fy = get(y);  // one reference each of the walk's own
      result = Compare(fx, fy, 1);
      return result != 0;
    });
    return result;
  }

  /*! \brief Whether the current values must be ordered (off inside map entries). */
  bool order_;
  /*! \brief Whether the caller asked for an order (the whole walk). */
  bool ordering_;
  /*! \brief Pairs of shared objects being compared (false) or found equal (true). */
  std::map<std::pair<const void*, const void*>, bool> pairs_;
  StackLimit stack_{"recursive comparison"};
};

/*!
 * \brief One ffi.RecursiveHash computation: the reference runtime's values, bit for bit (the
 * convention's StableHashCombine throughout). None is (0, 0); a string or bytes value, whatever
 * its storage, (kTVMFFIStr or kTVMFFIBytes, hash of the content); another POD (type index,
 * value), a bool as 0 or 1, a float with every NaN one NaN and -0.0 as 0.0, a dtype and a device
 * field by field. Arrays and lists start from (type key hash, size) and fold (element hash,
 * position) per element; maps and dicts fold (key hash, value hash) per entry in ascending order;
 * shapes fold their dimensions; other objects start from their type key's hash and fold each
 * field not flagged hash-off or compare-off, or take their `__ffi_hash__` hook's result. An object
 * met again is its first hash; one met inside itself (a cycle) is its type key's hash.
 */
class RecursiveHasher {
 public:
  /*! \brief The hash of `v`; `held` references to it are the walk's own (a field's value, copied
   * out of its object), which MaybeShared discounts. */
  uint64_t Hash(const AnyView& v, uint32_t held = 0) {
    using ffi::detail::StableHashCombine;
    const TVMFFIAny& a = *v.raw();
    int32_t index = a.type_index;
    switch (KindOf(v)) {
      case Kind::kNone:
        return StableHashCombine(0, 0);
      case Kind::kString:
        return HashContentAs(kTVMFFIStr, a);
      case Kind::kBytes:
        return HashContentAs(kTVMFFIBytes, a);
      case Kind::kBool:
        return StableHashCombine(index, a.v_int64 != 0 ? 1 : 0);
      case Kind::kFloat: {
        double d = a.v_float64;
        if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();  // every NaN alike
        if (d == 0) d = 0;                                                // -0.0 == 0.0
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof(bits));
        return StableHashCombine(index, bits);
      }
      case Kind::kPod:
        if (index == kTVMFFIDataType) {
          uint64_t h = StableHashCombine(StableHashCombine(index, a.v_dtype.code), a.v_dtype.bits);
          return StableHashCombine(h, a.v_dtype.lanes);
        }
        if (index == kTVMFFIDevice) {
          return StableHashCombine(
              StableHashCombine(index, static_cast<uint64_t>(a.v_device.device_type)),
              static_cast<uint64_t>(a.v_device.device_id));
        }
        return StableHashCombine(index, a.v_uint64);
      case Kind::kInt:
        if (index == kTVMFFIInt) return StableHashCombine(index, a.v_uint64);
        return HashObject(v, held);  // a big integer: its __ffi_hash__
      default:                       // containers and other objects
        return HashObject(v, held);
    }
  }

 private:
  /*! \brief A string's or bytes' hash, whatever its storage: as the object of type `index`. */
  static uint64_t HashContentAs(int32_t index, const TVMFFIAny& a) {
    std::string_view content = ContentOf(a);
    return ffi::detail::StableHashCombine(
        index, ffi::detail::StableHashBytes(content.data(), content.size()));
  }

  /*! \brief An object's hash: once per walk for a shared one (ObjectHashMemo), the type key's
   * hash for the back edge of a cycle. */
  uint64_t HashObject(const AnyView& v, uint32_t held) {
    TVMFFIObject* obj = v.raw()->v_obj;
    int32_t index = v.type_index();
    uint64_t type_key_hash = TVMFFIGetTypeInfo(index)->type_key_hash;
    stack_.Check();
    // Only a shared object can be met again (MaybeShared): nothing else is recorded.
    if (!MaybeShared(ObjectOf(v), held)) return HashContent(v, index, type_key_hash);
    uint64_t h = type_key_hash;
    ObjectHashMemo::State state = memo_.Open(obj, &h);
    if (state != ObjectHashMemo::State::kNew) return h;  // done, or a cycle's back edge
    try {
      h = HashContent(v, index, type_key_hash);
    } catch (...) {
      memo_.Drop(obj);
      throw;
    }
    memo_.Close(obj, h);
    return h;
  }

  uint64_t HashContent(const AnyView& v, int32_t index, uint64_t h) {
    using ffi::detail::StableHashCombine;
    switch (index) {
      case kTVMFFIArray:
      case kTVMFFIList: {
        const auto* seq = static_cast<const SeqBaseObj*>(ObjectOf(v));
        h = StableHashCombine(h, seq->size());
        uint64_t position = 0;
        for (const Any& item : *seq)
          h = StableHashCombine(h, StableHashCombine(Hash(item), position++));
        return h;
      }
      case kTVMFFIMap:
      case kTVMFFIDict: {
        const auto* map = static_cast<const MapBaseObj*>(ObjectOf(v));
        h = StableHashCombine(h, map->size());
        std::vector<uint64_t> entries;
        entries.reserve(map->size());
        for (const auto& kv : *map)
          entries.push_back(StableHashCombine(Hash(kv.first), Hash(kv.second)));
        std::sort(entries.begin(), entries.end());
        for (uint64_t entry : entries) h = StableHashCombine(h, entry);
        return h;
      }
      case kTVMFFIShape: {
        Shape shape = v.cast<Shape>();
        h = StableHashCombine(h, shape.size());
        for (int64_t d : shape) h = StableHashCombine(h, static_cast<uint64_t>(d));
        return h;
      }
      default:
        break;
    }
    static reflection::TypeAttrColumn hash_hook(type_attr::kHash);
    if (AnyView hook = hash_hook[index]; hook != nullptr) {
      if (!hash_part_.defined()) {
        hash_part_ = Function::FromTyped([this](AnyView part) {
          Any owned = part;  // a borrowed C string or byte array hashes as what it holds
          return static_cast<int64_t>(Hash(owned, /*held=*/1));
        });
      }
      return static_cast<uint64_t>(hook.cast<Function>()(v, hash_part_).cast<int64_t>());
    }
    // A type that defines its own equality but no hash has no hash consistent with it.
    static reflection::TypeAttrColumn eq_hook(type_attr::kEq), compare_hook(type_attr::kCompare);
    if (index >= kTVMFFIStaticObjectEnd &&
        (eq_hook[index] != nullptr || compare_hook[index] != nullptr)) {
      FFI_THROW(ValueError)
          << "Cannot hash `" << TypeKey(index)
          << "`: the type defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__";
    }
    // Fields only (objects of one type without fields are all equal, so hash alike).
    const Object* obj = ObjectOf(v);
    reflection::ForEachFieldInfo(TVMFFIGetTypeInfo(index), [&](const TVMFFIFieldInfo* field) {
      if (field->flags & (kTVMFFIFieldFlagBitMaskCompareOff | kTVMFFIFieldFlagBitMaskHashOff))
        return;
      Any value = reflection::FieldGetter(field)(obj);
      h = StableHashCombine(h, Hash(value, /*held=*/1));
    });
    return h;
  }

  ObjectHashMemo memo_;
  Function hash_part_;
  StackLimit stack_{"ffi.RecursiveHash"};
};

/*! \brief ffi.RecursiveHash: a hash consistent with Comparer(false), equal values alike. */
uint64_t RecursiveHash(const AnyView& v) {
  Any owned = v;  // a borrowed C string or byte array hashes as the string or bytes it holds
  return RecursiveHasher().Hash(owned, /*held=*/1);
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def(
          "ffi.RecursiveEq",
          [](AnyView a, AnyView b) { return Comparer(false).Compare(a, b) == 0; },
          "Whether two values are equal by content (recursing through containers and fields).")
      .def(
          "ffi.RecursiveLt", [](AnyView a, AnyView b) { return Comparer(true).Compare(a, b) < 0; },
          "Content order: a < b.")
      .def(
          "ffi.RecursiveLe", [](AnyView a, AnyView b) { return Comparer(true).Compare(a, b) <= 0; },
          "Content order: a <= b.")
      .def(
          "ffi.RecursiveGt", [](AnyView a, AnyView b) { return Comparer(true).Compare(a, b) > 0; },
          "Content order: a > b.")
      .def(
          "ffi.RecursiveGe", [](AnyView a, AnyView b) { return Comparer(true).Compare(a, b) >= 0; },
          "Content order: a >= b.")
      .def(
          "ffi.RecursiveHash", [](AnyView v) { return static_cast<int64_t>(RecursiveHash(v)); },
          "A content hash consistent with ffi.RecursiveEq.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
