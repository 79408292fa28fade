#pragma once
// A checked command: what tapegrad-depth will do, with every argument already
// validated (check_command_line) so that the run modes (sweep_command.cpp,
// merge_command.cpp, dump_command.cpp) start work only on good input.

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "tapegrad/lab/lab_text.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab::cli {

// A bad command line: the message goes to stderr and the exit status is 2, before any work.
struct BadArguments : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The lab's limits beyond those of one run (RunLimits): a sweep's size and its threads.
constexpr std::size_t kMaxRuns = 100000;
constexpr long long kMaxJobs = 256;

struct Command {
  enum class Mode { sweep, merge, dump, diagnose } mode = Mode::sweep;
  SweepGrid grid;               // sweep and dump: from the options; merge: from the folders' sweep.json
  std::vector<RunConfig> runs;  // expand(grid)
  std::string out;              // the results folder (merge: OUT; dump: the record's folder)
  Shard shard;                  // sweep only
  std::string shard_text;
  std::size_t jobs = 1;
  bool resume = false, plots = true, allow_partial = false, overwrite = false;
  Lang lang = Lang::en;         // of index.html, summary.txt and the plots (--lang, else $TAPEGRAD_LANG)
  bool out_created = false;     // the check created `out` (a merge that fails removes it again, if still empty)
  std::vector<std::string> merge_dirs;
  std::size_t grad_batches = 16;  // diagnose only
  long tracked_steps = 100;
};

// The one check of the command line: numbers in range, names known, options that
// fit the mode, and the folders usable (an --out to --resume holds the same sweep;
// the folders to merge hold one sweep). Reads files but writes nothing, except
// that it creates the output folder last, once everything else is known good.
// Throws BadArguments saying what is wrong.
Command check_command_line(const CommandLine& line);

// The run modes; each returns the exit status.
int run_sweep(const Command& command, const std::atomic<bool>& stop);
int run_merge(const Command& command);
int run_dump(const Command& command);
int run_diagnose(const Command& command);
// `tapegrad-depth poems [options]`: its own options (poems --help), read before the sweep's parser (poems_command.cpp).
int run_poems_command(int argc, char** argv);

}  // namespace tapegrad::lab::cli
