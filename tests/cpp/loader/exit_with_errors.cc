// A program that exits with errors left behind: in the raised-error slot of this and other threads,
// in C++ statics, and in the statics of a loaded library. It must exit with status 0 and nothing
// reported (run by test_exit, also under AddressSanitizer). Usage: exit_with_errors MODE [LIBRARY]
#include <ffi/ffi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

/*! \brief Raises an error with a backtrace on this thread and leaves it in the slot. */
void LeaveRaised(const char* message) {
  try {
    FFI_THROW(ValueError) << message;
  } catch (const ffi::Error& e) {
    TVMFFIErrorSetRaised(ffi::detail::ObjectUnsafe::Header(e.get()));
  }
}

/*!
 * \brief Uses the error machinery from a static destructor, which runs after this thread's
 * thread-locals were destroyed: throwing (a backtrace), raising and taking the raised error.
 */
struct UsesErrorsWhenDestroyed {
  bool armed = false;
  ~UsesErrorsWhenDestroyed() {
    if (!armed) return;
    LeaveRaised("raised from a static destructor");
    TVMFFIObjectHandle handle = nullptr;
    TVMFFIErrorMoveFromRaised(&handle);
    if (handle == nullptr) std::abort();
    TVMFFIObjectDecRef(handle);
    LeaveRaised("left in the slot by a static destructor");
  }
};
UsesErrorsWhenDestroyed uses_errors_when_destroyed;

ffi::Error static_error("ValueError", "held by a static");

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  if (mode == "raised-main") {
    LeaveRaised("left in the main thread");
  } else if (mode == "raised-threads") {
    for (int i = 0; i < 4; ++i) std::thread([] { LeaveRaised("left by an ended thread"); }).join();
    // A thread still running at exit keeps its error: its thread-locals are never destroyed.
    std::thread([] {
      LeaveRaised("left by a running thread");
      std::this_thread::sleep_for(std::chrono::hours(1));
    }).detach();
    LeaveRaised("left in the main thread");
  } else if (mode == "static-errors") {
    static ffi::Error function_static("KeyError", "held by a function-local static");
    LeaveRaised("left in the main thread");
    static_error = function_static;
  } else if (mode == "errors-in-static-destructor") {
    LeaveRaised("left in the main thread");
    uses_errors_when_destroyed.armed = true;
  } else if (mode == "exit-from-thread") {
    LeaveRaised("left in the main thread");
    std::thread([] {
      LeaveRaised("left by the exiting thread");
      std::exit(0);
    }).join();
  } else if (mode == "library-statics" && argc == 3) {
    ffi::Module mod = ffi::Module::LoadFromFile(argv[2]);
    auto callback = ffi::Function::FromTyped([](int64_t x) { return x; });
    mod->GetFunction("keep").value()(callback);
    LeaveRaised("left in the main thread");
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  return 0;
}
