#include "command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "exit_status.hpp"
#include "tapegrad/lab/run_fields.hpp"

namespace tapegrad::lab::cli {

namespace {

// The --help text; the limits are printed from the constants that check_command_line enforces.
std::string description() {
  using L = RunLimits;
  const auto n = [](auto x) { return std::to_string(x); };
  return "tapegrad-depth: the depth-stability lab.\n\n"
         "Trains residual stacks of L blocks, the norm placed as --placements says, with Adam and linear warmup,\n"
         "for every combination of the list options, in parallel, and reports which depths each placement survives.\n"
         "  --arch ffn (default): input Linear(16->d) -> L blocks, each an FFN d->m*d->d (m = --ffn-mult) ->\n"
         "    [final norm] -> head Linear(d->8), on a teacher task (x ~ N(0,I) in 16 dims, labels = argmax of a\n"
         "    random tanh MLP, 8 classes).\n"
         "  --arch transformer: token + learned position embeddings -> L Transformer blocks (self-attention with\n"
         "    --heads heads, then the FFN; the placement wraps both sublayers) -> [final norm] -> head Linear(d->8)\n"
         "    at every position, on a copy task (sequences of --seq-len tokens out of 8; the label at position t\n"
         "    is the token 2 places back, cyclically: only attention beats chance).\n"
         "A run FAILED if its loss went NaN/Inf or its final eval loss is above 0.7*ln 8 = 1.456 (a collapse;\n"
         "ln 8 = 2.079 is chance on both tasks).\n\n"
         "Writes into --out: runs.csv (one row per run), curves.csv (per run and step: loss, gradient norm, lr,\n"
         "eval loss every --eval-every steps), init_grads.csv (per run, block and sublayer, at init: ||dL/dW|| of\n"
         "the sublayer's output projection, e.g. ffn.fc2.weight, and the hidden-state norm), output_change.csv (per\n"
         "run: how far the first Adam step moves the logits on a fixed probe batch), PNG plots drawn by gnuplot\n"
         "with their scripts (*.gp), summary.txt, sweep.json, index.html (a page of it all for a browser;\n"
         "`tapegrad-depth report DIR` writes it again),\n"
         "and runs/ (one folder per finished run, written atomically, with a manifest of its files' row counts and\n"
         "checksums; --resume skips the finished runs and runs damaged ones again).\n\n"
         "Limits (larger values are refused before any work): depth <= " + n(L::max_depth) + ", width <= " +
         n(L::max_width) + ", steps, warmup and eval-every <= " + n(L::max_steps) + ", train and eval size <= " +
         n(L::max_set_size) + ", jobs <= " + n(kMaxJobs) + ", at most " + n(kMaxRuns) + " runs, and " +
         n(L::max_bytes >> 30) + " GiB of estimated memory per run.\n\n"
         "Examples:\n"
         "  tapegrad-depth                                      # the default sweep: " +
         measured_time(preset_runs({}), TAPEGRAD_DEFAULT_SWEEP_CPU_PER_RUN) + "\n"
         "  tapegrad-depth --placements post,pre --depths 4,16 --lrs 3e-3 --out results/small\n"
         "  tapegrad-depth --preset transformer --out results/transformer\n"
         "                                                      # " +
         measured_time(preset_runs(transformer_preset()), TAPEGRAD_TRANSFORMER_PRESET_CPU_PER_RUN) + "\n"
         "  tapegrad-depth --arch transformer --placements post,pre --depths 2,8 --init xavier --norm rms --out t\n"
         "  tapegrad-depth --placements post,pre --depths 4,16 --precisions fp64,bf16,fp16,fp16-mixed --out p\n"
         "  tapegrad-depth --shard 0/4 --out results/shard0   # ...one shard per machine, then:\n"
         "  tapegrad-depth merge results/depth results/shard0 results/shard1 results/shard2 results/shard3\n"
         "  tapegrad-depth --dump replay/post --placements post --depths 2 --widths 8 --lrs 0.01 --warmups 0 --steps 20\n"
         "  /usr/bin/python3 tools/replay_torch.py replay/post   # the same run in PyTorch\n\n"
         "Exit status: 0 done, 1 error while running (or merge: runs missing or in two folders), 2 bad arguments\n"
         "(nothing written), 130 interrupted (rerun with --resume).";
}

}  // namespace

std::string measured_time(std::size_t runs, double cpu_seconds_per_run) {
  const double total = static_cast<double>(runs) * cpu_seconds_per_run;
  char text[160];
  if (total < 120)
    std::snprintf(text, sizeof text, "%zu runs, about %.0f CPU-seconds (%.2f s a run, measured: docs/performance.md)",
                  runs, total, cpu_seconds_per_run);
  else
    std::snprintf(text, sizeof text, "%zu runs, about %.1f CPU-minutes (%.2f s a run, measured: docs/performance.md)",
                  runs, total / 60, cpu_seconds_per_run);
  return text;
}

std::string long_option(const std::string& names) { return names.substr(names.rfind(',') + 1); }

// The words of a field's value in RunConfig (its default when the table gives no default sweep).
std::vector<std::string> default_words(const Field& f) {
  std::vector<std::string> words;
  std::string word;
  std::istringstream in(f.sweep_default.empty() ? Field::text(f.get(RunConfig{})) : f.sweep_default);
  while (std::getline(in, word, ',')) words.push_back(word);
  return words;
}

std::optional<int> parse_command_line(int argc, char** argv, CommandLine& o) {
  o.jobs = std::max(1u, std::thread::hardware_concurrency());
  CLI::App app{description()};
  app.option_defaults()->always_capture_default();
  std::vector<CLI::Option*> sweep_options;  // what merge must not be given
  std::vector<std::pair<CLI::Option*, std::string>> field_options;  // and which field each run option sets
  auto sweep_option = [&](const std::string& names, auto& value, const std::string& help) {
    CLI::Option* opt = app.add_option(names, value, help);
    sweep_options.push_back(opt);
    return opt;
  };
  sweep_option("-o,--out", o.out, "Output folder");
  // The run's fields, from the table: a list option for each axis (--depths 2,4,8), one value for the rest.
  for (const Field& f : run_fields()) {
    if (f.option.empty()) continue;
    std::vector<std::string>& words = o.words[f.key] = default_words(f);
    CLI::Option* opt = sweep_option(f.option, words, f.help);
    opt->type_name(f.kind == Field::Kind::count ? "INT" : f.kind == Field::Kind::real ? "FLOAT" : "NAME");
    if (f.is_axis() || f.role == Field::Role::setting) opt->delimiter(',');
    else opt->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    field_options.emplace_back(opt, f.key);
  }
  sweep_option("-j,--jobs", o.jobs, "Runs in parallel (threads; default: number of cores)");
  sweep_options.push_back(app.add_flag("--resume", o.resume,
                                       "Continue a sweep in --out: skip the runs already finished, redo damaged ones"));
  sweep_options.push_back(app.add_flag("--overwrite", o.overwrite,
                                       "Replace the runs of a different sweep in --out (without it such a sweep is "
                                       "refused, so that no results are lost by accident)"));
  sweep_option("--shard", o.shard, "Run only the i-th of n slices of the sweep (i/n, 0 <= i < n); merge them after");
  sweep_option("--dump", o.dump, "Write the replay record of the one run the options select into this folder "
                                 "(config.json, initial parameters, data, batches, losses as .npy) and stop; its seed is 0 "
                                 "unless --seeds gives one");
  sweep_option("--diagnose", o.diagnose,
               "Write the papers' diagnostics of every run the options select into this folder and stop: the "
               "expected gradient over --grad-batches minibatches at init, the hidden-state norms against Xiong's "
               "Lemma 2, ||dF|| over the first --tracked-steps updates, the first step's output change "
               "(expected_grads.csv, hidden_norms.csv, update_sizes.csv, output_change.csv)");
  sweep_option("--grad-batches", o.grad_batches, "--diagnose: minibatches K of the expected gradient (>= 16)");
  sweep_option("--tracked-steps", o.tracked_steps, "--diagnose: the updates whose ||dF|| is recorded");
  sweep_option("--preset", o.preset, "default; transformer: the Transformer sweep (" +
                                         preset_text(transformer_preset()) + "); llama: its LLaMA-style twin (" +
                                         preset_text(llama_preset()) +
                                         "); options given too override the preset's")
      ->check(CLI::IsMember({"default", "transformer", "llama"}));
  app.add_flag("--no-plots", o.no_plots, "Do not write or draw the gnuplot figures");
  app.add_option("--lang", o.lang, "The language of index.html, summary.txt and the plots' text: en or zh (default: "
                                   "$TAPEGRAD_LANG, zh* is zh, else en; file names, CSV columns and JSON keys stay English)")
      ->check(CLI::IsMember({"en", "zh"}));
  app.add_flag("--allow-partial", o.allow_partial, "merge: join what the folders hold even if runs are missing");

  CLI::App* merge = app.add_subcommand(
      "merge", "Join the results folders of shards into OUT, giving the same files an unsharded sweep writes:  "
               "merge OUT SHARD_DIR... [--no-plots] [--allow-partial] [--lang en|zh]. Fails (exit 1, naming them) "
               "if runs are missing or in two folders, unless --allow-partial");
  merge->fallthrough();  // the options above may follow the subcommand: merge OUT DIRS... --no-plots
  merge->add_option("out", o.merge_out, "Output folder")->required();
  merge->add_option("shard_dirs", o.merge_dirs, "Results folders of the shards")->required();
  // Declared on the program (they may come before `merge` too), so `merge --help` names them here.
  merge->footer("Options (before or after merge):\n  --no-plots       Do not write or draw the gnuplot figures\n"
                "  --lang en|zh     The language of index.html, summary.txt and the plots' text\n"
                "  --allow-partial  Join what the folders hold even if runs are missing");
  // `report DIR` is run before this parser (depth_main.cpp); declared here so that --help lists it, and so
  // that a report with options before it is refused rather than taken for a sweep.
  CLI::App* report = app.add_subcommand("report", "Write DIR's index.html, CSVs, plots and summary.txt again from its "
                                                  "runs/ and sweep.json:  report DIR (nothing else; in the language "
                                                  "of $TAPEGRAD_LANG)");
  report->allow_extras();
  // `poems` too is run before this parser (depth_main.cpp, poems_command.cpp); here for --help.
  CLI::App* poems = app.add_subcommand("poems", "Train a small GPT on the Tang poems (or English fortunes), report "
                                                "its validation bits per character against the unigram and bigram "
                                                "baselines, and write text from a prompt:  poems [options] (first; "
                                                "poems --help lists them)");
  poems->allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints --help, or the message and a hint
    return code == 0 ? kExitDone : kExitBadArguments;
  }
  o.merge = merge->parsed();
  if (poems->parsed()) {
    std::cerr << "tapegrad-depth: poems comes first, before its options: tapegrad-depth poems [options]\n";
    return kExitBadArguments;
  }
  if (report->parsed()) {
    std::cerr << "tapegrad-depth: report takes one folder and no options: tapegrad-depth report DIR\n";
    return kExitBadArguments;
  }
  for (const CLI::Option* opt : sweep_options)
    if (opt->count() > 0) o.sweep_options_given.push_back(opt->get_name());
  for (const auto& [opt, key] : field_options)
    if (opt->count() > 0) o.fields_given.push_back(key);
  // Which of a field's names was typed (--precision or --precisions), so that a message names that one.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i], name = word.substr(0, word.find('='));
    for (const auto& [opt, key] : field_options)
      if (name.rfind("--", 0) == 0 && opt->check_lname(name.substr(2))) o.typed[key] = name;
  }
  apply_preset(o);
  return std::nullopt;
}

const std::vector<std::pair<std::string, std::string>>& transformer_preset() {
  static const std::vector<std::pair<std::string, std::string>> preset{
      {"arch", "transformer"}, {"init", "xavier"},     {"placement", "post,pre,deepnorm,rezero"},
      {"depth", "2,6,12,24"},  {"lr", "1e-3,3e-3"},    {"warmup", "0,100"},
      {"seed", "0,1,2"},       {"d", "32"},            {"heads", "4"},
      {"seq_len", "8"},        {"steps", "200"},       {"batch", "16"},
      {"train_size", "1024"},  {"eval_size", "256"}};
  return preset;
}

// The transformer preset's sweep with LLaMA's block: Pre-RMSNorm, SwiGLU, RoPE (half-split), grouped-query
// attention (4 query heads in 2 groups), and its Post-Norm twin (the same block with post placement).
const std::vector<std::pair<std::string, std::string>>& llama_preset() {
  static const std::vector<std::pair<std::string, std::string>> preset = [] {
    std::vector<std::pair<std::string, std::string>> words = transformer_preset();
    for (auto& [key, value] : words)
      if (key == "placement") value = "post,pre";
    for (const auto& extra : std::vector<std::pair<std::string, std::string>>{
             {"norm", "rms"}, {"activation", "swiglu"}, {"positions", "rope"}, {"kv_heads", "2"}})
      words.push_back(extra);
    return words;
  }();
  return preset;
}

std::string preset_text(const std::vector<std::pair<std::string, std::string>>& preset) {
  std::string text;
  for (const auto& [key, words] : preset)
    text += (text.empty() ? "" : " ") + long_option(run_field(key).option) + " " + words;
  return text;
}

std::string transformer_preset_text() { return preset_text(transformer_preset()); }

std::size_t preset_runs(const std::vector<std::pair<std::string, std::string>>& preset) {
  std::size_t runs = 1;
  for (const Field* axis : axes_in_order()) {
    std::string words = axis->sweep_default;
    for (const auto& [key, given] : preset)
      if (key == axis->key) words = given;
    runs *= 1 + static_cast<std::size_t>(std::count(words.begin(), words.end(), ','));
  }
  return runs;
}

void apply_preset(CommandLine& o) {
  const auto& given = o.fields_given;
  if (o.preset == "transformer" || o.preset == "llama") {
    for (const auto& [key, words] : o.preset == "llama" ? llama_preset() : transformer_preset()) {
      if (std::find(given.begin(), given.end(), key) != given.end()) continue;
      std::vector<std::string>& list = o.words[key];
      list.clear();
      std::istringstream in(words);
      for (std::string word; std::getline(in, word, ',');) list.push_back(word);
    }
  }
  // --dump records one run: the sweep's (or the preset's) three seeds would make it three, so seed 0 unless given.
  if (!o.dump.empty() && std::find(given.begin(), given.end(), "seed") == given.end()) o.words["seed"] = {"0"};
}

}  // namespace tapegrad::lab::cli
