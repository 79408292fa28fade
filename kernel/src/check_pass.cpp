#include "check_pass.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>

#include <clang/Interpreter/Interpreter.h>
#include <llvm/Support/Error.h>

namespace tapegrad_xcpp {

std::chrono::seconds check_time_limit() {
  const char* text = std::getenv("TAPEGRAD_XCPP_CHECK_SECONDS");
  const long seconds = text != nullptr ? std::atol(text) : 0;
  return std::chrono::seconds(seconds > 0 ? seconds : 300);
}

CheckResult check_compiles(clang::Interpreter& clang, const std::vector<std::string>& pieces) {
  CheckResult result;
  const int out = memfd_create("tapegrad-xcpp-check", MFD_CLOEXEC);
  if (out < 0) {  // no check pass possible: compile for real (as before the check pass)
    result.compiles = true;
    return result;
  }
  const pid_t child = fork();
  if (child == 0) {
    // The copy: clang's diagnostics (fd 2) and anything else go to the memory file.
    signal(SIGINT, SIG_IGN);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, SIG_DFL);
    dup2(out, 1);
    dup2(out, 2);
    for (const std::string& code : pieces) {
      auto parsed = clang.Parse(code);
      if (!parsed) {
        llvm::consumeError(parsed.takeError());
        _exit(1);
      }
    }
    _exit(0);
  }
  if (child < 0) {
    close(out);
    result.compiles = true;
    return result;
  }
  // A time limit: a cell that clang never finishes compiling is the cell's error, not a kernel that hangs.
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + check_time_limit();
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
      result.timed_out = true;
      break;
    }
    usleep(2000);
  }
  char buffer[4096];
  lseek(out, 0, SEEK_SET);
  for (ssize_t got; (got = read(out, buffer, sizeof buffer)) > 0;) result.diagnostics.append(buffer, got);
  close(out);
  if (WIFSIGNALED(status) && !result.timed_out) result.clang_crashed_with = WTERMSIG(status);
  result.compiles = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return result;
}

}  // namespace tapegrad_xcpp
