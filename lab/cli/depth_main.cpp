// tapegrad-depth: the depth-stability lab. Trains deep residual stacks with each
// placement of the LayerNorm (post, pre, deepnorm, rezero, sandwich, none) over
// depths, learning rates, warmups and seeds, and reports where each one breaks.
//
// main reads the command line (command_line.cpp), checks it once (check_command_line.cpp),
// and hands it to one run mode: sweep_command.cpp, merge_command.cpp or dump_command.cpp
// (`tapegrad-depth report DIR`: report_command.cpp; `tapegrad-depth poems`: poems_command.cpp).
// The lab's pieces are in lab/include/tapegrad/lab/; --help for use.

#include <malloc.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "command.hpp"
#include "exit_status.hpp"
#include "report.hpp"

extern "C" void openblas_set_num_threads(int num_threads);  // OpenBLAS's own API (cblas.h does not declare it)

namespace {

// Set by SIGINT/SIGTERM: workers stop at their next step; finished runs are already on disk.
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int sig) {
  g_stop.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C kills at once
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tapegrad::lab::cli;
  openblas_set_num_threads(1);  // one BLAS thread per run; the runs themselves are parallel
  // Freed arrays stay in the process for the next step's (and the next evaluation's) arrays to
  // reuse: no array gets its own mmap, and free memory is handed back to the kernel only above
  // 1 GiB. With glibc's defaults each large activation is fresh pages from the kernel (page faults
  // and zeroing: a 1-step Transformer run at L 8 took 3.75 s with 383k faults, 2.9 s with 54k
  // this way; docs/performance.md). Only freed memory is reused, so no value changes. As
  // bench/run.sh's GLIBC_TUNABLES; a GLIBC_TUNABLES of the user's own is left to decide.
  if (!std::getenv("GLIBC_TUNABLES")) {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }

  if (argc >= 2 && std::string(argv[1]) == "report") return run_report_command(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "poems") return run_poems_command(argc, argv);
  CommandLine line;
  if (const auto status = parse_command_line(argc, argv, line)) return *status;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    const Command command = check_command_line(line);
    switch (command.mode) {
      case Command::Mode::sweep: return run_sweep(command, g_stop);
      case Command::Mode::merge: return run_merge(command);
      case Command::Mode::dump: return run_dump(command);
      case Command::Mode::diagnose: return run_diagnose(command);
    }
  } catch (const BadArguments& e) {
    std::cerr << "tapegrad-depth: " << e.what() << "\nRun with --help for the options.\n";
    return kExitBadArguments;
  } catch (const std::exception& e) {
    std::cerr << "tapegrad-depth: error: " << e.what() << "\n";
    return kExitError;
  }
  return kExitError;
}
