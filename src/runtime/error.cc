// Thread-local raised errors, error objects and C++ backtraces.
#include <cxxabi.h>
#include <ffi/error.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "platform/platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The error objects this runtime makes: the cell's byte arrays point into the strings. */
class OwnedErrorObj : public ErrorObj {
 public:
  OwnedErrorObj(std::string kind, std::string message, std::string backtrace, ObjectRef cause,
                ObjectRef extra_context)
      : kind_(std::move(kind)), message_(std::move(message)), backtrace_(std::move(backtrace)) {
    this->kind = {kind_.data(), kind_.size()};
    this->message = {message_.data(), message_.size()};
    this->backtrace = {backtrace_.data(), backtrace_.size()};
    this->update_backtrace = UpdateBacktrace;
    // The cell's handles own their references, as the convention has it: code built with either
    // header set may replace one in place (a visit context added while the error unwinds), so the
    // references are dropped through whatever the cell holds when the error dies.
    this->cause_chain = detail::ObjectUnsafe::MoveToHeader(std::move(cause));
    this->extra_context = detail::ObjectUnsafe::MoveToHeader(std::move(extra_context));
  }
  ~OwnedErrorObj() {
    if (this->cause_chain != nullptr) detail::ObjectUnsafe::DecRef(this->cause_chain);
    if (this->extra_context != nullptr) detail::ObjectUnsafe::DecRef(this->extra_context);
  }
  OwnedErrorObj(const OwnedErrorObj&) = delete;
  OwnedErrorObj& operator=(const OwnedErrorObj&) = delete;

 private:
  static void UpdateBacktrace(TVMFFIObjectHandle self, const TVMFFIByteArray* text, int32_t mode) {
    auto* obj = static_cast<OwnedErrorObj*>(detail::ObjectUnsafe::FromHeader(self));
    std::string add(text->data, text->size);
    obj->backtrace_ = mode == kTVMFFIBacktraceUpdateModeAppend ? obj->backtrace_ + add : add;
    obj->backtrace = {obj->backtrace_.data(), obj->backtrace_.size()};
  }
  std::string kind_, message_, backtrace_;
};

/*! \brief A thread's error state: its raised error and the text TVMFFIBacktrace last returned. */
struct ThreadErrorState {
  TVMFFIObjectHandle raised = nullptr;
  std::string backtrace;
  TVMFFIByteArray backtrace_array{nullptr, 0};
};

/*!
 * \brief This thread's state, through a plain pointer that no destructor invalidates: code that
 * runs after the thread's thread-locals were destroyed (a static destructor during exit, a later
 * thread-local's destructor) still gets a usable state, made anew and then never freed.
 */
thread_local ThreadErrorState* thread_state = nullptr;

/*! \brief Frees this thread's state when the thread ends (or, for the main thread, at exit). */
struct ThreadErrorStateReleaser {
  ~ThreadErrorStateReleaser() {
    ThreadErrorState* state = thread_state;
    // Detached first: the error's destructor may itself raise, which then makes a new state.
    thread_state = nullptr;
    if (state == nullptr) return;
    TVMFFIObjectDecRef(state->raised);
    delete state;
  }
};
thread_local ThreadErrorStateReleaser thread_state_releaser;

/*! \brief This thread's error state, made on first use; null when out of memory. */
ThreadErrorState* State() {
  if (thread_state == nullptr) {
    // Touching the releaser constructs it and schedules its destructor, once per thread.
    static_cast<void>(&thread_state_releaser);
    thread_state = new (std::nothrow) ThreadErrorState();
  }
  return thread_state;
}

/*! \brief Most frames a backtrace lists. */
constexpr int kMaxFrames = 64;

/*! \brief A readable function name: demangled when it is a C++ symbol. */
std::string Demangle(const char* name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string result(out);
  std::free(out);
  return result;
}

/*!
 * \brief Whether a frame belongs to the host interpreter or the program's start, where the C++
 * backtrace ends (the last two names: a Windows thread's start in kernel32 and ntdll).
 */
bool IsInterpreterFrame(const std::string& name) {
  return name.rfind("_Py", 0) == 0 || name.rfind("Py", 0) == 0 || name == "main" ||
         name == "__libc_start_main" || name == "_start" || name == "BaseThreadInitThunk" ||
         name == "RtlUserThreadStart";
}

/*! \brief Whether backtraces are disabled (FFI_BACKTRACE=0). */
bool BacktraceDisabled() {
  static const bool disabled = [] {
    const char* v = std::getenv("FFI_BACKTRACE");
    return v != nullptr && std::strcmp(v, "0") == 0;
  }();
  return disabled;
}

/*!
 * \brief The bare name of a function as a signature or a demangled symbol writes it: "f" for
 * "void ns::f<int>(int)", "ns::f(int) const" or "f".
 */
std::string_view BareFunctionName(std::string_view text) {
  text = text.substr(0, text.find('('));
  // A template argument list at the end: drop it, nested lists included.
  if (!text.empty() && text.back() == '>') {
    int depth = 0;
    for (size_t i = text.size(); i-- > 0;) {
      if (text[i] == '>') ++depth;
      if (text[i] == '<' && --depth == 0) {
        text = text.substr(0, i);
        break;
      }
    }
  }
  size_t cut = text.find_last_of(": ");
  return cut == std::string_view::npos ? text : text.substr(cut + 1);
}

/*!
 * \brief The stack as text, most recent call first, one "  File ..." line per frame. Frames of
 * this file (the capture machinery) are skipped; the walk stops at the interpreter. With a throw
 * site (`filename`), the site's line comes first and the unwound frame of the same function is
 * not listed again.
 */
std::string CaptureBacktrace(const char* filename, int lineno, const char* func) {
  std::string out;
  if (filename != nullptr) {
    out += "  File \"" + std::string(filename) + "\", line " + std::to_string(lineno);
    if (func != nullptr) out += ", in " + std::string(func);
    out += '\n';
  }
  if (BacktraceDisabled()) return out;
  void* pcs[kMaxFrames];
  int count = platform::CaptureStack(pcs, kMaxFrames);
  platform::AddressInfo self;
  platform::DescribeAddress(reinterpret_cast<void*>(&CaptureBacktrace), &self);
  bool first_outside_runtime_seen = false;
  bool site_frame_checked = filename == nullptr;  // no throw site: nothing to skip
  for (int i = 0; i < count; ++i) {
    // The return address points after the call; step back one byte into the calling line.
    void* pc = static_cast<char*>(pcs[i]) - 1;
    platform::AddressInfo info;
    if (!platform::DescribeAddress(pc, &info)) continue;
    std::string name;
    if (info.symbol != nullptr) {
      name = Demangle(info.symbol);
    } else {
      // A local symbol: give the offset in its library, for addr2line.
      char offset[32];
      std::snprintf(
          offset, sizeof(offset), "<offset 0x%zx>",
          static_cast<size_t>(static_cast<char*>(pc) - static_cast<const char*>(info.module_base)));
      name = offset;
    }
    // Skip the runtime's own frames at the top (this capture and the error entry points).
    if (!first_outside_runtime_seen && info.module_base == self.module_base) continue;
    first_outside_runtime_seen = true;
    if (IsInterpreterFrame(name)) break;
    // Frames of the throw machinery in the headers.
    if (name.find("ffi::detail::BacktraceHere") != std::string::npos ||
        name.find("ffi::detail::ErrorBuilder") != std::string::npos) {
      continue;
    }
    // The raising function itself, already listed with its file and line.
    if (!site_frame_checked) {
      site_frame_checked = true;
      // Not for lambdas: their names start with the enclosing function's, which may be the frame.
      if (func != nullptr && std::strstr(func, "lambda") == nullptr &&
          !BareFunctionName(func).empty() && BareFunctionName(func) == BareFunctionName(name)) {
        continue;
      }
    }
    out += "  File \"";
    out += info.module_path.empty() ? "<unknown>" : info.module_path;
    out += "\", in " + name + '\n';
  }
  return out;
}

std::string_view View(const TVMFFIByteArray* a) {
  return a == nullptr ? std::string_view() : detail::ByteView(*a);
}

void SetRaisedObject(TVMFFIObjectHandle error) {
  ThreadErrorState* state = State();
  if (state == nullptr) return;  // out of memory: the error is dropped, as RaiseNew does
  TVMFFIObjectIncRef(error);
  TVMFFIObjectHandle old = state->raised;
  state->raised = error;
  TVMFFIObjectDecRef(old);
}

void RaiseNew(const char* kind, std::string message) {
  try {
    Error err(kind, std::move(message), CaptureBacktrace(nullptr, 0, nullptr));
    SetRaisedObject(detail::ObjectUnsafe::HeaderOf(err));
  } catch (...) {
    // Out of memory while reporting: keep whatever error is already raised.
  }
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using namespace ffi::runtime;

extern "C" {

void TVMFFIErrorSetRaised(TVMFFIObjectHandle error) { SetRaisedObject(error); }

void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result) {
  // A thread that never raised has nothing to take: no state is made for it.
  ThreadErrorState* state = thread_state;
  *result = state != nullptr ? state->raised : nullptr;
  if (state != nullptr) state->raised = nullptr;
}

void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  RaiseNew(kind ? kind : "RuntimeError", message ? message : "");
}

void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                       int32_t num_parts) {
  std::string message;
  for (int32_t i = 0; i < num_parts; ++i) {
    if (message_parts[i] != nullptr) message += message_parts[i];
  }
  RaiseNew(kind ? kind : "RuntimeError", std::move(message));
}

int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                      const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out) {
  return TVMFFIErrorCreateWithCauseAndExtraContext(kind, message, backtrace, nullptr, nullptr, out);
}

int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out) {
  FFI_SAFE_CALL_BEGIN();
  using ffi::ObjectRef;
  using ffi::detail::ObjectUnsafe;
  auto obj = ffi::make_object<ffi::runtime::OwnedErrorObj>(
      std::string(View(kind)), std::string(View(message)), std::string(View(backtrace)),
      ObjectUnsafe::RefFromBorrowedHeader<ObjectRef>(cause_chain),
      ObjectUnsafe::RefFromBorrowedHeader<ObjectRef>(extra_context));
  *out = ObjectUnsafe::Header(obj.release());
  FFI_SAFE_CALL_END();
}

const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno, const char* func,
                                       int /*cross_ffi_boundary*/) {
  static const TVMFFIByteArray kEmpty{"", 0};
  try {
    ThreadErrorState* state = State();
    if (state == nullptr) return &kEmpty;
    state->backtrace = CaptureBacktrace(filename, lineno, func);
    state->backtrace_array = {state->backtrace.data(), state->backtrace.size()};
    return &state->backtrace_array;
  } catch (...) {
    return &kEmpty;  // out of memory
  }
}

}  // extern "C"
