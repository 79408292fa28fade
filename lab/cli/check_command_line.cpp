#include "command.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/results_store.hpp"

namespace tapegrad::lab::cli {

namespace fs = std::filesystem;

namespace {

// A count typed on the command line, checked against its range before it becomes unsigned.
template <class T>
T in_range(const std::string& option, long long value, long long low, long long high, const char* what) {
  if (value < low || value > high)
    throw BadArguments(option + ": " + what + " must be between " + std::to_string(low) + " and " +
                       std::to_string(high) + ", got " + std::to_string(value));
  return static_cast<T>(value);
}

template <class T>
std::vector<T> all_in_range(const std::string& option, const std::vector<long long>& values, long long low,
                            long long high, const char* what) {
  std::vector<T> out;
  for (long long v : values) out.push_back(in_range<T>(option, v, low, high, what));
  return out;
}

void one_of(const std::string& option, const std::string& value, std::initializer_list<const char*> valid) {
  std::string list;
  for (const char* v : valid) {
    if (value == v) return;
    list += (list.empty() ? "" : ", ") + std::string(v);
  }
  throw BadArguments(option + ": expected one of " + list + ", got '" + value + "'");
}

// --arch and its choices, into g.base; the widths must be set already (heads must divide each).
void check_architecture(const CommandLine& o, SweepGrid& g) {
  using L = RunLimits;
  one_of("--arch", o.arch, {"ffn", "transformer"});
  one_of("--init", o.init, {"pytorch", "xavier"});
  one_of("--norm", o.norm, {"layer", "rms", "batch"});
  one_of("--activation", o.activation, {"relu", "gelu"});
  g.base.arch = o.arch;
  g.base.init = o.init;
  g.base.norm = o.norm;
  g.base.activation = o.activation;
  g.base.ffn_mult = in_range<std::size_t>("--ffn-mult", o.ffn_mult, 1, L::max_ffn_mult, "the FFN width multiplier");
  g.base.heads = in_range<std::size_t>("--heads", o.heads, 1, L::max_width, "the number of heads");
  g.base.seq_len = in_range<std::size_t>("--seq-len", o.seq_len, 1, L::max_seq_len, "the sequence length");
  const auto& given = o.sweep_options_given;
  if (o.arch != "transformer")
    for (const char* option : {"--heads", "--seq-len"})
      if (std::find(given.begin(), given.end(), option) != given.end())
        throw BadArguments(std::string(option) + " applies to --arch transformer only");
  if (o.arch == "transformer")
    for (std::size_t d : g.widths)
      if (d % g.base.heads != 0)
        throw BadArguments("--heads " + std::to_string(g.base.heads) + " does not divide the width " +
                           std::to_string(d) + " (each head gets d / heads features); choose widths that are "
                           "multiples of --heads");
}

SweepGrid grid_of(const CommandLine& o) {
  using L = RunLimits;
  SweepGrid g;
  for (const auto& name : o.placements) {
    try {
      g.placements.push_back(nn::parse_placement(name));
    } catch (const Error& e) {
      throw BadArguments(std::string("--placements: ") + e.what());
    }
  }
  for (double lr : o.lrs)
    if (!(lr > 0.0) || !std::isfinite(lr))
      throw BadArguments("--lrs: a learning rate must be a finite number > 0, got " + format_double(lr));
  g.lrs = o.lrs;
  g.depths = all_in_range<std::size_t>("--depths", o.depths, 1, L::max_depth, "a depth (number of blocks)");
  g.widths = all_in_range<std::size_t>("--widths", o.widths, 1, L::max_width, "a width");
  g.warmups = all_in_range<long>("--warmups", o.warmups, 0, L::max_steps, "a warmup (in steps)");
  g.steps = all_in_range<long>("--steps", o.steps, 1, L::max_steps, "the number of steps");
  g.seeds = all_in_range<std::uint64_t>("--seeds", o.seeds, 0, std::numeric_limits<long long>::max(), "a seed");
  const auto set_size = static_cast<long long>(L::max_set_size);
  g.base.train_size = in_range<std::size_t>("--train-size", o.train_size, 1, set_size, "the train set size");
  g.base.eval_size = in_range<std::size_t>("--eval-size", o.eval_size, 1, set_size, "the eval set size");
  g.base.eval_every = in_range<long>("--eval-every", o.eval_every, 1, L::max_steps, "the eval interval");
  for (long long b : o.batches)
    if (b < 1 || b > o.train_size)
      throw BadArguments("--batch: a batch size must be between 1 and --train-size (" + std::to_string(o.train_size) +
                         "), got " + std::to_string(b));
  g.batches = all_in_range<std::size_t>("--batch", o.batches, 1, set_size, "a batch size");
  check_architecture(o, g);
  return g;
}

// The grid's runs; each checked by validate(RunConfig) (limits, memory), lists without repeats.
std::vector<RunConfig> runs_of(const SweepGrid& g) {
  std::size_t count = 1;  // checked before expanding, so that a huge grid is not built to be refused
  for (std::size_t n : {g.placements.size(), g.lrs.size(), g.warmups.size(), g.depths.size(), g.widths.size(),
                        g.steps.size(), g.batches.size(), g.seeds.size()}) {
    count *= std::max<std::size_t>(n, 1);
    if (count > kMaxRuns)
      throw BadArguments("the options give more than " + std::to_string(kMaxRuns) + " runs; sweep fewer values");
  }
  try {
    return expand(g);
  } catch (const Error& e) {
    throw BadArguments(e.what());
  }
}

// Creates the folder if needed; returns whether it did.
bool check_writable(const std::string& option, const std::string& dir) {
  std::error_code ec;
  const bool existed = fs::exists(dir, ec);
  try {
    ensure_writable_directory(dir);
    return !existed;
  } catch (const Error& e) {
    throw BadArguments(option + ": " + e.what());
  }
}

SweepGrid read_sweep_json(const std::string& folder, const std::string& context) {
  const std::string file = (fs::path(folder) / "sweep.json").string();
  try {
    return sweep_grid_from_json(read_file(file));
  } catch (const Error& e) {
    throw BadArguments(context + ": cannot read " + file + ": " + e.what());
  }
}

Command check_merge(const CommandLine& o) {
  if (!o.sweep_options_given.empty())
    throw BadArguments("merge takes only OUT, the shard folders, --no-plots and --allow-partial (the sweep comes "
                       "from the folders' sweep.json), but got " + o.sweep_options_given.front());
  Command c;
  c.mode = Command::Mode::merge;
  c.out = o.merge_out;
  c.merge_dirs = o.merge_dirs;
  c.plots = !o.no_plots;
  c.allow_partial = o.allow_partial;
  for (std::size_t i = 0; i < o.merge_dirs.size(); ++i) {
    const std::string& dir = o.merge_dirs[i];
    if (!fs::exists(fs::path(dir) / "sweep.json"))
      throw BadArguments("merge: '" + dir + "' is not a results folder (no sweep.json)");
    for (std::size_t j = 0; j < i; ++j)
      if (fs::equivalent(dir, o.merge_dirs[j]))
        throw BadArguments("merge: the folder '" + dir + "' is given twice");
    const SweepGrid g = read_sweep_json(dir, "merge");
    if (i == 0) c.grid = g;
    else if (!(g == c.grid))
      throw BadArguments("merge: '" + dir + "' holds a different sweep than '" + o.merge_dirs[0] +
                         "' (compare their sweep.json)");
  }
  c.runs = runs_of(c.grid);
  if (fs::exists(fs::path(c.out) / "sweep.json") && !(read_sweep_json(c.out, "merge") == c.grid) &&
      fs::exists(runs_dir(c.out)))
    throw BadArguments("merge: the output folder '" + c.out + "' holds results of a different sweep; choose another OUT");
  c.out_created = check_writable("merge", c.out);
  return c;
}

Command check_sweep_or_dump(const CommandLine& o) {
  if (o.allow_partial) throw BadArguments("--allow-partial is an option of merge only");
  Command c;
  c.grid = grid_of(o);
  c.jobs = in_range<std::size_t>("--jobs", o.jobs, 1, kMaxJobs, "the number of threads");
  c.runs = runs_of(c.grid);
  c.plots = !o.no_plots;
  c.resume = o.resume;
  if (!o.dump.empty()) {
    if (o.resume || !o.shard.empty()) throw BadArguments("--dump records one run; it takes no --resume or --shard");
    if (c.runs.size() != 1)
      throw BadArguments("--dump records one run, but the options give " + std::to_string(c.runs.size()) +
                         "; pass single values, e.g. --placements post --depths 2 --lrs 0.01 --warmups 0 --seeds 0");
    c.mode = Command::Mode::dump;
    c.out = o.dump;
    check_writable("--dump", c.out);
    return c;
  }
  c.out = o.out;
  if (!o.shard.empty()) {
    try {
      c.shard = parse_shard(o.shard);
    } catch (const Error& e) {
      throw BadArguments(e.what());
    }
    c.shard_text = o.shard;
  }
  if (o.resume && fs::exists(fs::path(c.out) / "sweep.json") && !(read_sweep_json(c.out, "--resume") == c.grid))
    throw BadArguments("--resume: " + c.out + " holds results of a different sweep (see its sweep.json); "
                       "pass the same options as before, or choose another --out");
  check_writable("--out", c.out);
  return c;
}

}  // namespace

Command check_command_line(const CommandLine& line) {
  return line.merge ? check_merge(line) : check_sweep_or_dump(line);
}

}  // namespace tapegrad::lab::cli
