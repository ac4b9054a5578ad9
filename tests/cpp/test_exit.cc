// Process exit with errors left behind (in raised-error slots, C++ statics, a library's statics):
// each case runs loader/exit_with_errors.cc as its own process, which must exit cleanly.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

/*! \brief How a helper run ended: its wait status and what it wrote to stderr. */
struct Outcome {
  int status = -1;
  std::string stderr_text;
};

/*! \brief Runs the exit helper with `args` and waits for it. */
Outcome RunHelper(std::vector<std::string> args) {
  std::string log = ::testing::TempDir() + "ffi_exit_helper_" + std::to_string(getpid()) + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  args.insert(args.begin(), FFI_EXIT_HELPER);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Outcome out;
  pid_t pid = 0;
  int rc = posix_spawn(&pid, FFI_EXIT_HELPER, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return out;
  waitpid(pid, &out.status, 0);
  std::stringstream text;
  text << std::ifstream(log).rdbuf();
  out.stderr_text = text.str();
  std::remove(log.c_str());
  return out;
}

void ExpectCleanExit(std::vector<std::string> args) {
  Outcome out = RunHelper(args);
  EXPECT_TRUE(WIFEXITED(out.status)) << "killed by signal " << WTERMSIG(out.status) << "\n"
                                     << out.stderr_text;
  EXPECT_EQ(WEXITSTATUS(out.status), 0) << out.stderr_text;
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
  ASSERT_TRUE(WIFEXITED(out.status));
  EXPECT_EQ(WEXITSTATUS(out.status), 2);
}

}  // namespace
