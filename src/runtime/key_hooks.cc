// Map-key hooks registered as native function pointers are stored as Function objects that call
// them (reflection_table.h, KeyHookToStore).
//
// A type's `__any_hash__` and `__any_equal__` are read and called inline by every library that
// hashes or compares Map and Dict keys, whichever library registered them. Their native form
// changed convention in reference 0.1.15 (`int64_t`/`bool` results before, `TVMFFIAny` after;
// include/ffi/any_hash.h), and code built against either release calls a native hook its
// own way: a hook of one convention is misread by code of the other. A Function is called alike by
// both. So the runtime stores a Function that calls the native hook and tells its convention from
// what comes back, and every caller, old or new, gets the registered hook's answer.
#include <ffi/any.h>
#include <ffi/any_hash.h>
#include <ffi/function.h>

#include <mutex>
#include <string_view>
#include <unordered_map>

#include "reflection_table.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The native equality hooks registered so far, by type: a hash hook whose result is
 * ambiguous asks its type's (the column holds the Function, not the pointer). */
struct NativeEqualHooks {
  std::mutex mutex;
  std::unordered_map<int32_t, void*> hooks;

  static NativeEqualHooks* Get() {
    static NativeEqualHooks* table = new NativeEqualHooks();  // hooks are called until exit
    return table;
  }
  static void* Find(int32_t type_index) {
    NativeEqualHooks* table = Get();
    std::lock_guard<std::mutex> lock(table->mutex);
    auto it = table->hooks.find(type_index);
    return it == table->hooks.end() ? nullptr : it->second;
  }
};

/*! \brief The one value of a hook call, checked: `name` takes `n` values. */
const TVMFFIAny* HookArgs(PackedArgs args, int32_t n, const char* name) {
  if (args.size() != n) {
    FFI_THROW(TypeError) << "The native " << name << " hook takes " << n << " values, got "
                         << args.size();
  }
  return args.raw();
}

}  // namespace

Any KeyHookToStore(int32_t type_index, std::string_view name, const TVMFFIAny& value) {
  Any stored = AnyView::FromRaw(value);
  if (value.type_index != kTVMFFIOpaquePtr || value.v_ptr == nullptr) return stored;
  void* fn = value.v_ptr;
  if (name == "__any_hash__") {
    return Function::FromPacked([fn](PackedArgs args, Any* result) {
      const TVMFFIAny* v = HookArgs(args, 1, "__any_hash__");
      *result = static_cast<int64_t>(detail::HashFromNative(fn, v[0], NativeEqualHooks::Find));
    });
  }
  if (name == "__any_equal__") {
    {
      NativeEqualHooks* table = NativeEqualHooks::Get();
      std::lock_guard<std::mutex> lock(table->mutex);
      table->hooks.emplace(type_index, fn);  // the first registration stands, as in the column
    }
    return Function::FromPacked([fn](PackedArgs args, Any* result) {
      const TVMFFIAny* v = HookArgs(args, 2, "__any_equal__");
      *result = detail::EqualFromNative(fn, v[0], v[1]);
    });
  }
  return stored;
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
