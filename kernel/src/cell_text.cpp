#include "cell_text.hpp"

#include <cctype>
#include <regex>
#include <set>
#include <stdexcept>

#include "cpp_tokens.hpp"

namespace tapegrad_xcpp {

namespace {

struct Scan {
  std::string code;       // code_only(source)
  bool open_comment = false;
  bool open_literal = false;
};

// code_only() from the tokens (cpp_tokens.hpp): a closed literal keeps its prefix, its two quotes
// and its suffix (u8"  "s; a raw string's delimiter and parentheses are blank), an unterminated one
// is blank; comments and preprocessor lines are blank.
Scan scan(const std::string& s) {
  Scan out;
  out.code = s;
  auto blank = [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k)
      if (out.code[k] != '\n') out.code[k] = ' ';
  };
  for (const CppToken& t : cpp_tokens(s)) {
    if (t.kind == CppToken::comment || t.kind == CppToken::preprocessor) {
      blank(t.begin, t.end);
      out.open_comment = out.open_comment || t.open;
    } else if (t.kind == CppToken::string || t.kind == CppToken::character) {
      const char quote = t.kind == CppToken::string ? '"' : '\'';
      const std::size_t opening = s.find(quote, t.begin), closing = s.find(quote, t.inside_end);
      if (!t.open && closing < t.end) blank(opening + 1, closing);
      else blank(t.begin, t.end);  // unterminated: blank
      out.open_literal = out.open_literal || t.open;
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
  std::set<std::string> seen;
  for (const CppToken& t : cpp_tokens(source))
    if (t.kind == CppToken::identifier) seen.insert(source.substr(t.begin, t.end - t.begin));
  return {seen.begin(), seen.end()};
}

}  // namespace tapegrad_xcpp
