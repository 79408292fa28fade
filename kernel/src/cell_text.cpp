#include "cell_text.hpp"

#include <cctype>
#include <regex>
#include <set>
#include <stdexcept>

namespace tapegrad_xcpp {

namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// True if only spaces and tabs precede position i on its line.
bool at_line_start(const std::string& s, std::size_t i) {
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) --i;
  return i == 0 || s[i - 1] == '\n';
}

struct Scan {
  std::string code;       // code_only(source)
  bool open_comment = false;
  bool open_literal = false;
};

Scan scan(const std::string& s) {
  Scan out;
  std::string& o = out.code;
  o = s;
  const std::size_t n = s.size();
  std::size_t i = 0;
  auto blank = [&](std::size_t k) {
    if (o[k] != '\n') o[k] = ' ';
  };
  while (i < n) {
    const char c = s[i];
    if (c == '#' && at_line_start(s, i)) {  // a preprocessor line, with its continuations
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') blank(i++);
        blank(i++);
      }
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') blank(i++);
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? n : end + 2;
      if (end == std::string::npos) out.open_comment = true;
      while (i < stop) blank(i++);
    } else if (c == 'R' && i + 1 < n && s[i + 1] == '"' && (i == 0 || !is_identifier_char(s[i - 1]))) {
      const std::size_t paren = s.find('(', i + 2);
      if (paren == std::string::npos) { out.open_literal = true; break; }
      const std::string close = ")" + s.substr(i + 2, paren - i - 2) + "\"";
      const std::size_t end = s.find(close, paren);
      const std::size_t stop = end == std::string::npos ? n : end + close.size();
      if (end == std::string::npos) out.open_literal = true;
      for (std::size_t k = paren + 1; k + 1 < stop && k < n; ++k) blank(k);
      i = stop;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])) &&
                                          i + 1 < n && std::isxdigit(static_cast<unsigned char>(s[i + 1]))))) {
      // a string or character literal (not a digit separator as in 1'000)
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n) blank(i++);
        blank(i++);
      }
      if (i >= n || s[i] == '\n') out.open_literal = (i >= n);
      else ++i;
    } else {
      ++i;
    }
  }
  return out;
}

const std::regex& pragma_line() {
  static const std::regex re(R"re(^\s*#\s*pragma\s+cling\s+(\w+)\s*\(\s*"([^"]*)"\s*\)\s*;?\s*$)re");
  return re;
}

}  // namespace

std::string code_only(const std::string& source) { return scan(source).code; }

Cell read_cell(const std::string& source) {
  Cell cell;
  // Blank the pragma lines (keeping line numbers) and collect them.
  std::string text;
  std::size_t start = 0;
  int line = 1;
  while (start <= source.size()) {
    std::size_t end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    const std::string l = source.substr(start, end - start);
    std::smatch m;
    if (std::regex_match(l, m, pragma_line())) {
      cell.pragmas.push_back({m[1].str(), m[2].str(), line});
    } else if (std::regex_search(l, std::regex(R"(^\s*#\s*pragma\s+cling\b)"))) {
      throw std::invalid_argument("line " + std::to_string(line) + ": cannot read `" + l +
                                  "`; expected #pragma cling add_include_path(\"dir\"), "
                                  "add_library_path(\"dir\") or load(\"library\")");
    } else {
      text += l;
    }
    if (end < source.size()) text += '\n';
    start = end + 1;
    ++line;
  }

  // The trailing expression starts after the last `;` or `}` outside all brackets.
  const std::string code = code_only(text);
  int depth = 0;
  std::size_t after_last = 0;
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && (c == ';' || c == '}')) after_last = i + 1;
  }
  const std::size_t tail = code.find_first_not_of(" \t\r\n", after_last);
  if (tail != std::string::npos && depth == 0) {
    // From the line the expression starts on: preprocessor lines before it stay in the body.
    const std::size_t line_start = code.rfind('\n', tail);
    const std::size_t split = line_start == std::string::npos || line_start < after_last ? after_last : line_start + 1;
    cell.body = text.substr(0, split);
    cell.trailing_expression = text.substr(split);
  } else {
    cell.body = text;
  }
  return cell;
}

std::string completeness(const std::string& source) {
  const Scan s = scan(source);
  if (s.open_comment || s.open_literal) return "incomplete";
  int depth = 0;
  for (char c : s.code) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
  }
  if (depth > 0) return "incomplete";
  return depth < 0 ? "invalid" : "complete";
}

std::vector<std::string> identifiers_in(const std::string& source) {
  const std::string code = code_only(source);
  std::set<std::string> seen;
  std::size_t i = 0;
  while (i < code.size()) {
    if (is_identifier_char(code[i]) && !std::isdigit(static_cast<unsigned char>(code[i]))) {
      std::size_t j = i;
      while (j < code.size() && is_identifier_char(code[j])) ++j;
      seen.insert(code.substr(i, j - i));
      i = j;
    } else if (is_identifier_char(code[i])) {
      while (i < code.size() && is_identifier_char(code[i])) ++i;  // a number
    } else {
      ++i;
    }
  }
  return {seen.begin(), seen.end()};
}

}  // namespace tapegrad_xcpp
