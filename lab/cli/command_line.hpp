#pragma once
// tapegrad-depth's command line as typed, before any check. The run's settings are not listed here:
// every field of the table (tapegrad/lab/run_fields.hpp) that has an option is declared from its row
// (command_line.cpp) and its words kept by field key; check_command_line turns them into a grid through
// the same table. The options here are the program's own (--out, --jobs, --resume, ...).
//
// A new run setting is a row in the table and nothing here; a new program option is a field here, its
// declaration in command_line.cpp and its check in check_command_line.cpp.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tapegrad::lab::cli {

struct CommandLine {
  std::string out = "results/depth";
  // The run fields' words by field key ("depth" -> {"2", "4", "8", "16", "32"}): the default sweep's (the
  // table's sweep_default, else RunConfig's default) unless the command line or the preset gives others.
  // Numbers stay words until check_command_line, so that "--depths -4" is seen as -4 and refused.
  std::map<std::string, std::vector<std::string>> words;
  std::string preset = "default";  // "transformer": the defaults of the Transformer sweep (apply_preset)
  long long jobs = 0;  // 0 until parsed: the number of cores
  bool resume = false, no_plots = false;
  std::string lang;  // --lang: "" (then $TAPEGRAD_LANG), "en" or "zh" (lab_text.hpp)
  bool overwrite = false;  // replace the runs of a different sweep in --out (else refused: they would be lost)
  std::string shard, dump;
  std::string diagnose;                   // --diagnose DIR: the papers' diagnostics of every run (paper_diagnostics.hpp)
  long long grad_batches = 16, tracked_steps = 100;
  std::vector<std::string> sweep_options_given;  // the sweep options on the command line ("--depths", ...)
  std::vector<std::string> fields_given;         // the run fields among them, by key ("depth", ...)
  std::map<std::string, std::string> typed;      // by field key, the option's name as typed ("--precision"), for messages

  // merge OUT SHARD_DIR... [--allow-partial] [--no-plots]
  bool merge = false, allow_partial = false;
  std::string merge_out;
  std::vector<std::string> merge_dirs;
};

// Parses argv with CLI11. Returns an exit status when the program should stop at
// once (--help: 0; an unknown option or a word that is not a number: 2, the
// message printed), else nothing: go on to check_command_line.
std::optional<int> parse_command_line(int argc, char** argv, CommandLine& line);

// --preset transformer: the Transformer sweep's words by field key (docs/lab.md says why these values), every
// one the user did not give; its text for --help and docs/lab.md, and its measured time.
const std::vector<std::pair<std::string, std::string>>& transformer_preset();
std::string transformer_preset_text();  // "--arch transformer --init xavier --placements post,pre,..."
// --preset llama: the transformer preset's words with LLaMA's block (norm rms, activation swiglu, positions rope,
// kv_heads 2) and placements post,pre.
const std::vector<std::pair<std::string, std::string>>& llama_preset();
std::string preset_text(const std::vector<std::pair<std::string, std::string>>& preset);
// How many runs a preset's sweep has (the product of its axes' lists; {}: the default sweep's).
std::size_t preset_runs(const std::vector<std::pair<std::string, std::string>>& preset);
// How long a sweep takes, from the measured CPU seconds per run of docs/lab/times.txt (scripts/measure-times.sh;
// lab/CMakeLists.txt passes them in): "360 runs, about N CPU-seconds (S s a run, measured: docs/performance.md)".
std::string measured_time(std::size_t runs, double cpu_seconds_per_run);

// The defaults that depend on other options: --preset transformer's words, and --dump's one seed (0, unless
// --seeds is given: the sweep's default is three seeds, a dump records one run).
void apply_preset(CommandLine& line);

// The option's long name: "--widths" of "-d,--widths".
std::string long_option(const std::string& names);

}  // namespace tapegrad::lab::cli
