// The platform layer's dlopen-based half, shared by Linux and macOS: opening and closing a
// library, looking a symbol up, naming the library an address lies in, and backtraces through the
// unwinder of libgcc (or of the system on macOS). linux.cc and macos.cc read the symbol tables,
// which differ (ELF, Mach-O).
#include <dlfcn.h>
#include <unwind.h>

#include "platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace platform {
namespace {

struct UnwindState {
  void** pcs;
  int max;
  int count;
};

_Unwind_Reason_Code CollectFrame(_Unwind_Context* ctx, void* arg) {
  auto* state = static_cast<UnwindState*>(arg);
  if (state->count >= state->max) return _URC_END_OF_STACK;
  uintptr_t pc = _Unwind_GetIP(ctx);
  if (pc == 0) return _URC_END_OF_STACK;
  state->pcs[state->count++] = reinterpret_cast<void*>(pc);
  return _URC_NO_REASON;
}

}  // namespace

void* OpenLibrary(const std::string& path, std::string* error) {
  // A bare file name would make dlopen search the library path; the caller means this file.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_NOW: an undefined symbol fails the load here, not the process at its first call.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = why ? why : "dlopen failed";
  }
  return handle;
}

void CloseLibrary(void* handle) { dlclose(handle); }

void* LookupSymbol(void* handle, const char* name) { return dlsym(handle, name); }

bool DescribeAddress(const void* address, AddressInfo* out) {
  Dl_info info{};
  if (dladdr(address, &info) == 0) return false;
  out->module_base = info.dli_fbase;
  out->module_path = info.dli_fname != nullptr ? info.dli_fname : "";
  out->symbol = info.dli_sname;
  return true;
}

int CaptureStack(void** pcs, int max) {
  UnwindState state{pcs, max, 0};
  _Unwind_Backtrace(CollectFrame, &state);
  return state.count;
}

}  // namespace platform
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
