#pragma once
// Runs the runs of a sweep in parallel: `jobs` threads, each taking the next
// pending run, training it on its own tape (tapes are thread_local) and saving
// its folder (results_store.hpp) the moment it finishes.
//
// Results do not depend on jobs: every run seeds its own Generators from its
// config, and the CSVs are assembled in canonical order afterwards. The caller
// keeps BLAS to one thread per run (see lab/cli/depth_main.cpp), both for speed
// (2 runs on 2 cores beat 1 run on 2 threads at these sizes) and so that no
// run's sums depend on how OpenBLAS splits them.

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::lab {

struct SweepRunOptions {
  std::string out;
  std::size_t jobs = 1;
  const std::atomic<bool>* stop = nullptr;  // set (e.g. by SIGINT) to finish early: runs in flight are dropped
  // Called from worker threads (serialised) after each saved run.
  std::function<void(std::size_t done, std::size_t total)> on_run_done;
};

struct SweepRunOutcome {
  std::size_t ran = 0;       // runs finished and saved now
  bool interrupted = false;  // *stop was set before all were done
};

// Runs `pending` (the caller has left out finished runs and other shards' runs),
// deepest and widest first so that the long runs do not straggle at the end.
// The first exception of any run stops the others and is rethrown.
SweepRunOutcome run_all(const std::vector<RunConfig>& pending, const SweepRunOptions& options);

}  // namespace tapegrad::lab
