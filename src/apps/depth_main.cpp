// tapegrad-depth: the depth-stability lab. Trains deep residual stacks with each
// placement of the LayerNorm (post, pre, deepnorm, rezero, sandwich, none) over
// depths, learning rates, warmups and seeds, and reports where each one breaks.
// See include/tapegrad/experiments/*.hpp for the pieces, and --help for use.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "tapegrad/experiments/files.hpp"
#include "tapegrad/experiments/plots.hpp"
#include "tapegrad/experiments/replay.hpp"
#include "tapegrad/experiments/results_store.hpp"
#include "tapegrad/experiments/summary.hpp"
#include "tapegrad/experiments/sweep.hpp"
#include "tapegrad/experiments/sweep_runner.hpp"

extern "C" void openblas_set_num_threads(int num_threads);  // OpenBLAS's own API (cblas.h does not declare it)

namespace fs = std::filesystem;
using namespace tapegrad;
using namespace tapegrad::experiments;

namespace {

constexpr int kExitBadArguments = 2;
constexpr int kExitInterrupted = 130;

// Set by SIGINT/SIGTERM: workers stop at their next step; finished runs are already on disk.
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int sig) {
  g_stop.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C kills at once
}

// A bad command line: message on stderr, exit status 2, before any work.
struct BadArguments : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string out = "results/depth";
  std::vector<std::string> placements{"post", "pre", "deepnorm", "rezero", "sandwich", "none"};
  std::vector<std::size_t> depths{2, 4, 8, 16, 32};
  // Defaults chosen so that Post-Norm's breakdown shows within ~2 minutes on 2 cores:
  // at 3e-3 it trains to depth 16 and collapses at 32; at 1e-2 it collapses from depth 16;
  // a 100-step warmup rescues depth 32 at 3e-3 (see the README section on the lab).
  std::vector<double> lrs{3e-3, 1e-2};
  std::vector<long> warmups{0, 100};
  std::vector<std::uint64_t> seeds{0};
  std::vector<std::size_t> widths{32};
  std::vector<long> steps{200};
  std::vector<std::size_t> batches{64};
  std::size_t train_size = 2048, eval_size = 1024;
  long eval_every = 50;
  std::size_t jobs = std::max(1u, std::thread::hardware_concurrency());
  bool resume = false, no_plots = false;
  std::string shard, dump;
};

SweepGrid make_grid(const Options& o) {
  SweepGrid g;
  for (const auto& name : o.placements) {
    try {
      g.placements.push_back(nn::parse_placement(name));
    } catch (const Error& e) {
      throw BadArguments(std::string("--placements: ") + e.what());
    }
  }
  for (auto d : o.depths)
    if (d == 0) throw BadArguments("--depths: a depth must be at least 1 block, got 0");
  for (auto w : o.widths)
    if (w == 0) throw BadArguments("--widths: a width must be at least 1, got 0");
  for (double lr : o.lrs)
    if (!(lr > 0.0) || !std::isfinite(lr))
      throw BadArguments("--lrs: a learning rate must be a finite number > 0, got " + format_double(lr));
  for (long w : o.warmups)
    if (w < 0) throw BadArguments("--warmups: a warmup must be >= 0 steps, got " + std::to_string(w));
  for (long s : o.steps)
    if (s <= 0) throw BadArguments("--steps: the number of steps must be >= 1, got " + std::to_string(s));
  for (auto b : o.batches)
    if (b == 0 || b > o.train_size)
      throw BadArguments("--batch: a batch size must be between 1 and --train-size (" + std::to_string(o.train_size) +
                         "), got " + std::to_string(b));
  if (o.eval_size == 0) throw BadArguments("--eval-size: must be >= 1");
  if (o.eval_every <= 0) throw BadArguments("--eval-every: must be >= 1, got " + std::to_string(o.eval_every));
  if (o.jobs == 0) throw BadArguments("--jobs: must be >= 1");
  g.lrs = o.lrs, g.warmups = o.warmups, g.depths = o.depths, g.widths = o.widths;
  g.steps = o.steps, g.batches = o.batches, g.seeds = o.seeds;
  g.base.train_size = o.train_size, g.base.eval_size = o.eval_size, g.base.eval_every = o.eval_every;
  return g;
}

std::string clock_text(double seconds) {
  const long s = std::lround(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// "[##########----------] 12/24 runs  0:31 elapsed  ~0:31 left", redrawn in place.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done, std::size_t total) {
    if (!enabled_ || total == 0) return;
    const double elapsed = seconds();
    const std::size_t width = 24, filled = width * done / total;
    std::string bar = std::string(filled, '#') + std::string(width - filled, '-');
    std::string eta = done ? "  ~" + clock_text(elapsed / static_cast<double>(done) * static_cast<double>(total - done)) + " left" : "";
    std::fprintf(stderr, "\r[%s] %zu/%zu runs  %s elapsed%s   ", bar.c_str(), done, total, clock_text(elapsed).c_str(),
                 eta.c_str());
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

// Assemble the CSVs, draw the plots, print and save the summary.
void finish(const std::string& out, const SweepGrid& grid, const std::vector<RunConfig>& runs, bool plots) {
  const Assembly a = assemble(out, runs);
  if (a.missing) std::cerr << "warning: " << a.missing << " runs have no results in " << runs_dir(out) << "\n";
  std::cout << "Wrote " << (fs::path(out) / "runs.csv").string() << ", curves.csv, init_grads.csv (" << a.outcomes.size()
            << " runs)\n";
  if (plots) {
    const auto scripts = write_plot_scripts(out, grid);
    const std::string gnuplot = find_gnuplot();
    if (gnuplot.empty()) {
      std::cerr << "warning: gnuplot not found; skipping the plots (the scripts are in " << out
                << "; install gnuplot-nox and run them there)\n";
    } else {
      const std::string problems = render_plots(out, scripts, gnuplot);
      if (!problems.empty()) std::cerr << "warning: " << problems << "\n";
      else std::cout << "Plots: " << out << "/{curves_lr*_w*,eval_vs_depth,init_grads}.png (scripts: *.gp)\n";
    }
  }
  const std::string table = summary_table(grid, a.outcomes);
  write_file_atomically((fs::path(out) / "summary.txt").string(), table);
  std::cout << "\n" << table;
}

int run_dump(const Options& o, const SweepGrid& grid) {
  const auto runs = expand(grid);
  if (runs.size() != 1)
    throw BadArguments("--dump records one run, but the options give " + std::to_string(runs.size()) +
                       "; pass single values, e.g. --placements post --depths 2 --lrs 0.01 --warmups 0 --seeds 0");
  try {
    ensure_writable_directory(o.dump);
  } catch (const Error& e) {
    throw BadArguments(std::string("--dump: ") + e.what());
  }
  const RunResult r = write_replay(o.dump, runs[0]);
  std::cout << "Wrote the replay record of " << run_id(runs[0]) << " to " << o.dump << " (" << r.log.curve.size()
            << " steps, final train loss " << format_double(r.log.curve.back().loss)
            << "). Replay: /usr/bin/python3 tools/replay_torch.py " << o.dump << "\n";
  return 0;
}

int run_sweep(const Options& o, const SweepGrid& grid) {
  Shard shard;
  if (!o.shard.empty()) {
    try {
      shard = parse_shard(o.shard);
    } catch (const Error& e) {
      throw BadArguments(e.what());
    }
  }
  const auto all = expand(grid);
  try {
    ensure_writable_directory(o.out);
  } catch (const Error& e) {
    throw BadArguments(std::string("--out: ") + e.what());
  }
  const std::string sweep_json = (fs::path(o.out) / "sweep.json").string();
  if (o.resume && fs::exists(sweep_json) && !(sweep_grid_from_json(read_file(sweep_json)) == grid))
    throw BadArguments("--resume: " + o.out + " holds results of a different sweep (see its sweep.json); "
                       "pass the same options as before, or choose another --out");

  std::vector<RunConfig> mine, pending;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (shard.contains(i)) mine.push_back(all[i]);
  if (o.resume) remove_partial_runs(o.out);
  else remove_all_runs(o.out);
  write_file_atomically(sweep_json, to_json(grid));
  for (const auto& c : mine)
    if (!(o.resume && run_finished(o.out, c))) pending.push_back(c);

  std::cout << "tapegrad-depth: " << mine.size() << " runs" << (shard.count > 1 ? " (shard " + o.shard + " of " + std::to_string(all.size()) + ")" : "")
            << ", " << pending.size() << " to do" << (mine.size() > pending.size() ? " (" + std::to_string(mine.size() - pending.size()) + " finished before, skipped)" : "")
            << ", on " << std::min(o.jobs, std::max<std::size_t>(1, pending.size())) << " threads; results in " << o.out << "\n"
            << std::flush;

  ProgressBar bar(::isatty(STDERR_FILENO));
  bar.update(0, pending.size());
  SweepRunOptions ro;
  ro.out = o.out;
  ro.jobs = o.jobs;
  ro.stop = &g_stop;
  ro.on_run_done = [&](std::size_t done, std::size_t total) { bar.update(done, total); };
  const SweepRunOutcome outcome = run_all(pending, ro);
  if (outcome.interrupted) {
    std::cerr << "\ninterrupted: " << outcome.ran << " runs finished now and are kept in " << runs_dir(o.out)
              << "; rerun with the same options and --resume to continue\n";
    return kExitInterrupted;
  }
  std::cout << "Trained " << outcome.ran << " runs in " << clock_text(bar.seconds()) << " (m:ss)\n";
  finish(o.out, grid, mine, !o.no_plots);
  return 0;
}

int run_merge(const std::string& out, const std::vector<std::string>& shard_dirs, bool plots) {
  SweepGrid grid;
  for (std::size_t i = 0; i < shard_dirs.size(); ++i) {
    const std::string file = (fs::path(shard_dirs[i]) / "sweep.json").string();
    if (!fs::exists(file)) throw BadArguments("merge: '" + shard_dirs[i] + "' is not a results folder (no sweep.json)");
    const SweepGrid g = sweep_grid_from_json(read_file(file));
    if (i == 0) grid = g;
    else if (!(g == grid))
      throw BadArguments("merge: '" + shard_dirs[i] + "' holds a different sweep than '" + shard_dirs[0] +
                         "' (compare their sweep.json)");
  }
  try {
    ensure_writable_directory(out);
  } catch (const Error& e) {
    throw BadArguments(std::string("merge: ") + e.what());
  }
  const auto all = expand(grid);
  fs::create_directories(runs_dir(out));
  std::size_t copied = 0;
  for (const auto& dir : shard_dirs) {
    if (fs::equivalent(fs::absolute(dir), fs::absolute(out))) continue;  // already in place
    for (const auto& c : all) {
      if (!run_finished(dir, c)) continue;
      const fs::path tmp = fs::path(runs_dir(out)) / (".tmp-" + run_id(c));
      fs::remove_all(tmp);
      fs::copy(run_dir(dir, c), tmp, fs::copy_options::recursive);
      fs::remove_all(run_dir(out, c));
      fs::rename(tmp, run_dir(out, c));
      ++copied;
    }
  }
  sync_directory(runs_dir(out));
  write_file_atomically((fs::path(out) / "sweep.json").string(), to_json(grid));
  std::cout << "merge: " << copied << " runs from " << shard_dirs.size() << " folders into " << out << "\n";
  finish(out, grid, all, plots);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  openblas_set_num_threads(1);  // one BLAS thread per run; the runs themselves are parallel

  Options o;
  CLI::App app{
      "tapegrad-depth: the depth-stability lab.\n\n"
      "Trains residual stacks  input Linear(16->d) -> L blocks -> [final LayerNorm] -> head Linear(d->8)\n"
      "(each block an FFN d->4d->d with ReLU and the LayerNorm placed as --placements says) with Adam and\n"
      "linear warmup on a teacher task (x ~ N(0,I) in 16 dims, labels = argmax of a random tanh MLP, 8 classes),\n"
      "for every combination of the list options, in parallel, and reports which depths each placement survives.\n"
      "A run FAILED if its loss went NaN/Inf or its final eval loss is above 0.7*ln 8 = 1.456 (a collapse).\n\n"
      "Writes into --out: runs.csv (one row per run), curves.csv (per run and step: loss, gradient norm, lr,\n"
      "eval loss every --eval-every steps), init_grads.csv (per run and block, at init: ||dL/d fc2.weight|| and\n"
      "the hidden-state norm), PNG plots drawn by gnuplot with their scripts (*.gp), summary.txt, sweep.json,\n"
      "and runs/ (one folder per finished run, written atomically; --resume skips them).\n\n"
      "Examples:\n"
      "  tapegrad-depth                                      # the default sweep (about 2-3 minutes on 2 cores)\n"
      "  tapegrad-depth --placements post,pre --depths 4,16 --lrs 3e-3 --out results/small\n"
      "  tapegrad-depth --shard 0/4 --out results/shard0   # ...one shard per machine, then:\n"
      "  tapegrad-depth merge results/depth results/shard0 results/shard1 results/shard2 results/shard3\n"
      "  tapegrad-depth --dump replay/post --placements post --depths 2 --widths 8 --lrs 0.01 --warmups 0 --steps 20\n"
      "  /usr/bin/python3 tools/replay_torch.py replay/post   # the same run in PyTorch\n\n"
      "Exit status: 0 done, 1 error while running, 2 bad arguments, 130 interrupted (rerun with --resume)."};
  app.option_defaults()->always_capture_default();
  app.add_option("-o,--out", o.out, "Output folder");
  app.add_option("--placements", o.placements, "Norm placements: post, pre, deepnorm, rezero, sandwich, none")
      ->delimiter(',');
  app.add_option("--depths", o.depths, "Depths L (number of residual blocks)")->delimiter(',');
  app.add_option("--lrs", o.lrs, "Peak learning rates of Adam")->delimiter(',');
  app.add_option("--warmups", o.warmups, "Linear warmup lengths in steps (0: none): lr*min(1,(t+1)/W)")->delimiter(',');
  app.add_option("--seeds", o.seeds, "Seeds (each its own data, init and batches)")->delimiter(',');
  app.add_option("-d,--widths", o.widths, "Widths d of the residual stream")->delimiter(',');
  app.add_option("--steps", o.steps, "Training steps per run")->delimiter(',');
  app.add_option("--batch", o.batches, "Minibatch sizes")->delimiter(',');
  app.add_option("--train-size", o.train_size, "Train set size (drawn once per seed)");
  app.add_option("--eval-size", o.eval_size, "Eval set size (drawn once per seed)");
  app.add_option("--eval-every", o.eval_every, "Evaluate every this many steps (for the collapse criterion)");
  app.add_option("-j,--jobs", o.jobs, "Runs in parallel (threads; default: number of cores)");
  app.add_flag("--resume", o.resume, "Continue a sweep in --out: skip the runs already finished");
  app.add_option("--shard", o.shard, "Run only the i-th of n slices of the sweep (i/n, 0 <= i < n); merge them after");
  app.add_option("--dump", o.dump, "Write the replay record of the one run the options select into this folder "
                                   "(config.json, initial parameters, data, batches, losses as .npy) and stop");
  app.add_flag("--no-plots", o.no_plots, "Do not write or draw the gnuplot figures");

  std::string merge_out;
  std::vector<std::string> merge_dirs;
  CLI::App* merge = app.add_subcommand("merge", "Join the results folders of shards into OUT, giving the same files an "
                                                "unsharded sweep writes:  merge OUT SHARD_DIR...");
  merge->add_option("out", merge_out, "Output folder")->required();
  merge->add_option("shard_dirs", merge_dirs, "Results folders of the shards")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints --help, or the message and a hint
    return code == 0 ? 0 : kExitBadArguments;
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    if (merge->parsed()) return run_merge(merge_out, merge_dirs, !o.no_plots);
    const SweepGrid grid = make_grid(o);
    try {
      expand(grid);  // every list non-empty, no repeats, every run valid
    } catch (const Error& e) {
      throw BadArguments(e.what());
    }
    if (!o.dump.empty()) return run_dump(o, grid);
    return run_sweep(o, grid);
  } catch (const BadArguments& e) {
    std::cerr << "tapegrad-depth: " << e.what() << "\nRun with --help for the options.\n";
    return kExitBadArguments;
  } catch (const std::exception& e) {
    std::cerr << "tapegrad-depth: error: " << e.what() << "\n";
    return 1;
  }
}
