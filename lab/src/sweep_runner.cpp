#include "tapegrad/lab/sweep_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <stdexcept>
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
// The tests' hold point (TAPEGRAD_LAB_HOLD_AFTER_RUNS=N:FILE): once N runs are saved, write FILE
// and start no further run until the sweep is stopped (SIGINT/SIGTERM, or a kill). A test that
// interrupts, cancels or requeues a sweep "after some of its runs finished" waits for FILE instead
// of sleeping, so a faster build cannot finish every run before the signal arrives.
struct HoldPoint {
  std::size_t after_runs = 0;
  std::string file;
};
std::optional<HoldPoint> hold_point_from_environment() {
  const char* value = std::getenv("TAPEGRAD_LAB_HOLD_AFTER_RUNS");
  if (!value) return std::nullopt;
  const std::string text = value;
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw std::invalid_argument("TAPEGRAD_LAB_HOLD_AFTER_RUNS: expected N:FILE, got \"" + text + "\"");
  return HoldPoint{static_cast<std::size_t>(std::stoul(text.substr(0, colon))), text.substr(colon + 1)};
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
  const std::optional<HoldPoint> hold = hold_point_from_environment();
  std::atomic<bool> holding{false};

  auto worker = [&] {
    for (std::size_t i = next++; i < order.size() && !stopping(); i = next++) {
      while (holding && !stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (stopping()) return;
      try {
        RunResult r = run_experiment(order[i], options.stop);
        if (r.log.interrupted) return;
        save_run(options.out, r);
        std::lock_guard<std::mutex> lock(mutex);
        ++done;
        if (options.on_run_done) options.on_run_done(done, order.size());
        if (hold && done == hold->after_runs) {
          holding = true;
          std::ofstream(hold->file) << done << " runs saved\n";
        }
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
