#pragma once
// tapegrad-depth's command line as typed, before any check. This is the one place
// that lists the options (command_line.cpp declares them to CLI11, with their help).
//
// Counts are read as signed numbers so that "--depths -4" is seen as −4 and refused
// (check_command_line), not wrapped around to 18446744073709551612.
//
// A new option (e.g. --arch): a field here, its declaration in command_line.cpp, its
// check in check_command_line.cpp; a swept setting also gets an axis in SweepGrid
// (sweep.hpp) and a field in RunConfig (run_config.hpp).

#include <optional>
#include <string>
#include <vector>

namespace tapegrad::lab::cli {

struct CommandLine {
  // The sweep (and --dump): every list option gives one axis of the grid.
  std::string out = "results/depth";
  std::vector<std::string> placements{"post", "pre", "deepnorm", "rezero", "sandwich", "none"};
  std::vector<long long> depths{2, 4, 8, 16, 32};
  // Defaults chosen so that Post-Norm's breakdown shows in about a minute on 2 cores:
  // at 3e-3 it trains to depth 16 and collapses at 32; at 1e-2 it collapses from depth 16;
  // a 100-step warmup rescues depth 32 at 3e-3 (see the README section on the lab).
  std::vector<double> lrs{3e-3, 1e-2};
  std::vector<long long> warmups{0, 100};
  std::vector<long long> seeds{0};
  std::vector<long long> widths{32};
  std::vector<long long> steps{200};
  std::vector<long long> batches{64};
  long long train_size = 2048, eval_size = 1024, eval_every = 50;
  // One value per sweep: the architecture and its choices (RunConfig says what each means).
  std::string arch = "ffn", init = "pytorch", norm = "layer", activation = "relu";
  long long ffn_mult = 4, heads = 4, seq_len = 16;
  std::string preset = "default";  // "transformer": the defaults of the Transformer sweep (apply_preset)
  long long jobs = 0;  // 0 until parsed: the number of cores
  bool resume = false, no_plots = false;
  std::string shard, dump;
  std::vector<std::string> sweep_options_given;  // the sweep options on the command line ("--depths", ...)

  // merge OUT SHARD_DIR... [--allow-partial] [--no-plots]
  bool merge = false, allow_partial = false;
  std::string merge_out;
  std::vector<std::string> merge_dirs;
};

// Parses argv with CLI11. Returns an exit status when the program should stop at
// once (--help: 0; an unknown option or a word that is not a number: 2, the
// message printed), else nothing: go on to check_command_line.
std::optional<int> parse_command_line(int argc, char** argv, CommandLine& line);

// The Transformer sweep's values (apply_preset sets them) and its measured time, for --help and docs/lab.md.
inline const std::string kTransformerPresetSweep =
    "--arch transformer --init xavier --placements post,pre,deepnorm,rezero --depths 2,6,12,24 --lrs 1e-3,3e-3 "
    "--warmups 0,100 --seeds 0,1 --widths 32 --heads 4 --seq-len 8 --steps 200 --batch 16 --train-size 1024 "
    "--eval-size 256";
inline const std::string kTransformerPresetTime = "128 runs, about 10 CPU-minutes (5 minutes on 2 idle cores)";

// --preset transformer: sets every sweep option the user did not give (`given`: names as in
// sweep_options_given, "--depths", ...) to the Transformer sweep's value.
void apply_preset(CommandLine& line);

}  // namespace tapegrad::lab::cli
