// Internal to the runtime: what structural equality (structural_equal.cc) and structural hashing
// (structural_hash.cc) share, so that the two agree on every rule (equal values hash alike).
//
// The rules, for both:
// - Values of different type indices differ, except that a string (or bytes) compares by content
//   whatever its storage. Integers and bools by value, floats by their bits with NaN equal to NaN,
//   dtypes and devices by their fields, pointers by address.
// - Strings and bytes by content; arrays, lists and shapes element by element; maps and dicts by
//   their entries; tensors by dtype, device and shape, and by content unless skip_tensor_content
//   (content only on the CPU: ValueError elsewhere).
// - Functions, errors and Python objects by identity.
// - Reflected objects by their type's TVMFFISEqHashKind (TVMFFITypeMetadata): tree and const-tree
//   nodes field by field (fields flagged SEqHashIgnore skipped, SEqHashDefPattern /
//   SEqHashDefSimple fields walked in a def region), DAG nodes likewise but sharing must match (a
//   bijection between the nodes of each side), free variables through a bijection bound in def
//   regions (or anywhere with map_free_vars; otherwise by identity), unique instances by
//   identity. A type with the unsupported kind (or no metadata) is a TypeError. A type may take
//   over with the `__s_equal__` / `__s_hash__` type attributes.
// - A walk that comes back to an object it is inside (a cycle) takes the pair as equal (and
//   hashes the back edge as a constant) instead of recursing forever.
#ifndef FFI_RUNTIME_STRUCTURAL_H_
#define FFI_RUNTIME_STRUCTURAL_H_

#include <ffi/any.h>
#include <ffi/c_api.h>
#include <ffi/error.h>
#include <ffi/tensor.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {

/*! \brief The structural kind of a reflected type (unsupported when it registered none). */
inline TVMFFISEqHashKind KindOf(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr || info->metadata == nullptr) return kTVMFFISEqHashKindUnsupported;
  return info->metadata->structural_eq_hash_kind;
}

/*! \brief The type key of `type_index`, for messages and stable hashes. */
inline std::string_view TypeKey(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) return "?";
  return std::string_view(info->type_key.data, info->type_key.size);
}

/*! \brief The TypeError for a type that did not declare a structural kind. */
[[noreturn]] inline void ThrowUnsupported(int32_t type_index, const char* what) {
  FFI_THROW(TypeError) << what << " is not supported for objects of type `" << TypeKey(type_index)
                       << "`: the type declares no structural kind (TVMFFISEqHashKind)";
}

/*! \brief The def region a field's flags ask for (None without SEqHashDef* flags). */
inline int64_t FieldRegionKind(int64_t flags) {
  // Both flags: simple, as the reference reads them.
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefSimple) return kTVMFFIDefRegionKindSimple;
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefPattern) return kTVMFFIDefRegionKindPattern;
  return kTVMFFIDefRegionKindNone;
}

/*! \brief The region a part asking for `requested` is walked in, inside region `current`: a
 * pattern region propagates; otherwise a def kind enters, None keeps the current region. */
inline TVMFFIDefRegionKind EnterRegion(TVMFFIDefRegionKind current, int64_t requested) {
  if (current == kTVMFFIDefRegionKindPattern) return current;
  if (requested == kTVMFFIDefRegionKindPattern || requested == kTVMFFIDefRegionKindSimple) {
    return static_cast<TVMFFIDefRegionKind>(requested);
  }
  return current;
}

/*! \brief Whether values of these type indices are strings (or bytes) in any storage. */
inline bool IsString(int32_t i) {
  return i == kTVMFFIStr || i == kTVMFFISmallStr || i == kTVMFFIRawStr;
}
inline bool IsBytes(int32_t i) {
  return i == kTVMFFIBytes || i == kTVMFFISmallBytes || i == kTVMFFIByteArrayPtr;
}

/*! \brief The content of a string or bytes value, in any storage, viewed in place (valid while
 * the value is). */
inline std::string_view ContentOf(const TVMFFIAny& v) {
  switch (v.type_index) {
    case kTVMFFIRawStr:
      return v.v_c_str == nullptr ? std::string_view() : std::string_view(v.v_c_str);
    case kTVMFFIByteArrayPtr: {
      const auto* bytes = static_cast<const TVMFFIByteArray*>(v.v_ptr);
      return bytes == nullptr ? std::string_view() : std::string_view(bytes->data, bytes->size);
    }
    default:
      return ffi::detail::BytesOfAny(v);
  }
}

/*! \brief Whether the object `obj` may be reached more than once in a walk: some reference to it
 * besides the one it was reached through and the `held` ones the walk itself added. An object
 * reached twice has two references inside the value (two parents, or a parent and a cycle's back
 * edge), so an unshared one is met once: walks keep per-object state only for shared ones. */
inline bool MaybeShared(const Object* obj, uint32_t held) { return obj->use_count() > 1 + held; }

/*!
 * \brief What a hashing walk records of the shared objects it reached: each one's hash once known.
 * It holds a reference to each for the walk, so that an address stays its object's (a field
 * getter may make a new object, freed after use, whose address a later one could take).
 */
class ObjectHashMemo {
 public:
  ObjectHashMemo() = default;
  ObjectHashMemo(const ObjectHashMemo&) = delete;
  ObjectHashMemo& operator=(const ObjectHashMemo&) = delete;
  ~ObjectHashMemo() {
    for (auto& [obj, entry] : entries_) TVMFFIObjectDecRef(obj);
  }

  /*! \brief Where `obj` stands: met for the first time (now open), open (a cycle), or done. */
  enum class State { kNew, kOpen, kDone };
  /*! \brief Opens `obj` when it is new; `*hash` is its hash when it is done. */
  State Open(TVMFFIObject* obj, uint64_t* hash) {
    auto [it, inserted] = entries_.try_emplace(obj);
    if (inserted) {
      TVMFFIObjectIncRef(obj);
      return State::kNew;
    }
    if (!it->second.done) return State::kOpen;
    *hash = it->second.hash;
    return State::kDone;
  }
  /*! \brief Records the hash of the open object `obj`. */
  void Close(TVMFFIObject* obj, uint64_t hash) {
    Entry& entry = entries_.at(obj);
    entry.hash = hash;
    entry.done = true;
  }
  /*! \brief Forgets the open object `obj` (its walk failed, or its hash must not be kept). */
  void Drop(TVMFFIObject* obj) {
    if (entries_.erase(obj) != 0) TVMFFIObjectDecRef(obj);
  }
  /*! \brief The hash of `obj` when it is done, else null. */
  const uint64_t* Find(const TVMFFIObject* obj) const {
    auto it = entries_.find(const_cast<TVMFFIObject*>(obj));
    return it != entries_.end() && it->second.done ? &it->second.hash : nullptr;
  }

 private:
  struct Entry {
    uint64_t hash = 0;
    bool done = false;
  };
  std::unordered_map<TVMFFIObject*, Entry> entries_;
};

/*! \brief Whether a tensor's memory is readable from the host. */
inline bool HostReadable(const DLDevice& device) {
  return device.device_type == kDLCPU || device.device_type == kDLCUDAHost ||
         device.device_type == kDLROCMHost || device.device_type == kDLCUDAManaged;
}

/*! \brief Whether `lhs` and `rhs` are structurally equal (structural_equal.cc). */
bool StructuralEqual(const AnyView& lhs, const AnyView& rhs, bool map_free_vars,
                     bool skip_tensor_content);

/*! \brief The structural hash of `value` (structural_hash.cc). */
uint64_t StructuralHash(const AnyView& value, bool map_free_vars, bool skip_tensor_content);

/*! \brief The object an object-holding value points to. */
inline const Object* ObjectOf(const AnyView& v) {
  return static_cast<const Object*>(
      ffi::detail::ObjectUnsafe::FromHeader(static_cast<void*>(v.raw()->v_obj)));
}

/*! \brief The walk's current def region, set to another for the scope's lifetime (restored on
 * exceptions too: a type hook may catch an error raised inside a walk and go on). */
class RegionScope {
 public:
  RegionScope(TVMFFIDefRegionKind* region, TVMFFIDefRegionKind inner)
      : region_(region), outer_(*region) {
    *region = inner;
  }
  ~RegionScope() { *region_ = outer_; }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;

 private:
  TVMFFIDefRegionKind* region_;
  TVMFFIDefRegionKind outer_;
};

/*! \brief Marks `key` (an object, or a pair of objects) as being walked for the scope's lifetime;
 * `entered()` is false when it already was (the walk came back into it: a cycle). */
template <typename Set>
class OpenScope {
 public:
  OpenScope(Set* open, typename Set::value_type key)
      : open_(open), key_(key), entered_(open->insert(key).second) {}
  ~OpenScope() {
    if (entered_) open_->erase(key_);
  }
  OpenScope(const OpenScope&) = delete;
  OpenScope& operator=(const OpenScope&) = delete;
  /*! \brief Whether the key was not open before. */
  bool entered() const { return entered_; }

 private:
  Set* open_;
  typename Set::value_type key_;
  bool entered_;
};

/*! \brief The elements of a host tensor, in row-major order, as bytes (strides followed). */
std::string TensorBytes(const DLTensor& t);

}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_RUNTIME_STRUCTURAL_H_
