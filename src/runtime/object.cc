// Reference counting, the type registry and small process-wide services of the C ABI.
#include <ffi/error.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*!
 * \brief Number of type indices the table holds. TVMFFITypeGetOrAllocIndex refuses a static index,
 * parent index or reserved child range (index + 1 + num_child_slots) beyond it, and a negative
 * child-slot count; so no count or index it is given can overflow.
 */
constexpr int32_t kMaxTypeIndex = 1 << 14;

/*! \brief A registered type: the ABI record plus the storage it points into. */
struct TypeEntry {
  TVMFFITypeInfo info{};
  std::string key;
  std::vector<const TVMFFITypeInfo*> ancestors;
  int32_t num_child_slots = 0;
  int32_t used_child_slots = 0;
  bool child_slots_can_overflow = true;
};

/*!
 * \brief The type table. Registration takes a lock; lookups by index (TVMFFIGetTypeInfo, on the
 * IsInstance path) read an atomic slot without one. Entries are never removed.
 */
class TypeTable {
 public:
  static TypeTable* Global() {
    static TypeTable* table = new TypeTable();  // Never destroyed: objects may outlive main().
    return table;
  }

  const TVMFFITypeInfo* Get(int32_t index) const {
    if (index < 0 || index >= kMaxTypeIndex) return nullptr;
    const TypeEntry* e = slots_[index].load(std::memory_order_acquire);
    return e ? &e->info : nullptr;
  }

  int32_t Lookup(std::string_view key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_key_.find(std::string(key));
    return it == by_key_.end() ? -2 : it->second;
  }

  int32_t GetOrAlloc(std::string_view key, int32_t static_index, int32_t depth,
                     int32_t num_child_slots, bool can_overflow, int32_t parent_index) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_key_.find(std::string(key));
    if (it != by_key_.end()) return it->second;
    if (parent_index == -2) return -2;
    CheckNewType(key, static_index, depth, num_child_slots, parent_index);
    TypeEntry* parent = nullptr;
    if (parent_index >= 0) {
      parent = parent_index < kMaxTypeIndex ? slots_[parent_index].load() : nullptr;
      if (parent == nullptr) {
        FFI_THROW(KeyError) << "Cannot register type `" << key << "`: parent type index "
                            << parent_index << " is not registered";
      }
      if (depth != parent->info.type_depth + 1) {
        FFI_THROW(ValueError) << "Cannot register type `" << key << "`: depth " << depth
                              << " does not follow its parent `" << parent->key << "` at depth "
                              << parent->info.type_depth;
      }
    }
    int32_t index = static_index;
    // A type inside its parent's reserved range takes its own reserved range there too.
    bool in_parent_slots = false;
    if (index < 0) {
      int32_t needed = 1 + num_child_slots;
      if (parent != nullptr && parent->used_child_slots + needed <= parent->num_child_slots) {
        index = parent->info.type_index + 1 + parent->used_child_slots;
        in_parent_slots = true;
      } else if (parent == nullptr || parent->child_slots_can_overflow) {
        index = next_dynamic_index_;
      } else {
        FFI_THROW(ValueError) << "Cannot register type `" << key << "`: parent `" << parent->key
                              << "` has no free child slot and does not allow overflow";
      }
    }
    if (index + 1 + num_child_slots > kMaxTypeIndex) {
      FFI_THROW(RuntimeError) << "Cannot register type `" << key << "`: the type table ("
                              << kMaxTypeIndex << " indices) has no room for index " << index
                              << " and " << num_child_slots << " child slots";
    }
    if (slots_[index].load() != nullptr) {
      FFI_THROW(ValueError) << "Cannot register type `" << key << "` at index " << index
                            << ": taken by `" << slots_[index].load()->key << "`";
    }
    if (in_parent_slots) parent->used_child_slots += 1 + num_child_slots;
    if (index >= next_dynamic_index_) next_dynamic_index_ = index + 1 + num_child_slots;

    auto entry = std::make_unique<TypeEntry>();
    entry->key = std::string(key);
    entry->num_child_slots = num_child_slots;
    entry->child_slots_can_overflow = can_overflow;
    if (parent != nullptr) {
      entry->ancestors = parent->ancestors;
      entry->ancestors.push_back(&parent->info);
    }
    entry->info.type_index = index;
    entry->info.type_depth = parent ? depth : 0;
    entry->info.type_key = {entry->key.data(), entry->key.size()};
    entry->info.type_ancestors = entry->ancestors.data();
    entry->info.type_key_hash = std::hash<std::string>()(entry->key);
    by_key_[entry->key] = index;
    slots_[index].store(entry.release(), std::memory_order_release);
    return index;
  }

 private:
  /*! \brief Refuses arguments no new type can have (ValueError), before any is used. */
  static void CheckNewType(std::string_view key, int32_t static_index, int32_t depth,
                           int32_t num_child_slots, int32_t parent_index) {
    if (static_index < -1 || static_index >= kMaxTypeIndex) {
      FFI_THROW(ValueError) << "Cannot register type `" << key << "`: static type index "
                            << static_index << " is outside [-1, " << kMaxTypeIndex << ")";
    }
    if (num_child_slots < 0 || num_child_slots >= kMaxTypeIndex) {
      FFI_THROW(ValueError) << "Cannot register type `" << key << "`: " << num_child_slots
                            << " child slots is outside [0, " << kMaxTypeIndex << ")";
    }
    if (parent_index < -1 || parent_index >= kMaxTypeIndex) {
      FFI_THROW(ValueError) << "Cannot register type `" << key << "`: parent type index "
                            << parent_index << " is outside [-1, " << kMaxTypeIndex << ")";
    }
    if (parent_index == -1 && depth != 0) {
      FFI_THROW(ValueError) << "Cannot register type `" << key << "`: a root type has depth 0, not "
                            << depth;
    }
  }

  TypeTable() {
    // Value kinds: their keys appear in messages of libraries built with either set of headers.
    const char* pod_keys[] = {"None",
                              "int",
                              "bool",
                              "float",
                              "void*",
                              "DataType",
                              "Device",
                              "DLTensor*",
                              "const char*",
                              "TVMFFIByteArray*",
                              "ObjectRValueRef",
                              "ffi.SmallStr",
                              "ffi.SmallBytes",
                              "ffi.Unchanged"};
    for (int32_t i = 0; i <= kTVMFFIUnchanged; ++i) {
      GetOrAlloc(pod_keys[i], i, 0, 0, false, -1);
    }
    GetOrAlloc("ffi.Object", kTVMFFIObject, 0, 0, true, -1);
    next_dynamic_index_ = kTVMFFIDynObjectBegin;
    const char* object_keys[] = {"ffi.String",         "ffi.Bytes", "ffi.Error",
                                 "ffi.Function",       "ffi.Shape", "ffi.Tensor",
                                 "ffi.Array",          "ffi.Map",   "ffi.Module",
                                 "ffi.OpaquePyObject", "ffi.List",  "ffi.Dict",
                                 "ffi.VisitInterrupt", "ffi.BigInt"};
    for (int32_t i = kTVMFFIStr; i < kTVMFFIStaticObjectEnd; ++i) {
      GetOrAlloc(object_keys[i - kTVMFFIStr], i, 1, 0, true, kTVMFFIObject);
    }
    next_dynamic_index_ = kTVMFFIDynObjectBegin;
  }

  std::mutex mutex_;
  std::unordered_map<std::string, int32_t> by_key_;
  int32_t next_dynamic_index_ = kTVMFFIDynObjectBegin;
  std::atomic<TypeEntry*> slots_[kMaxTypeIndex] = {};
};

/*! \brief An object wrapping a foreign handle (a PyObject* for Python). */
class OpaqueObj : public Object, public TVMFFIOpaqueObjectCell {
 public:
  OpaqueObj(void* h, void (*deleter)(void*)) : deleter_(deleter) { handle = h; }
  ~OpaqueObj() {
    if (deleter_ != nullptr) deleter_(handle);
  }
  static int32_t RuntimeTypeIndex() { return kTVMFFIOpaquePyObject; }

 private:
  void (*deleter_)(void*);
};

/*! \brief A type key from the C ABI: ValueError when it, or its bytes, are NULL. */
std::string_view CheckedKey(const TVMFFIByteArray* key, const char* where) {
  if (key == nullptr || (key->data == nullptr && key->size != 0)) {
    FFI_THROW(ValueError) << where << ": the type key is NULL";
  }
  return std::string_view(key->data, key->size);
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using ffi::runtime::CheckedKey;
using ffi::runtime::TypeTable;

extern "C" {

void TVMFFIGetVersion(TVMFFIVersion* out) {
  if (out == nullptr) return;  // No error channel: nothing to write to, nothing done.
  out->major = TVM_FFI_VERSION_MAJOR;
  out->minor = TVM_FFI_VERSION_MINOR;
  out->patch = TVM_FFI_VERSION_PATCH;
}

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj) {
  if (obj != nullptr) ffi::detail::ObjectUnsafe::IncRef(obj);
  return 0;
}

int TVMFFIObjectDecRef(TVMFFIObjectHandle obj) {
  if (obj != nullptr) ffi::detail::ObjectUnsafe::DecRef(obj);
  return 0;
}

int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index, void (*deleter)(void* handle),
                             TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (out == nullptr) FFI_THROW(ValueError) << "TVMFFIObjectCreateOpaque: out is NULL";
  if (type_index != kTVMFFIOpaquePyObject) {
    FFI_THROW(ValueError) << "TVMFFIObjectCreateOpaque: type index must be kTVMFFIOpaquePyObject ("
                          << kTVMFFIOpaquePyObject << "), got " << type_index;
  }
  auto obj = ffi::make_object<ffi::runtime::OpaqueObj>(handle, deleter);
  *out = ffi::detail::ObjectUnsafe::Header(obj.release());
  FFI_SAFE_CALL_END();
}

int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex) {
  FFI_SAFE_CALL_BEGIN();
  std::string_view key = CheckedKey(type_key, "TVMFFITypeKeyToIndex");
  if (out_tindex == nullptr) FFI_THROW(ValueError) << "TVMFFITypeKeyToIndex: out is NULL";
  int32_t index = TypeTable::Global()->Lookup(key);
  if (index == -2) FFI_THROW(KeyError) << "Type key `" << key << "` is not registered";
  *out_tindex = index;
  FFI_SAFE_CALL_END();
}

int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  int32_t child_slots_can_overflow, int32_t parent_type_index) {
  try {
    return TypeTable::Global()->GetOrAlloc(CheckedKey(type_key, "TVMFFITypeGetOrAllocIndex"),
                                           static_type_index, type_depth, num_child_slots,
                                           child_slots_can_overflow != 0, parent_type_index);
  } catch (...) {
    // No error channel in this signature: raise the error and return -1.
    ffi::detail::SetRaisedFromException(std::current_exception());
    return -1;
  }
}

const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index) {
  return TypeTable::Global()->Get(type_index);
}

// One lock for TVMFFIHandleInitOnce/DeinitOnce: they are rare and must exclude each other.
static std::mutex handle_init_mutex;

int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result)) {
  if (handle_addr == nullptr || init_func == nullptr) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "TVMFFIHandleInitOnce: NULL argument");
    return -1;
  }
  void* current = __atomic_load_n(handle_addr, __ATOMIC_ACQUIRE);
  if (current != nullptr) return 0;
  std::lock_guard<std::mutex> lock(handle_init_mutex);
  if (*handle_addr != nullptr) return 0;
  void* result = nullptr;
  int rc = init_func(&result);
  if (rc != 0) return rc;
  if (result == nullptr) {  // NULL means "not initialized": it cannot be the result
    TVMFFIErrorSetRaisedFromCStr("RuntimeError",
                                 "TVMFFIHandleInitOnce: the init function returned a NULL handle");
    return -1;
  }
  __atomic_store_n(handle_addr, result, __ATOMIC_RELEASE);
  return 0;
}

int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle)) {
  if (handle_addr == nullptr || deinit_func == nullptr) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "TVMFFIHandleDeinitOnce: NULL argument");
    return -1;
  }
  std::lock_guard<std::mutex> lock(handle_init_mutex);
  void* handle = *handle_addr;
  if (handle == nullptr) return 0;
  int rc = deinit_func(handle);
  // Cleared even when deinit failed: the handle was handed over and must not be used again.
  __atomic_store_n(handle_addr, nullptr, __ATOMIC_RELEASE);
  return rc;
}

}  // extern "C"
