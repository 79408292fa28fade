#include "check_pass.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include <clang/Interpreter/Interpreter.h>
#include <llvm/Support/Error.h>

namespace tapegrad_xcpp {

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
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  char buffer[4096];
  lseek(out, 0, SEEK_SET);
  for (ssize_t got; (got = read(out, buffer, sizeof buffer)) > 0;) result.diagnostics.append(buffer, got);
  close(out);
  if (WIFSIGNALED(status)) result.clang_crashed_with = WTERMSIG(status);
  result.compiles = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return result;
}

}  // namespace tapegrad_xcpp
