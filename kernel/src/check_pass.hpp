#pragma once
// A failed cell leaves the kernel as it was: each cell is first compiled in a check pass,
// a fork() of the kernel, so that a compile error (or a crash of clang itself) happens in a
// copy that then ends. Only a cell that compiled there is compiled for real.
//
// Why not compile, and undo on failure? clang 22's incremental parser cannot undo a failed
// input completely. When an input fails, Sema::GlobalEagerInstantiationScope drops the
// function template instantiations it had queued (PendingInstantiations) while those
// specialisations keep their point of instantiation, so Sema never queues them again: every
// later use of, say, std::vector<long>::push_back is compiled as a call to a function whose
// body is never made, and the JIT fails with "Failed to materialize symbols" until a
// restart. Code generation has also emitted part of the failed input into the module that the
// next input gets. (clang-repl does this too; llvm-project 106833, PR 204152; cling avoids
// it with its DeclUnloader, which clang's Interpreter::Undo is not.) The check pass never
// lets a failing input reach the real compiler, so nothing needs undoing.

#include <chrono>
#include <string>
#include <vector>

namespace clang {
class Interpreter;
}

namespace tapegrad_xcpp {

struct CheckResult {
  bool compiles = false;
  int clang_crashed_with = 0;  // the signal that ended clang in the check pass, or 0
  bool timed_out = false;      // clang did not finish within check_time_limit() (it was stopped)
  std::string diagnostics;     // what clang printed (errors and warnings)
};

// How long the check pass may compile one cell: TAPEGRAD_XCPP_CHECK_SECONDS, else 300 s (the first
// #include of xtensor-blas takes ~10 s on a loaded machine; a clang that loops never ends).
std::chrono::seconds check_time_limit();

// Compiles code in a forked copy of this process (SIGINT is ignored there). No threads or
// open sockets of the kernel are used by the copy; it ends with _exit.
// The pieces are compiled one after the other, as the kernel will.
CheckResult check_compiles(clang::Interpreter& clang, const std::vector<std::string>& pieces);

}  // namespace tapegrad_xcpp
