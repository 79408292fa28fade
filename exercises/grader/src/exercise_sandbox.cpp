// The learner's code in a child process: fork, run one call, send its outputs back through a
// pipe, and report a crash (a signal), an endless loop (no answer before the timeout: the child is
// killed) or an exception. The parent (the exercise program, a notebook kernel, the tests) is never
// touched by what the learner's code does.
//
// Why a child per call and not per check: a crash in one case must not hide the others' results,
// and the grader needs the forward's results even when the backward crashes.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <streambuf>

#include "grader.hpp"

namespace tapegrad::exercise::detail {

namespace {

// ---- the child's answer, as bytes: status, not_implemented, message, arrays ----
void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_str(std::string& out, const std::string& s) {
  put_u64(out, s.size());
  out += s;
}

std::string encode(std::uint64_t status, bool not_implemented, const std::string& message, const Outputs& outputs) {
  std::string out;
  put_u64(out, status);
  put_u64(out, not_implemented ? 1 : 0);
  put_str(out, message);
  put_u64(out, outputs.size());
  for (const Array& a : outputs) {
    put_u64(out, a.dimension());
    for (std::size_t d : a.shape()) put_u64(out, d);
    out.append(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(double));
  }
  return out;
}

struct Reader {
  const std::string& bytes;
  std::size_t pos = 0;
  bool ok = true;
  std::uint64_t u64() {
    std::uint64_t v = 0;
    if (pos + sizeof v > bytes.size()) return ok = false, 0;
    std::memcpy(&v, bytes.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    if (!ok || pos + n > bytes.size()) return ok = false, std::string();
    std::string s = bytes.substr(pos, n);
    pos += n;
    return s;
  }
};

bool decode(const std::string& bytes, RunResult& result) {
  Reader r{bytes};
  const std::uint64_t status = r.u64();
  result.not_implemented = r.u64() != 0;
  result.message = r.str();
  const std::uint64_t n = r.u64();
  if (!r.ok || n > 1000) return false;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t rank = r.u64();
    if (!r.ok || rank > 16) return false;
    Shape shape(rank);
    std::size_t size = 1;
    for (auto& d : shape) size *= (d = r.u64());
    if (!r.ok || r.pos + size * sizeof(double) > bytes.size()) return false;
    Array a = xt::zeros<double>(shape);
    std::memcpy(a.data(), bytes.data() + r.pos, size * sizeof(double));
    r.pos += size * sizeof(double);
    result.outputs.push_back(std::move(a));
  }
  result.status = status == 0 ? RunResult::ok : RunResult::exception;
  return r.ok;
}

// What the learner's code prints (std::cout, std::cerr, printf) goes to this file, unbuffered, so
// that it survives a crash. (Under a notebook kernel std::cout is the kernel's channel to the
// front end, which a child process must not use.)
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) {}

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const char ch = static_cast<char>(c);
    return ::write(fd_, &ch, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const ssize_t w = ::write(fd_, s, static_cast<std::size_t>(n));
    return w < 0 ? 0 : w;
  }

 private:
  int fd_;
};

constexpr std::size_t kMaxPrinted = 2000;

// A sanitizer's report is long (one line per frame, each with its template arguments): read it whole.
constexpr std::size_t kMaxStderr = 1u << 20;

std::string read_all(std::FILE* file, std::size_t max) {
  std::string text;
  std::fflush(file);
  std::rewind(file);
  char buf[4096];
  std::size_t n;
  while (text.size() < max && (n = std::fread(buf, 1, sizeof buf, file)) > 0) text.append(buf, n);
  return text;
}

std::string read_printed(std::FILE* file) {
  std::string text = read_all(file, kMaxPrinted + 1);
  if (text.size() > kMaxPrinted) text = text.substr(0, kMaxPrinted) + "...";
  return text;
}

std::string source_line(const std::string& file, int line) {
  std::ifstream in(file);
  std::string text;
  for (int i = 0; i < line && std::getline(in, text); ++i) {
  }
  return in ? text : std::string();
}

std::string sanitizer_message(const SanitizerFinding& f) {
  return f.tool + ": " + f.kind + (f.location.empty() ? std::string() : " at " + f.location);
}

[[noreturn]] void child(const std::function<Outputs()>& job, int answer_fd, int print_fd, int stderr_fd,
                        double timeout_seconds) {
  // The parent's handlers (a kernel's, Catch2's) must not run here: a crash is the child's death.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM, SIGALRM, SIGPIPE})
    ::signal(sig, SIG_DFL);
  ::signal(SIGXFSZ, SIG_IGN);           // printing beyond the limit fails, it does not kill
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);   // never outlive the grader
  rlimit cpu{static_cast<rlim_t>(timeout_seconds) + 5, static_cast<rlim_t>(timeout_seconds) + 6};
  ::setrlimit(RLIMIT_CPU, &cpu);        // a second guard against an endless loop
  rlimit fsize{16u << 20, 16u << 20};
  ::setrlimit(RLIMIT_FSIZE, &fsize);
  ::dup2(print_fd, 1);
  // The file descriptor 2 apart: a sanitizer writes its report there (std::cerr is the print file's).
  ::dup2(stderr_fd >= 0 ? stderr_fd : print_fd, 2);
  FdBuf buf(print_fd);
  std::cout.rdbuf(&buf);
  std::cerr.rdbuf(&buf);
  std::clog.rdbuf(&buf);
  std::string answer;
  try {
    answer = encode(0, false, "", job());
  } catch (const NotImplemented& e) {
    answer = encode(1, true, e.what(), {});
  } catch (const std::exception& e) {
    answer = encode(1, false, e.what(), {});
  } catch (...) {
    answer = encode(1, false, "an exception that is not a std::exception", {});
  }
  std::cout.flush();
  std::fflush(stdout);
  std::size_t done = 0;
  while (done < answer.size()) {
    const ssize_t w = ::write(answer_fd, answer.data() + done, answer.size() - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  ::_exit(0);  // no atexit handlers, no static destructors: they are the parent's
}

std::string signal_text(int sig) {
  std::string name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                   : sig == SIGABRT ? "SIGABRT" : sig == SIGILL ? "SIGILL" : sig == SIGKILL ? "SIGKILL"
                   : sig == SIGXCPU ? "SIGXCPU" : "signal " + std::to_string(sig);
  const char* what = ::strsignal(sig);
  return name + (what ? std::string(" (") + what + ")" : std::string());
}

}  // namespace

RunResult run_isolated(const std::function<Outputs()>& job, const Options& options) {
  const bool isolate = options.isolate;
  const double timeout_seconds = options.timeout_seconds;
  RunResult result;
  if (!isolate) {  // in this process: for gdb, where a crash is what the learner wants to see
    try {
      result.outputs = job();
    } catch (const NotImplemented& e) {
      result.status = RunResult::exception, result.not_implemented = true, result.message = e.what();
    } catch (const std::exception& e) {
      result.status = RunResult::exception, result.message = e.what();
    }
    return result;
  }

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error("exercise: cannot create a pipe for the child process");
  std::FILE* printed = std::tmpfile();
  std::FILE* stderr_file = std::tmpfile();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    if (printed) std::fclose(printed);
    if (stderr_file) std::fclose(stderr_file);
    throw Error("exercise: cannot fork a child process to run your code");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(job, fds[1], printed ? ::fileno(printed) : ::open("/dev/null", O_WRONLY),
          stderr_file ? ::fileno(stderr_file) : -1, timeout_seconds);
  }
  ::close(fds[1]);

  // Read the answer until the child closes the pipe, or the time is up.
  std::string bytes;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    char buf[65536];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (printed) {
    result.printed = read_printed(printed);
    std::fclose(printed);
  }
  std::string stderr_text;
  if (stderr_file) {
    stderr_text = read_all(stderr_file, kMaxStderr);
    std::fclose(stderr_file);
  }
  result.sanitizer = parse_sanitizer_report(stderr_text, options.source, source_line);
  if (result.sanitizer.id.empty() && !stderr_text.empty() && result.printed.size() < kMaxPrinted)
    result.printed += stderr_text.substr(0, kMaxPrinted - result.printed.size());  // fprintf(stderr, ...)

  if (!result.sanitizer.id.empty()) {
    result.status = RunResult::crashed;
    result.outputs.clear();
    result.message = sanitizer_message(result.sanitizer);
  } else if (timed_out) {
    result.status = RunResult::timeout;
    char buf[160];
    std::snprintf(buf, sizeof buf, "did not finish within %.3g s (an endless loop?); it was stopped",
                  timeout_seconds);
    result.message = buf;
  } else if (WIFSIGNALED(status)) {
    result.status = RunResult::crashed;
    result.message = "crashed with " + signal_text(WTERMSIG(status));
  } else if (!decode(bytes, result)) {
    result.status = RunResult::crashed;
    result.outputs.clear();
    result.message = WIFEXITED(status) && WEXITSTATUS(status) != 0
                         ? "ended with exit status " + std::to_string(WEXITSTATUS(status)) + " without an answer"
                         : std::string("ended without an answer (exit() called?)");
  }
  return result;
}

}  // namespace tapegrad::exercise::detail
