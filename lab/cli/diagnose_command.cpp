// tapegrad-depth --diagnose DIR ...: the papers' diagnostics of every run of the grid (paper_diagnostics.hpp),
// in parallel, written in canonical order (so the files do not depend on --jobs).

#include <atomic>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "command.hpp"
#include "exit_status.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/paper_diagnostics.hpp"
#include "tapegrad/lab/results_store.hpp"

namespace tapegrad::lab::cli {

namespace fs = std::filesystem;

int run_diagnose(const Command& c) {
  std::vector<PaperDiagnostics> results(c.runs.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  std::exception_ptr failure;
  std::mutex failure_lock;
  for (std::size_t t = 0; t < std::min(c.jobs, c.runs.size()); ++t)
    workers.emplace_back([&] {
      for (std::size_t i; (i = next++) < c.runs.size();) {
        try {
          results[i] = paper_diagnostics(c.runs[i], c.grad_batches, c.tracked_steps);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(failure_lock);
          failure = std::current_exception();
        }
      }
    });
  for (auto& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
  std::string grads = kExpectedGradsHeader, hidden = kHiddenNormsHeader, updates = kUpdateSizesHeader,
              change = kOutputChangeHeader;
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    grads += expected_grad_rows(c.runs[i], results[i]);
    hidden += hidden_norm_rows(c.runs[i], results[i]);
    updates += update_size_rows(c.runs[i], results[i]);
    RunResult r;
    r.config = c.runs[i];
    r.log.first_step = results[i].first_step;
    change += output_change_row(r);
  }
  const fs::path dir(c.out);
  write_file_atomically((dir / "expected_grads.csv").string(), grads);
  write_file_atomically((dir / "hidden_norms.csv").string(), hidden);
  write_file_atomically((dir / "update_sizes.csv").string(), updates);
  write_file_atomically((dir / "output_change.csv").string(), change);
  std::cout << "Wrote the papers' diagnostics of " << c.runs.size() << " runs (K = " << c.grad_batches
            << " minibatches, " << c.tracked_steps << " tracked updates) to " << c.out
            << ": expected_grads.csv, hidden_norms.csv, update_sizes.csv, output_change.csv\n";
  return kExitDone;
}

}  // namespace tapegrad::lab::cli
