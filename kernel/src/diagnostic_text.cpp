#include "diagnostic_text.hpp"

#include <cstddef>
#include <regex>
#include <sstream>
#include <vector>

namespace tapegrad_xcpp {

namespace {

// What the kernel wraps around a cell's parts (cell_wrap.cpp), most specific first: the alternation takes the
// first that matches at a position.
const std::regex& wrapper() {
  static const std::regex w(
      R"(inline namespace __tgx_\d+(?:_\d+)* \{ )"  // a cell's namespace, opened ...
      R"(| \}/\*__tgx\*/)"                           // ... and closed (kNamespaceEndMarker)
      R"(|void __tgx_\d+(?:_\d+)+\(\) \{ \(\()"      // a last expression, whose value is shown
      R"(|\), xcpp::detail::result_sink\{\}\); \} int __tgx_\d+(?:_\d+)+_run = \(__tgx_\d+(?:_\d+)+\(\), 0\);)"
      R"(|void __tgx_\d+(?:_\d+)+\(\) \{ )"           // statements, run once
      R"(| ;\} int __tgx_\d+(?:_\d+)+_run = \(__tgx_\d+(?:_\d+)+\(\), 0\);)"
      R"(|__tgx_\d+(?:_\d+)*::)");                   // a name qualified with its cell's namespace
  return w;
}

struct Cut {
  std::size_t at, length;  // in the line as clang printed it
};

std::vector<Cut> cuts_of(const std::string& line) {
  std::vector<Cut> cuts;
  for (auto m = std::sregex_iterator(line.begin(), line.end(), wrapper()); m != std::sregex_iterator(); ++m)
    cuts.push_back({static_cast<std::size_t>(m->position(0)), static_cast<std::size_t>(m->length(0))});
  return cuts;
}

// The line without the cut spans (a caret line may be shorter than its source line: cut what is there).
std::string cut(const std::string& line, const std::vector<Cut>& cuts) {
  std::string out;
  std::size_t from = 0;
  for (const Cut& c : cuts) {
    if (c.at >= line.size()) break;
    out += line.substr(from, c.at - from);
    from = c.at + c.length;
  }
  return from < line.size() ? out + line.substr(from) : out;
}

// A 1-based column of the source line, after the cuts (which are in the source line's own positions).
std::size_t moved_column(std::size_t column, const std::vector<Cut>& cuts) {
  std::size_t removed = 0;
  for (const Cut& c : cuts) {
    if (c.at + 1 > column) break;
    removed += std::min(c.length, column - 1 - c.at);  // a column inside a wrapper goes to where it was
  }
  return column - removed;
}

// clang's quoted source line "    7 | code" (the gutter's width is the line number's), and the lines under it
// ("      | ^~~~", fix-its) that share its gutter.
const std::regex source_line(R"(^( *\d+ \| ).*)");
const std::regex under_line(R"(^ *\| .*)");
// "input_line_7:1:16: error: ..." (also a warning or note): the line and the column.
const std::regex location(R"(^(input_line_\d+):(\d+):(\d+):(.*))");

}  // namespace

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string without_wrappers(const std::string& text) {
  const std::vector<std::string> lines = lines_of(text);
  std::vector<std::string> out = lines;
  std::vector<bool> done(lines.size(), false);
  std::smatch m;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (done[i] || !std::regex_match(lines[i], m, source_line)) continue;
    const std::size_t gutter = static_cast<std::size_t>(m.length(1));
    std::vector<Cut> cuts = cuts_of(lines[i]);
    out[i] = cut(lines[i], cuts);
    done[i] = true;
    for (std::size_t j = i + 1; j < lines.size() && std::regex_match(lines[j], under_line); ++j)
      out[j] = cut(lines[j], cuts), done[j] = true;
    // The location above it (clang prints the quoted line right after "input_line_N:L:C: ..."): its column.
    if (i > 0 && !done[i - 1] && std::regex_match(lines[i - 1], m, location)) {
      for (Cut& c : cuts) c.at -= gutter;  // into the source line's own positions
      const std::size_t column = moved_column(std::stoul(m.str(3)), cuts);
      out[i - 1] = m.str(1) + ":" + m.str(2) + ":" + std::to_string(column) + ":" +
                   std::regex_replace(m.str(4), wrapper(), "");
      done[i - 1] = true;
    }
  }
  std::string joined;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) joined += '\n';
    joined += done[i] ? out[i] : std::regex_replace(out[i], wrapper(), "");
  }
  return !text.empty() && text.back() == '\n' ? joined + '\n' : joined;
}

std::vector<std::string> with_cell_lines(std::vector<std::string> diagnostic, const std::string& cell) {
  const std::vector<std::string> cell_lines = lines_of(cell);
  std::smatch at, quoted;
  for (std::size_t i = 1; i < diagnostic.size(); ++i) {
    if (!std::regex_match(diagnostic[i - 1], at, location) || !std::regex_match(diagnostic[i], quoted, source_line))
      continue;
    const std::size_t line = std::stoul(at.str(2)), gutter = static_cast<std::size_t>(quoted.length(1));
    if (line >= 1 && line <= cell_lines.size() && diagnostic[i].size() - gutter == cell_lines[line - 1].size())
      diagnostic[i] = quoted.str(1) + cell_lines[line - 1];
  }
  return diagnostic;
}

}  // namespace tapegrad_xcpp
