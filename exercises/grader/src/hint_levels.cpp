// The hint in levels (--hint 1|2|3), as interview trainers give them: the first names what is wrong, the
// second adds the formula, the third the line of the learner's file where the wrong output is computed.
// Level 0 (the default) is the catalogue's hint as written. The levels are cut from that one text (its
// first sentence is what is wrong; its sentences with an '=' are the formula), so a new mistake's hint
// has every level once it is written as the catalogue's hints are: what, why, the formula.

#include <fstream>
#include <regex>
#include <sstream>

#include "grader.hpp"
#include "grader_texts.hpp"

namespace tapegrad::exercise::detail {

namespace {

// The sentences of a hint: English ones end in ". " (or the end), Chinese ones in "。".
std::vector<std::string> sentences(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool english_end = text[i] == '.' && (i + 1 == text.size() || text[i + 1] == ' ');
    const bool chinese_end = text.compare(i, 3, "。") == 0;
    if (!english_end && !chinese_end) continue;
    const std::size_t end = i + (chinese_end ? 3 : 1);
    std::string s = text.substr(start, end - start);
    s.erase(0, s.find_first_not_of(' '));
    if (!s.empty()) out.push_back(s);
    start = end;
    i = end - 1;
  }
  std::string rest = text.substr(std::min(start, text.size()));
  rest.erase(0, rest.find_first_not_of(' '));
  if (!rest.empty() && rest.find_first_not_of(' ') != std::string::npos) out.push_back(rest);
  return out;
}

std::string joined_sentences(const std::vector<std::string>& s, const std::string& lang) {
  std::string out;
  for (const std::string& one : s) out += (out.empty() || lang == "zh" ? "" : " ") + one;
  return out;
}

std::vector<std::string> file_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

}  // namespace

std::string hint_at_level(const std::string& hint, int level, const std::string& lang) {
  if (level <= 0) return hint;
  const std::vector<std::string> all = sentences(hint);
  if (all.empty()) return hint;
  const std::string stop = lang == "zh" ? "。" : ".";
  // What is wrong: the first sentence, up to its first colon (what follows a colon is the why or the formula).
  std::string what = all.front();
  const std::size_t colon = std::min(what.find(": "), what.find("："));
  if (colon != std::string::npos) what = what.substr(0, colon) + stop;
  if (level == 1) return what;
  // The formula: of each sentence with an '=', the part after its last colon when that part holds the '='.
  std::vector<std::string> kept{what};
  for (const std::string& sentence : all) {
    if (sentence.find('=') == std::string::npos) continue;
    const std::size_t en = sentence.rfind(": "), zh = sentence.rfind("：");
    const std::size_t at = en == std::string::npos ? zh : zh == std::string::npos ? en : std::max(en, zh);
    std::string formula = sentence;
    if (at != std::string::npos) {
      const std::string after = sentence.substr(at + (at == en ? 2 : std::string("：").size()));
      if (after.find('=') != std::string::npos) formula = after;
    }
    kept.push_back(formula);
  }
  return joined_sentences(kept, lang);
}

LearnerLine line_computing(const std::string& source, const std::string& function, const std::string& output) {
  const std::vector<std::string> lines = file_lines(source);
  const std::regex definition("^[A-Za-z_][\\w:<>,\\s&*]*\\b" + function + "\\s*\\(");
  const std::regex named("\\b" + output + "\\b");
  std::size_t first = 0;
  while (first < lines.size() && !std::regex_search(lines[first], definition)) ++first;
  // The function's body: from its definition to the brace that closes it.
  std::vector<std::size_t> body;
  int depth = 0;
  bool opened = false;
  for (std::size_t i = first; i < lines.size() && !(opened && depth <= 0); ++i) {
    body.push_back(i);
    for (char ch : lines[i]) {
      if (ch == '{') ++depth, opened = true;
      if (ch == '}') --depth;
    }
  }
  // In order of preference: an update of the output (`g.dk(j, d) += ...`), an assignment to it that is not
  // its allocation (`dx = ...`, not `= Array::from_shape(...)`), the return line.
  const auto found = [&](std::size_t i) { return LearnerLine{static_cast<int>(i) + 1, trimmed(lines[i])}; };
  const auto assigns = [&](const std::string& l, bool compound) {
    std::smatch m;
    if (!std::regex_search(l, m, named)) return false;
    const std::string rest = m.suffix();
    for (std::size_t k = 0; k + 1 < rest.size(); ++k) {
      if (rest[k] == ';') return false;
      const bool op = std::string("+-*/").find(rest[k]) != std::string::npos && rest[k + 1] == '=';
      if (compound && op) return true;
      if (!compound && rest[k] == '=' && rest[k + 1] != '=' && (k == 0 || std::string("=!<>+-*/").find(rest[k - 1]) == std::string::npos))
        return l.find("from_shape") == std::string::npos && l.find("zeros") == std::string::npos;
    }
    return false;
  };
  for (bool compound : {true, false})
    for (std::size_t i : body)
      if (i != first && assigns(lines[i], compound)) return found(i);
  for (std::size_t i : body)
    if (std::regex_search(lines[i], std::regex("^\\s*return\\b"))) return found(i);
  return {};
}

std::string line_pointer(const Report& report, const std::string& source, const std::string& lang) {
  std::string output;
  for (const CheckRow& row : report.rows)
    if (!row.passed) {
      output = row.output.substr(0, row.output.find(' '));
      break;
    }
  const std::string function = report.first_failing_function;
  if (function.empty() || output.empty()) return "";
  const LearnerLine at = source.empty() ? LearnerLine{} : line_computing(source, function, output);
  if (at.line == 0)
    return text::fill(text::look_in_function.in(lang), {{"function", function}, {"output", output}});
  return text::fill(text::look_at_line.in(lang), {{"file", source}, {"line", std::to_string(at.line)},
                                                  {"output", output}, {"code", at.code}});
}

}  // namespace tapegrad::exercise::detail
