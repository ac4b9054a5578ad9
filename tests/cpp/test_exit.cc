// Process exit with errors left behind (in raised-error slots, C++ statics, a library's statics):
// each case runs loader/exit_with_errors.cc as its own process, which must exit cleanly. The
// helper is started with posix_spawn on POSIX systems and CreateProcessW on Windows.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;
#endif

namespace {

/*! \brief How a helper run ended: exit code or signal, and what it wrote to stderr. */
struct Outcome {
  bool exited = false;  ///< ended by exiting (not by a signal, nor failing to start)
  int exit_code = -1;
  int signal = 0;
  std::string stderr_text;
};

/*! \brief The file the helper's stderr goes to: unique per test process. */
std::string LogPath() {
#ifdef _WIN32
  unsigned long pid = GetCurrentProcessId();
#else
  unsigned long pid = static_cast<unsigned long>(getpid());
#endif
  return ::testing::TempDir() + "ffi_exit_helper_" + std::to_string(pid) + ".log";
}

#ifdef _WIN32
/*! \brief Starts `args` (program first) with stderr into `log` and waits; false if not started. */
bool Spawn(const std::vector<std::string>& args, const std::string& log, Outcome* out) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE err = CreateFileA(log.c_str(), GENERIC_WRITE, FILE_SHARE_READ, &inherit, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
  if (err == INVALID_HANDLE_VALUE) return false;
  std::string command;  // the arguments (paths and mode names) hold no quotes
  for (const std::string& a : args) command += (command.empty() ? "\"" : " \"") + a + "\"";
  STARTUPINFOA startup{};
  startup.cb = sizeof(startup);
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  startup.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  startup.hStdError = err;
  PROCESS_INFORMATION process{};
  BOOL started = CreateProcessA(nullptr, command.data(), nullptr, nullptr, TRUE, 0, nullptr,
                                nullptr, &startup, &process);
  CloseHandle(err);
  if (!started) return false;
  WaitForSingleObject(process.hProcess, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(process.hProcess, &code);
  CloseHandle(process.hThread);
  CloseHandle(process.hProcess);
  // A crash ends the process with its exception code (0xC0000005 ...): an exit code too.
  out->exited = true;
  out->exit_code = static_cast<int>(code);
  return true;
}
#else
/*! \brief Starts `args` (program first) with stderr into `log` and waits; false if not started. */
bool Spawn(std::vector<std::string> args, const std::string& log, Outcome* out) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  int status = -1;
  waitpid(pid, &status, 0);
  out->exited = WIFEXITED(status);
  out->exit_code = out->exited ? WEXITSTATUS(status) : -1;
  out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return true;
}
#endif

/*! \brief Runs the exit helper with `args` and waits for it. */
Outcome RunHelper(std::vector<std::string> args) {
  std::string log = LogPath();
  args.insert(args.begin(), FFI_EXIT_HELPER);
  Outcome out;
  if (!Spawn(args, log, &out)) return out;
  std::stringstream text;
  text << std::ifstream(log).rdbuf();
  out.stderr_text = text.str();
  std::remove(log.c_str());
  return out;
}

void ExpectCleanExit(std::vector<std::string> args) {
  Outcome out = RunHelper(args);
  EXPECT_TRUE(out.exited) << "killed by signal " << out.signal << "\n" << out.stderr_text;
  EXPECT_EQ(out.exit_code, 0) << out.stderr_text;
  EXPECT_EQ(out.stderr_text, "");
}

TEST(Exit, ErrorLeftInTheMainThreadsSlot) { ExpectCleanExit({"raised-main"}); }

TEST(Exit, ErrorsLeftByEndedAndRunningThreads) { ExpectCleanExit({"raised-threads"}); }

TEST(Exit, ErrorsHeldByStatics) { ExpectCleanExit({"static-errors"}); }

TEST(Exit, ErrorsThrownAndRaisedFromAStaticDestructor) {
  ExpectCleanExit({"errors-in-static-destructor"});
}

TEST(Exit, ExitCalledFromAnotherThread) { ExpectCleanExit({"exit-from-thread"}); }

TEST(Exit, ErrorAndCallbackHeldByALoadedLibrarysStatics) {
  ExpectCleanExit({"library-statics", FFI_EXIT_KERNELS});
}

TEST(Exit, TheHelperReportsFailures) {
  // The check above can fail: an unknown mode exits with status 2.
  Outcome out = RunHelper({"no-such-mode"});
  ASSERT_TRUE(out.exited);
  EXPECT_EQ(out.exit_code, 2);
}

}  // namespace
