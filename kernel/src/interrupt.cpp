// Interrupt: how Jupyter's SIGINT stops a running cell (and nothing else).
#include "interrupt.hpp"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <time.h>
#include <semaphore.h>
#include <ucontext.h>
#include <unwind.h>
#include <unistd.h>

#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <thread>

namespace tapegrad_xcpp {

// Jupyter interrupts a kernel with SIGINT (kernel.json: "interrupt_mode": "signal").
// SIGINT is blocked in every thread except the main one while it runs a cell's code, and
// the cell is ended by a jump back into run_interruptibly (siglongjmp). The jump must
// leave from the cell's own JIT-compiled code: jumping out of a library (libc's malloc or
// printf, OpenBLAS, clang's JIT while it links the cell) would leave its locks held and
// hang the next cell. So the handler
//   - jumps at once when the signal caught the cell's code;
//   - when it caught a library that the cell's code called, rewrites that call's return
//     address so that the call returns into leave_cell_landing, which jumps: the cell
//     stops the moment the library is done;
//   - otherwise (libc, or no return into the cell's code found on the stack) asks a retry
//     thread to send SIGINT again in 1 ms.
// An interrupt that comes while clang compiles the cell stops it as soon as it starts.
namespace {
sigjmp_buf interrupt_jump;
volatile std::sig_atomic_t running_cell_code = 0;
volatile std::sig_atomic_t cell_number = 0;      // counts the cells run, for the retry thread
volatile std::sig_atomic_t retry_for_cell = -1;  // the cell the retry thread keeps interrupting
volatile std::sig_atomic_t landing_armed = 0;    // a return address points at leave_cell_landing
constexpr int kRetryMilliseconds = 1;
sem_t retry_wanted;
pthread_t main_thread;
}  // namespace
}  // namespace tapegrad_xcpp

// Where a library call that the cell made returns to once the interrupt has rewritten its
// return address. It is entered by `ret`, not `call`, so it realigns the stack first.
extern "C" [[noreturn]] __attribute__((visibility("hidden"))) void tapegrad_xcpp_leave_cell() {
  tapegrad_xcpp::running_cell_code = 0;
  siglongjmp(tapegrad_xcpp::interrupt_jump, SIGINT);
}
#if defined(__x86_64__)
extern "C" void tapegrad_xcpp_leave_cell_landing();
asm(".text\n"
    ".type tapegrad_xcpp_leave_cell_landing, @function\n"
    "tapegrad_xcpp_leave_cell_landing:\n"
    "  andq $-16, %rsp\n"
    "  call tapegrad_xcpp_leave_cell\n"
    "  ud2\n");
#endif

namespace tapegrad_xcpp {
namespace {

// JIT-compiled code lives in memory that no loaded library or program file covers.
// (_dl_find_object is lock-free and cheap, unlike dladdr, which scans symbol tables.)
bool in_cell_code(std::uintptr_t address) {
  dl_find_object found;
  return _dl_find_object(reinterpret_cast<void*>(address), &found) != 0;
}

#if defined(__x86_64__)
// Walks the stack from the handler up to the first frame in the cell's code; returns the
// slot holding its return address from the call it is in (checked), or null.
void** return_slot_into_cell() {
  void** slot = nullptr;
  _Unwind_Backtrace(
      [](_Unwind_Context* context, void* found) -> _Unwind_Reason_Code {
        const std::uintptr_t ip = _Unwind_GetIP(context);
        if (ip == 0 || !in_cell_code(ip)) return _URC_NO_REASON;
        // Here (libgcc, x86-64) the context's CFA is that of the frame it was unwound from,
        // the callee, whose return address a call pushed just below it.
        auto** candidate = reinterpret_cast<void**>(_Unwind_GetCFA(context) - sizeof(void*));
        if (*candidate == reinterpret_cast<void*>(ip)) *static_cast<void***>(found) = candidate;
        return _URC_END_OF_STACK;
      },
      &slot);
  return slot;
}

// Whether to look for the cell's frame below the interrupted library. Not from libc or the
// unwinder (they may hold locks, malloc's or the unwinder's own, that the walk would take
// again), nor from clang/LLVM (they run before the cell's code: compiling, linking).
bool worth_walking_stack_from(std::uintptr_t pc) {
  dl_find_object found;
  if (_dl_find_object(reinterpret_cast<void*>(pc), &found) != 0) return false;
  const char* name = found.dlfo_link_map != nullptr ? found.dlfo_link_map->l_name : nullptr;
  if (name == nullptr) return true;
  for (const char* skip : {"/libc.so", "/libgcc_s", "/libLLVM", "/libclang"})
    if (std::strstr(name, skip) != nullptr) return false;
  return true;
}
#endif

// A SIGINT the retry thread sent for an earlier cell (it can arrive after that cell ended).
bool stale_retry(const siginfo_t* info) {
  return info->si_code == SI_QUEUE && info->si_pid == getpid() && info->si_value.sival_int != cell_number;
}

void on_sigint(int, siginfo_t* info, void* context) {
  if (!pthread_equal(pthread_self(), main_thread)) {  // e.g. a thread the cell started
    pthread_kill(main_thread, SIGINT);
    return;
  }
  if (stale_retry(info) || !running_cell_code) return;  // (the cell has just ended)
#if defined(__x86_64__)
  if (landing_armed) return;
  const auto pc = static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  if (in_cell_code(pc)) {
    running_cell_code = 0;
    siglongjmp(interrupt_jump, SIGINT);
  }
  if (worth_walking_stack_from(pc))
    if (void** slot = return_slot_into_cell()) {
      *slot = reinterpret_cast<void*>(&tapegrad_xcpp_leave_cell_landing);
      landing_armed = 1;
      return;
    }
  if (retry_for_cell != cell_number) {
    retry_for_cell = cell_number;
    sem_post(&retry_wanted);  // async-signal-safe
  }
#else
  (void)context;  // no checks on this architecture: jump at once
  running_cell_code = 0;
  siglongjmp(interrupt_jump, SIGINT);
#endif
}

void retry_interrupts() {
  for (;;) {
    while (sem_wait(&retry_wanted) != 0) {}
    const std::sig_atomic_t cell = retry_for_cell;
    while (running_cell_code && cell_number == cell && !landing_armed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMilliseconds));
      if (running_cell_code && cell_number == cell && !landing_armed)
        pthread_sigqueue(main_thread, SIGINT, sigval{cell});
    }
  }
}

void set_sigint_blocked(bool blocked) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

// A crash in the cell's code (a null pointer, an index far out of range, endless recursion,
// a failed assert): the cell ends with an error, by the same jump, and the kernel lives on.
// (What the cell was doing is left half done, and a crash inside a library may have left it
// inconsistent, but the learner's earlier work is still there.) Not in the cell's code or not
// on the main thread: the default action, as before.
// A crash on a thread that the running cell started ends the cell the same way: that thread stops
// for good (it waits in its handler, holding nothing of the kernel's), and the main thread, told by
// kThreadCrashed, jumps out of the cell (a t.join() included) with the crash's signal.
constexpr int kThreadCrashed = SIGUSR2;
volatile std::sig_atomic_t thread_crash_signal = 0;

void on_crash(int sig, siginfo_t*, void*) {
  if (running_cell_code && pthread_equal(pthread_self(), main_thread)) {
    running_cell_code = 0;
    siglongjmp(interrupt_jump, sig);
  }
  if (running_cell_code && thread_crash_signal == 0) {
    thread_crash_signal = sig;
    // Give the main thread 50 ms to get past what it was doing when the thread started (still inside
    // pthread_create or malloc, a jump out of it would leave glibc's lock held and hang a later cell:
    // seen once in CI); by then it is, nearly always, waiting in t.join() or running the cell's own code.
    // nanosleep is async-signal-safe. (The race is narrowed, not closed.)
    const timespec wait{0, 50 * 1000 * 1000};
    nanosleep(&wait, nullptr);
    pthread_kill(main_thread, kThreadCrashed);
    for (;;) pause();
  }
  signal(sig, SIG_DFL);  // the fault happens again on return, and ends the process
}

void on_thread_crashed(int, siginfo_t*, void*) {
  if (running_cell_code && thread_crash_signal != 0) {
    running_cell_code = 0;
    siglongjmp(interrupt_jump, thread_crash_signal);
  }
}

}  // namespace

void install_interrupt_handler() {
  main_thread = pthread_self();
  set_sigint_blocked(true);  // threads started from now on (xeus's, the reader) never take SIGINT
  sem_init(&retry_wanted, 0, 0);
  std::thread(retry_interrupts).detach();  // lives as long as the kernel (which ends with _Exit)
  struct sigaction action {};
  action.sa_sigaction = on_sigint;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);

  // Crashes: on a stack of their own, so that endless recursion can be reported too.
  static char crash_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = crash_stack;
  stack.ss_size = sizeof crash_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction crash {};
  crash.sa_sigaction = on_crash;
  crash.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&crash.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &crash, nullptr);
  struct sigaction thread_crashed {};
  thread_crashed.sa_sigaction = on_thread_crashed;
  thread_crashed.sa_flags = SA_SIGINFO;
  sigemptyset(&thread_crashed.sa_mask);
  sigaction(kThreadCrashed, &thread_crashed, nullptr);
}

void discard_pending_interrupts() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  const timespec now{0, 0};
  while (sigtimedwait(&set, nullptr, &now) == SIGINT) {}
}

int run_interruptibly(const std::function<void()>& body) {
  // sigsetjmp saves the signal mask (SIGINT blocked) for the jump back.
  if (const int stopped_by = sigsetjmp(interrupt_jump, 1); stopped_by != 0) return stopped_by;
  cell_number = cell_number + 1;
  landing_armed = 0;
  thread_crash_signal = 0;
  running_cell_code = 1;
  set_sigint_blocked(false);
  try {
    body();
  } catch (...) {
    running_cell_code = 0;
    set_sigint_blocked(true);
    throw;
  }
  running_cell_code = 0;
  set_sigint_blocked(true);
  return 0;
}

}  // namespace tapegrad_xcpp
