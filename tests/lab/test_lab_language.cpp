// The lab in Chinese (--lang zh, TAPEGRAD_LANG=zh): summary.txt, index.html and the plots' text in
// Chinese (lab_text.hpp), the table aligned by display width, and what a program reads still English.

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "lab/lab_helpers.hpp"
#include "helpers.hpp"
#include "tapegrad/debug/text_width.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/html_report.hpp"
#include "tapegrad/lab/lab_text.hpp"
#include "tapegrad/lab/plots.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/summary.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The tiny sweep's outcomes: post at depth 2 collapsed, the rest trained.
std::vector<RunOutcome> outcomes_of(const SweepGrid& g) {
  std::vector<RunOutcome> outcomes;
  for (const auto& c : expand(g)) outcomes.push_back({c, 0.5, 0.6, false, -1, ""});
  outcomes[1].eval_loss = 1.9, outcomes[1].failed = true, outcomes[1].fail_reason = "collapse";
  return outcomes;
}

}  // namespace

TEST_CASE("lab_language: --lang, else TAPEGRAD_LANG, zh* is Chinese", "[lab]") {
  const char* before = std::getenv("TAPEGRAD_LANG");
  const std::string saved = before ? before : "";
  ::setenv("TAPEGRAD_LANG", "zh_CN.UTF-8", 1);
  CHECK(lab_language("") == Lang::zh);
  CHECK(lab_language("en") == Lang::en);  // the option wins over the environment
  ::setenv("TAPEGRAD_LANG", "fr", 1);
  CHECK(lab_language("") == Lang::en);
  CHECK(lab_language("zh") == Lang::zh);
  ::unsetenv("TAPEGRAD_LANG");
  CHECK(lab_language("") == Lang::en);
  if (before) ::setenv("TAPEGRAD_LANG", saved.c_str(), 1);
}

TEST_CASE("summary.txt in Chinese: the same cells, columns aligned on screen", "[lab]") {
  SweepGrid g = testing::tiny_grid();
  g.lrs = {1e-2, 3e-3};
  g.warmups = {0, 100};
  const auto outcomes = outcomes_of(g);
  const std::string en = summary_table(g, outcomes), zh = summary_table(g, outcomes, Lang::zh);
  INFO(zh);
  const auto en_lines = lines_of(en), zh_lines = lines_of(zh);
  // The header and a row per placement: every line of the table as wide as the others on screen.
  REQUIRE(zh_lines.size() >= 4);
  CHECK(zh_lines[1].rfind("放置方式", 0) == 0);
  for (std::size_t i = 2; i <= 3; ++i) {
    CHECK(display_width(zh_lines[i]) == display_width(zh_lines[1]));
    // The row's placement name and cells are the English row's, only the spacing differs.
    std::istringstream e(en_lines[i]), z(zh_lines[i]);
    std::vector<std::string> en_words, zh_words;
    for (std::string w; e >> w;) en_words.push_back(w);
    for (std::string w; z >> w;) zh_words.push_back(w);
    CHECK(zh_words == en_words);
  }
  // No column wider than its widest text on screen (a width counted in bytes would pad the Chinese headers).
  CHECK(zh_lines[1] == "放置方式  学习率=0.01 预热=0  学习率=0.01 预热=100  学习率=0.003 预热=0  学习率=0.003 预热=100");
  CHECK(zh_lines[2].back() != ' ');
  // Row labels wider than the Chinese header (a listed setting): the header padded to them by columns, not
  // bytes (std::setw would count 放置方式 as 12 and pad it too little).
  SweepGrid listed = g;
  listed.precisions = {RunPrecision::fp64, RunPrecision::fp16_mixed};
  const auto wide = lines_of(summary_table(listed, outcomes_of(listed), Lang::zh));
  INFO(summary_table(listed, outcomes_of(listed), Lang::zh));
  REQUIRE(wide.size() >= 6);
  CHECK(wide[2].rfind("post fp64 ", 0) == 0);
  for (std::size_t i = 2; i <= 5; ++i) CHECK(display_width(wide[i]) == display_width(wide[1]));
  CHECK(zh.find("placement") == std::string::npos);
  CHECK(zh.find("Deepest") == std::string::npos);
  CHECK(zh.find("训练成功的最深堆叠") != std::string::npos);
  CHECK(zh.find("0.5*ln(8) = 1.04") != std::string::npos);  // numbers as in English
  CHECK(run_counts(outcomes, Lang::zh) == "1 次失败，共 " + std::to_string(outcomes.size()) +
                                             " 次运行（0 次出现 NaN/Inf，1 次崩溃：最终评估损失高于阈值）。\n");
  // English is the default, and as before.
  CHECK(summary_table(g, outcomes, Lang::en) == en);
  CHECK(en_lines[1].rfind("placement  lr=0.01 warmup=0", 0) == 0);
}

TEST_CASE("index.html and the plots in Chinese: file names, classes and columns stay English", "[lab]") {
  const std::string out = testing::scratch_dir("lab-zh");
  SweepGrid g = testing::tiny_grid();
  const auto runs = expand(g);
  for (const auto& c : runs) save_run(out, run_experiment(c));
  const Assembly a = assemble(out, runs);

  const std::string page = html_report(out, g, a.outcomes, summary_table(g, a.outcomes, Lang::zh), Lang::zh);
  CHECK(page.find("<html lang=\"zh-CN\">") != std::string::npos);
  CHECK(page.find("font-family:'Noto Sans CJK SC'") != std::string::npos);
  for (const char* word : {"<h2>汇总</h2>", "<h2>图</h2>", "<h2>选项</h2>", "<h2>运行</h2>", "<th>放置方式</th>",
                           "<th>学习率</th>", "<th>预热</th>", "<th>评估损失</th>", "href=\"summary.txt\""})
    CHECK(page.find(word) != std::string::npos);
  for (const char* word : {"Summary", "Plots", "finished runs", "(median", "train loss", ">trained"})
    CHECK(page.find(word) == std::string::npos);
  // The classes a style or test reads stay English (these tiny runs fail, or train).
  CHECK((page.find("<td class=\"failed\"") != std::string::npos || page.find("<td class=\"trained\"") != std::string::npos));
  const std::string english = html_report(out, g, a.outcomes, summary_table(g, a.outcomes));
  CHECK(english.find("<html><head>") != std::string::npos);
  CHECK(english.find("<h2>Summary</h2>") != std::string::npos);

  const auto scripts = write_plot_scripts(out, g, Lang::zh);
  for (const std::string& name : scripts) {
    const std::string script = read_file(out + "/" + name);
    INFO(name);
    CHECK(script.find("font 'Noto Sans CJK SC,9'") != std::string::npos);
    // No English left in what the figure says (the CSV column names are not in the scripts).
    for (const char* word : {"against", "loss", "depth", "chance", "seed", "markers", "block", "lr =", "warmup",
                             "clipped", "coincide", "per point", "per line"})
      CHECK(script.find(std::string("'") + word) == std::string::npos);
    for (const char* word : {"against", "markers offset", "chance:", "eval loss", "gradient norm", "initialisation",
                             "per line", "per point", "steps"})  // "batch" stays, as the glossary keeps it
      CHECK(script.find(word) == std::string::npos);
  }
  CHECK(read_file(out + "/eval_vs_depth.gp").find("xlabel '深度 L（块数）'") != std::string::npos);
  write_plot_scripts(out, g);
  CHECK(read_file(out + "/eval_vs_depth.gp").find("font 'sans,9'") != std::string::npos);
  std::filesystem::remove_all(out);
}
