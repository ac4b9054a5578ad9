// Internal to the runtime: the typed callback entries that the structural traversal globals
// (structural_visit.cc: ffi.StructuralWalk / ffi.StructuralVisit; structural_mutate.cc:
// ffi.StructuralMap / ffi.StructuralMutate) take from their callers, and how a value picks its
// entry.
//
// An entry is a tuple (type_index, callback[, flag]). A value takes the first entry whose type
// index is its own, an ancestor of its own (ffi.Object: every object), or -1 (any value); strings
// and bytes match as ffi.String / ffi.Bytes whatever their storage.
#ifndef FFI_RUNTIME_STRUCTURAL_CALLBACKS_H_
#define FFI_RUNTIME_STRUCTURAL_CALLBACKS_H_

#include <ffi/container/array.h>
#include <ffi/function.h>

#include <cstdint>
#include <vector>

#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace structural {

/*! \brief The type index an entry gives to match any value (typing.Any on the Python side). */
constexpr int64_t kAnyTypeIndex = -1;

/*! \brief One callback and the type it is for. */
struct CallbackEntry {
  /*! \brief The type it matches (kAnyTypeIndex: every value). */
  int32_t type_index;
  /*! \brief The callback. */
  Function callback;
  /*! \brief The entry's extra meaning: its list's flag, or its own third element. */
  bool flag;
};

/*! \brief Whether an entry for `target` takes a value of type `index`. */
inline bool EntryMatches(int32_t target, int32_t index) {
  if (IsString(index)) index = kTVMFFIStr;
  if (IsBytes(index)) index = kTVMFFIBytes;
  if (target == kAnyTypeIndex || target == index) return true;
  if (target < kTVMFFIStaticObjectBegin || index < kTVMFFIStaticObjectBegin) return false;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  const TVMFFITypeInfo* base = TVMFFIGetTypeInfo(target);
  if (info == nullptr || base == nullptr || base->type_depth >= info->type_depth) return false;
  return info->type_ancestors[base->type_depth]->type_index == target;
}

/*!
 * \brief Appends the entries of `items` to `out`: each (type_index, callback), or with
 * `with_flag` (type_index, callback, bool) whose bool becomes the entry's flag; otherwise the
 * flag is `flag`. `api` names the global in messages.
 */
inline void ParseCallbackEntries(const char* api, const Array<Any>& items, bool with_flag,
                                 bool flag, std::vector<CallbackEntry>* out) {
  const size_t arity = with_flag ? 3 : 2;
  const char* shape = with_flag ? "(type_index, callback, bool)" : "(type_index, callback)";
  for (const Any& item : items) {
    auto entry = item.try_cast<Array<Any>>();
    if (!entry.has_value() || entry->size() != arity) {
      FFI_THROW(TypeError) << api << ": each callback entry is a " << shape << " tuple, got `"
                           << TypeKey(item.type_index()) << "`"
                           << (entry.has_value() ? " of the wrong length" : "");
    }
    auto index = (*entry)[0].try_cast<int64_t>();
    auto callback = (*entry)[1].try_cast<Function>();
    std::optional<bool> entry_flag = with_flag ? (*entry)[2].try_cast<bool>() : flag;
    if (!index.has_value() || !callback.has_value() || !entry_flag.has_value()) {
      FFI_THROW(TypeError) << api << ": a callback entry is " << shape << ", got ("
                           << TypeKey((*entry)[0].type_index()) << ", "
                           << TypeKey((*entry)[1].type_index()) << (with_flag ? ", " : "")
                           << (with_flag ? TypeKey((*entry)[2].type_index()) : "") << ")";
    }
    if (*index != kAnyTypeIndex && (*index < 0 || *index > INT32_MAX ||
                                    TVMFFIGetTypeInfo(static_cast<int32_t>(*index)) == nullptr)) {
      FFI_THROW(TypeError) << api << ": no type has index " << *index
                           << " (-1 stands for any value)";
    }
    out->push_back({static_cast<int32_t>(*index), *std::move(callback), *entry_flag});
  }
}

/*! \brief The first entry matching a value of type `index`, or null. */
inline const CallbackEntry* FindEntry(const std::vector<CallbackEntry>& entries, int32_t index) {
  for (const CallbackEntry& entry : entries) {
    if (EntryMatches(entry.type_index, index)) return &entry;
  }
  return nullptr;
}

/*! \brief A def region kind given as an integer (Python's DefRegionKind), checked. */
inline TVMFFIDefRegionKind DefRegionFromInt(int64_t kind) {
  if (kind < kTVMFFIDefRegionKindNone || kind > kTVMFFIDefRegionKindSimple) {
    FFI_THROW(ValueError) << "A def region kind is 0 (NONE), 1 (DEF_PATTERN) or 2 (DEF_SIMPLE), "
                          << "got " << kind;
  }
  return static_cast<TVMFFIDefRegionKind>(kind);
}

}  // namespace structural
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_RUNTIME_STRUCTURAL_CALLBACKS_H_
