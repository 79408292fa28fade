#include "command.hpp"

#include <algorithm>
#include <filesystem>

#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/text_run.hpp"

namespace tapegrad::lab::cli {

namespace fs = std::filesystem;

namespace {

// A count of the program, not of a run (--jobs, --grad-batches, --tracked-steps): min <= value <= max, said as
// a run's counts are ("--jobs: the number of threads must be between 1 and 256, got 0").
long long checked_count(const char* option, const char* what, long long value, long long min, long long max) {
  if (value < min || value > max)
    throw BadArguments(std::string(option) + ": " + what + " must be between " + std::to_string(min) + " and " +
                       std::to_string(max) + ", got " + std::to_string(value));
  return value;
}

// The option that sets a field, for messages: the name typed ("--precisions" or "--precision"), else its long
// name ("--depths"), or the key for a field without one.
std::string option_of(const CommandLine& o, const std::string& key) {
  if (key.empty()) return "";
  if (const auto typed = o.typed.find(key); typed != o.typed.end()) return typed->second;
  const Field& f = run_field(key);
  return f.option.empty() ? key : long_option(f.option);
}

// A bad value of a run's field, said with the option's name: "--depths: a depth ... got 0".
BadArguments bad_field(const CommandLine& o, const FieldError& e) {
  return BadArguments(e.field.empty() ? e.problem : option_of(o, e.field) + ": " + e.problem);
}

// The grid from the fields' words: each word parsed and checked by its row of the table (the same check
// validate() makes), then the runs expanded, each validated (the rules between fields, the memory).
SweepGrid grid_of(const CommandLine& o) {
  SweepGrid g;
  for (const Field& f : run_fields()) {
    const auto words = o.words.find(f.key);
    if (words == o.words.end()) continue;  // not on the command line: RunConfig's default
    std::vector<FieldValue> values;
    try {
      for (const std::string& word : words->second) {
        values.push_back(f.parse(word));
        const std::string problem = f.problem(values.back());
        if (!problem.empty()) throw FieldError(f.key, problem);
      }
      f.set_grid_values(g, values);
    } catch (const FieldError& e) {
      throw bad_field(o, e);
    } catch (const Error& e) {
      throw BadArguments(option_of(o, f.key) + ": " + e.what());
    }
  }
  if (!is_transformer(g.base))
    for (const std::string& key : o.fields_given)
      if (run_field(key).transformer_only)
        throw BadArguments(option_of(o, key) + " applies to --arch transformer only");
  if (g.base.task != Task::synthetic) {
    if (!is_transformer(g.base))
      throw BadArguments(option_of(o, "task") + " " + to_string(g.base.task) +
                         ": a text task trains a Transformer (--arch transformer, or --preset transformer|llama)");
    if (!o.diagnose.empty() || !o.dump.empty())
      throw BadArguments(option_of(o, "task") + " " + to_string(g.base.task) +
                         ": --diagnose and --dump record the synthetic tasks' models only");
    // classes is the vocabulary on a text task (run_config.hpp): ln K its chance level in the plots.
    g.base.classes = sweep_corpus(g.base.task).vocab.size();
  }
  return g;
}

// The grid's runs, each checked by validate(RunConfig) (limits, memory), lists without repeats.
std::vector<RunConfig> runs_of(const CommandLine& o, const SweepGrid& g) {
  std::size_t count = 1;  // checked before expanding, so that a huge grid is not built to be refused
  for (const Field& f : run_fields()) {
    count *= std::max<std::size_t>(f.grid_values(g).size(), 1);
    if (count > kMaxRuns)
      throw BadArguments("the options give more than " + std::to_string(kMaxRuns) + " runs; sweep fewer values");
  }
  try {
    return expand(g);
  } catch (const FieldError& e) {
    throw bad_field(o, e);
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

// A fresh sweep empties --out's runs/. That is what running the same sweep again means (scripts/lab.sh twice),
// but the runs of a *different* sweep (a quick experiment into the default --out) would be lost: refused.
// A runs/ without a sweep.json cannot be told apart, so it counts as different.
void refuse_to_replace_another_sweep(const std::string& out, const SweepGrid& grid) {
  const std::size_t earlier = count_runs(out);
  if (earlier == 0) return;
  const bool has_sweep = fs::exists(fs::path(out) / "sweep.json");
  if (has_sweep && read_sweep_json(out, "--out") == grid) return;
  throw BadArguments("--out: " + out + " holds " + std::to_string(earlier) + " runs of a different sweep (" +
                     (has_sweep ? "compare its sweep.json" : "it has no sweep.json") +
                     "); this sweep would replace them. Pass --resume with that sweep's options to continue it, "
                     "a new --out for this one, or --overwrite to replace them");
}

Command check_merge(const CommandLine& o) {
  if (!o.sweep_options_given.empty())
    throw BadArguments("merge takes only OUT, the shard folders, --no-plots, --allow-partial and --lang (the sweep "
                       "comes from the folders' sweep.json), but got " + o.sweep_options_given.front());
  Command c;
  c.mode = Command::Mode::merge;
  c.out = o.merge_out;
  c.merge_dirs = o.merge_dirs;
  c.plots = !o.no_plots;
  c.lang = lab_language(o.lang);
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
  c.runs = runs_of(o, c.grid);
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
  c.jobs = static_cast<std::size_t>(checked_count("--jobs", "the number of threads", o.jobs, 1, kMaxJobs));
  c.runs = runs_of(o, c.grid);
  c.plots = !o.no_plots;
  c.lang = lab_language(o.lang);
  c.resume = o.resume;
  if (!o.diagnose.empty()) {
    if (o.resume || !o.shard.empty() || !o.dump.empty())
      throw BadArguments("--diagnose takes no --resume, --shard or --dump");
    c.mode = Command::Mode::diagnose;
    c.grad_batches = static_cast<std::size_t>(
        checked_count("--grad-batches", "the number of minibatches", o.grad_batches, 16, 4096));
    c.tracked_steps = static_cast<long>(
        checked_count("--tracked-steps", "the number of tracked updates", o.tracked_steps, 1, RunLimits::max_steps));
    c.out = o.diagnose;
    check_writable("--diagnose", c.out);
    return c;
  }
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
  if (o.resume && o.overwrite) throw BadArguments("--resume keeps the runs in --out, --overwrite replaces them: pass one");
  if (o.resume && fs::exists(fs::path(c.out) / "sweep.json") && !(read_sweep_json(c.out, "--resume") == c.grid))
    throw BadArguments("--resume: " + c.out + " holds results of a different sweep (see its sweep.json); "
                       "pass the same options as before, or choose another --out");
  c.overwrite = o.overwrite;
  if (!o.resume && !o.overwrite) refuse_to_replace_another_sweep(c.out, c.grid);
  check_writable("--out", c.out);
  return c;
}

}  // namespace

Command check_command_line(const CommandLine& line) {
  return line.merge ? check_merge(line) : check_sweep_or_dump(line);
}

}  // namespace tapegrad::lab::cli
