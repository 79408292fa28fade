// The hint in levels (Options::hint_level, --hint 1|2|3): 1 names what is wrong, 2 adds the formula, 3 the
// learner's line; 0 (the default) is the hint as it always was.
#include <fstream>

#include "exercise_test_common.hpp"

namespace scale_missing {
#include "mistakes/09_attention_backward__scale_missing.cpp"
}  // namespace scale_missing

using namespace tapegrad::exercise;

namespace {

const std::string kFile = std::string(TAPEGRAD_SOURCE_DIR) + "/tests/exercises/mistakes/09_attention_backward__scale_missing.cpp";

Report at_level(int level, const std::string& lang = "en") {
  Options o;
  o.lang = lang;
  o.hint_level = level;
  o.source = kFile;
  return check_attention_backward(scale_missing::attention_backward, o);
}

// The line number of the first line of `file` holding `text` (0: none).
int line_of(const std::string& file, const std::string& text) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

}  // namespace

TEST_CASE("exercise: --hint levels, 0 is the hint as it was, 1 what is wrong, 2 the formula, 3 the line", "[exercise]") {
  const Report plain = check_attention_backward(scale_missing::attention_backward, english());
  const Report l0 = at_level(0), l1 = at_level(1), l2 = at_level(2), l3 = at_level(3);
  INFO("0: " << l0.hint << "\n1: " << l1.hint << "\n2: " << l2.hint << "\n3: " << l3.hint);
  for (const Report* r : {&l0, &l1, &l2, &l3}) CHECK(r->diagnosis == "scale_missing");
  CHECK(l0.hint == plain.hint);
  // 1: what is wrong, no formula.
  CHECK(l1.hint == "The 1/√D is missing from dq or dk (or both).");
  // 2: that, and the formula, without the why.
  CHECK(l2.hint.rfind(l1.hint, 0) == 0);
  CHECK(l2.hint.find("dq = dS k / √D, dk = dSᵀ q / √D") != std::string::npos);
  CHECK(l2.hint.size() < l0.hint.size() + 60);
  // 3: and the line where the first failing output (dq) is computed in the learner's file.
  CHECK(l3.hint.rfind(l2.hint, 0) == 0);
  const int line = line_of(kFile, "g.dq(i, d) += dS * k(j, d);");
  REQUIRE(line > 0);
  CHECK(l3.hint.find("line " + std::to_string(line) + " of " + kFile) != std::string::npos);
  CHECK(l3.hint.find("g.dq(i, d) += dS * k(j, d);") != std::string::npos);
}

TEST_CASE("exercise: --hint levels in Chinese, and level 3 without a file names the function", "[exercise]") {
  const Report zh1 = at_level(1, "zh");
  INFO(zh1.hint);
  CHECK(zh1.hint == "dq 或 dk（或两者）少了 1/√D。");
  Options o = english();
  o.hint_level = 3;
  const Report no_file = check_attention_backward(scale_missing::attention_backward, o);
  INFO(no_file.hint);
  CHECK(no_file.hint.find("Look at where attention_backward computes dq.") != std::string::npos);
}

TEST_CASE("exercise: the driver takes --hint 1 to 3 and refuses other levels", "[exercise]") {
  const auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), "check");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return main_with(static_cast<int>(argv.size()), argv.data(), [](const Options& o) {
      CHECK(o.hint_level == 2);
      return check_attention_backward(scale_missing::attention_backward, o);
    });
  };
  CHECK(run({"--hint", "2", "--format", "machine"}) == 1);  // a failing check: exit 1
  CHECK(run({"--hint", "4"}) == 2);
}
