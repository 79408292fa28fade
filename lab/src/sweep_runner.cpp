#include "tapegrad/lab/sweep_runner.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/results_store.hpp"

namespace tapegrad::lab {

namespace {
// Rough cost of a run: steps × batch × (blocks × FFN size), in arbitrary units.
double cost(const RunConfig& c) {
  return static_cast<double>(c.steps) * static_cast<double>(c.batch) * static_cast<double>(c.depth + 1) *
         static_cast<double>(c.d) * static_cast<double>(c.d);
}
}  // namespace

SweepRunOutcome run_all(const std::vector<RunConfig>& pending, const SweepRunOptions& options) {
  std::vector<RunConfig> order = pending;
  std::stable_sort(order.begin(), order.end(), [](const RunConfig& a, const RunConfig& b) { return cost(a) > cost(b); });

  std::atomic<bool> abort{false};  // set by a failing worker
  auto stopping = [&] { return abort.load() || (options.stop && options.stop->load()); };
  std::atomic<std::size_t> next{0};
  std::mutex mutex;  // guards done, error and on_run_done
  std::size_t done = 0;
  std::exception_ptr error;

  auto worker = [&] {
    for (std::size_t i = next++; i < order.size() && !stopping(); i = next++) {
      try {
        RunResult r = run_experiment(order[i], options.stop);
        if (r.log.interrupted) return;
        save_run(options.out, r);
        std::lock_guard<std::mutex> lock(mutex);
        ++done;
        if (options.on_run_done) options.on_run_done(done, order.size());
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        abort = true;
        return;
      }
    }
  };

  const std::size_t jobs = std::max<std::size_t>(1, std::min(options.jobs, order.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t + 1 < jobs; ++t) threads.emplace_back(worker);
  worker();  // the calling thread works too
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  return {done, done < order.size()};
}

}  // namespace tapegrad::lab
