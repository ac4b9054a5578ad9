// Functions made from C callbacks, the global function registry, strings and owned values.
#include <ffi/function.h>
#include <ffi/reflection/registry.h>

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "loading.h"

namespace tvm {
namespace ffi {
namespace runtime {

namespace {
/*! \brief This thread's innermost RegistrationFailureScope (a plain pointer: no destructor to
 * order against other thread-locals at exit). */
thread_local RegistrationFailureScope* innermost_scope = nullptr;
}  // namespace

RegistrationFailureScope::RegistrationFailureScope() : outer_(innermost_scope) {
  innermost_scope = this;
}

RegistrationFailureScope::~RegistrationFailureScope() { innermost_scope = outer_; }

bool RegistrationFailureScope::Record(const Error& error) {
  RegistrationFailureScope* scope = innermost_scope;
  if (scope == nullptr) return false;
  if (!scope->failure_.has_value()) scope->failure_ = error;
  return true;
}

namespace {

/*! \brief A Function object around a C callback and its resource handle. */
class ExternCFunctionObj : public FunctionObj {
 public:
  ExternCFunctionObj(void* self, TVMFFISafeCallType callback, void (*deleter)(void*))
      : self_(self), callback_(callback), deleter_(deleter) {
    this->safe_call = Call;
    this->cpp_call = nullptr;
  }
  ~ExternCFunctionObj() {
    if (deleter_ != nullptr) deleter_(self_);
  }

 private:
  static int Call(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    auto* obj = static_cast<ExternCFunctionObj*>(detail::ObjectUnsafe::FromHeader(handle));
    return obj->callback_(obj->self_, args, num_args, result);
  }
  void* self_;
  TVMFFISafeCallType callback_;
  void (*deleter_)(void*);
};

/*!
 * \brief Global functions by name. Lookups are frequent (every host resolves its entry points)
 * and registrations rare, hence a reader-writer lock. Never destroyed: libraries may register
 * and look up during process exit.
 */
class GlobalRegistry {
 public:
  static GlobalRegistry* Get() {
    static GlobalRegistry* registry = new GlobalRegistry();
    return registry;
  }
  /*!
   * \brief Registers `f` as `name`, with the metadata (JSON text) a method info gave it. A
   * replaced function is destroyed after the lock is released: its deleter (a Python callback's,
   * say) may call back into the registry or take other locks.
   */
  void Set(std::string name, Function f, bool allow_override, std::string metadata) {
    Entry replaced;
    bool refused = false;
    {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      auto it = table_.find(name);
      if (it == table_.end()) {
        table_.emplace(name, Entry{std::move(f), std::move(metadata)});
      } else if (allow_override) {
        replaced = std::exchange(it->second, Entry{std::move(f), std::move(metadata)});
      } else {
        refused = true;
      }
    }
    // RuntimeError, the reference's kind for it.
    if (refused)
      FFI_THROW(RuntimeError) << "Global function `" << name << "` is already registered";
  }
  Optional<Function> Find(std::string_view name) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it == table_.end()) return std::nullopt;
    return it->second.function;
  }
  /*! \brief The metadata `name` was registered with ("" when none); KeyError when absent. */
  std::string Metadata(std::string_view name) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it == table_.end()) FFI_THROW(KeyError) << "Global function `" << name << "` is not found";
    return it->second.metadata;
  }
  /*! \brief Removes `name`; the function is destroyed after the lock is released (see Set). */
  bool Remove(std::string_view name) {
    Entry removed;
    {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      auto it = table_.find(name);
      if (it == table_.end()) return false;
      removed = std::move(it->second);
      table_.erase(it);
    }
    return true;
  }
  std::vector<std::string> Names() {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    std::vector<std::string> names;
    names.reserve(table_.size());
    for (const auto& kv : table_) names.push_back(kv.first);
    return names;
  }

 private:
  /*! \brief A registered function and the metadata its registration carried. */
  struct Entry {
    Function function;
    std::string metadata;
  };
  std::shared_mutex mutex_;
  std::map<std::string, Entry, std::less<>> table_;
};

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def("ffi.FunctionRemoveGlobal",
           [](const std::string& name) { return GlobalRegistry::Get()->Remove(name); })
      .def("ffi.GetGlobalFuncMetadata",
           [](const std::string& name) { return GlobalRegistry::Get()->Metadata(name); })
      .def("ffi.FunctionFromExternC",
           [](void* self, void* safe_call, void* deleter) {
             // A C function pointer of the TVMFFISafeCallType kind, its closure `self`, and the
             // closure's deleter (or NULL), made a Function (ctypes callers build these).
             if (safe_call == nullptr) {
               FFI_THROW(ValueError) << "ffi.FunctionFromExternC: the safe-call pointer is NULL";
             }
             return Function::FromExternC(self, reinterpret_cast<TVMFFISafeCallType>(safe_call),
                                          reinterpret_cast<void (*)(void*)>(deleter));
           })
      .def("ffi.FunctionListGlobalNamesFunctor", []() {
        // A snapshot: f(-1) is the count, f(i) the i-th name (sorted).
        auto names = std::make_shared<std::vector<std::string>>(GlobalRegistry::Get()->Names());
        return Function::FromTyped([names](int64_t i) -> Any {
          if (i < 0) return static_cast<int64_t>(names->size());
          if (i >= static_cast<int64_t>(names->size())) {
            FFI_THROW(IndexError) << "Global function index " << i << " out of range";
          }
          return String((*names)[i]);
        });
      });
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using ffi::detail::ObjectUnsafe;
using ffi::runtime::GlobalRegistry;

namespace {

/*! \brief The bytes of a caller's byte array; ValueError when it or its data is NULL. */
std::string_view CheckedBytes(const TVMFFIByteArray* a, const char* fn, const char* what) {
  if (a == nullptr) FFI_THROW(ValueError) << fn << ": the " << what << " is NULL";
  if (a->data == nullptr && a->size != 0) {
    FFI_THROW(ValueError) << fn << ": the " << what << " has NULL data and size " << a->size;
  }
  return ffi::detail::ByteView(*a);
}

/*! \brief ValueError when a caller's result pointer is NULL. */
void RequireOut(const void* out, const char* fn) {
  if (out == nullptr) FFI_THROW(ValueError) << fn << ": the result pointer is NULL";
}

/*!
 * \brief The one registration path of the global functions: checks that `f` is a Function and
 * adds it (with a new reference) to the registry.
 */
void RegisterGlobal(const char* fn, std::string_view name, TVMFFIObjectHandle f, int allow_override,
                    std::string metadata) {
  try {
    if (f == nullptr || static_cast<TVMFFIObject*>(f)->type_index != kTVMFFIFunction) {
      FFI_THROW(TypeError) << fn << ": `" << name << "` must be given a Function object";
    }
    GlobalRegistry::Get()->Set(std::string(name),
                               ObjectUnsafe::RefFromBorrowedHeader<ffi::Function>(f),
                               allow_override != 0, std::move(metadata));
  } catch (const ffi::Error& e) {
    // Inside the loader, a library's static initializer is registering: report success so that it
    // does not terminate the process; the loader raises the recorded error after dlopen.
    if (ffi::runtime::RegistrationFailureScope::Record(e)) return;
    throw;
  }
}

}  // namespace

extern "C" {

int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call, void (*deleter)(void* self),
                         TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  if (safe_call == nullptr) FFI_THROW(ValueError) << "TVMFFIFunctionCreate: safe_call is NULL";
  auto obj = ffi::make_object<ffi::runtime::ExternCFunctionObj>(self, safe_call, deleter);
  *out = ObjectUnsafe::Header(obj.release());
  FFI_SAFE_CALL_END();
}

int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                       TVMFFIAny* result) {
  if (func == nullptr) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "TVMFFIFunctionCall: the function is NULL");
    return -1;
  }
  if (static_cast<TVMFFIObject*>(func)->type_index != kTVMFFIFunction) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "TVMFFIFunctionCall: the object is not a Function");
    return -1;
  }
  return TVMFFIFunctionGetCellPtr(func)->safe_call(func, args, num_args, result);
}

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f, int allow_override) {
  FFI_SAFE_CALL_BEGIN();
  std::string_view key = CheckedBytes(name, "TVMFFIFunctionSetGlobal", "name");
  RegisterGlobal("TVMFFIFunctionSetGlobal", key, f, allow_override, std::string());
  FFI_SAFE_CALL_END();
}

int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info, int allow_override) {
  constexpr const char* kFn = "TVMFFIFunctionSetGlobalFromMethodInfo";
  FFI_SAFE_CALL_BEGIN();
  if (method_info == nullptr) FFI_THROW(ValueError) << kFn << ": the method info is NULL";
  std::string_view key = CheckedBytes(&method_info->name, kFn, "name");
  std::string_view metadata = CheckedBytes(&method_info->metadata, kFn, "metadata");
  // The function travels as a borrowed view of a Function object.
  const TVMFFIAny& method = method_info->method;
  TVMFFIObjectHandle f = method.type_index == kTVMFFIFunction ? method.v_obj : nullptr;
  RegisterGlobal(kFn, key, f, allow_override, std::string(metadata));
  FFI_SAFE_CALL_END();
}

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  std::string_view key = CheckedBytes(name, "TVMFFIFunctionGetGlobal", "name");
  RequireOut(out, "TVMFFIFunctionGetGlobal");
  ffi::Optional<ffi::Function> f = GlobalRegistry::Get()->Find(key);
  *out = f.has_value() ? ObjectUnsafe::MoveToHeader(std::move(f).value()) : nullptr;
  FFI_SAFE_CALL_END();
}

int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out) {
  FFI_SAFE_CALL_BEGIN();
  if (any_view == nullptr) FFI_THROW(ValueError) << "TVMFFIAnyViewToOwnedAny: the value is NULL";
  RequireOut(out, "TVMFFIAnyViewToOwnedAny");
  ffi::detail::ViewToOwned(*any_view, out);
  FFI_SAFE_CALL_END();
}

int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  FFI_SAFE_CALL_BEGIN();
  std::string_view text = CheckedBytes(input, "TVMFFIStringFromByteArray", "input");
  RequireOut(out, "TVMFFIStringFromByteArray");
  ffi::detail::BytesToAny<ffi::StringObj>(text, kTVMFFISmallStr, out);
  FFI_SAFE_CALL_END();
}

int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  FFI_SAFE_CALL_BEGIN();
  std::string_view bytes = CheckedBytes(input, "TVMFFIBytesFromByteArray", "input");
  RequireOut(out, "TVMFFIBytesFromByteArray");
  ffi::detail::BytesToAny<ffi::BytesObj>(bytes, kTVMFFISmallBytes, out);
  FFI_SAFE_CALL_END();
}

}  // extern "C"
