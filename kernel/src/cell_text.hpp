#pragma once
// What the kernel reads from a cell's text before clang sees it: the `#pragma cling`
// lines (clang ignores them; the kernel acts on them), and a last expression written
// without `;` (shown as the cell's result, as xeus-cling does). Plain string work, no
// clang, so that it is easy to test and to step through.

#include <string>
#include <vector>

namespace tapegrad_xcpp {

// One `#pragma cling kind("argument")` line (line is 1-based).
struct ClingPragma {
  std::string kind;
  std::string argument;
  int line = 0;
};

struct Cell {
  std::vector<ClingPragma> pragmas;
  // The code to compile: the cell with its pragma lines blanked (so clang's line
  // numbers stay those of the cell), up to the trailing expression.
  std::string body;
  // A last expression without `;` (e.g. `x` or `tg::tape()`), or "" if there is none.
  std::string trailing_expression;
};

// Splits a cell; throws std::invalid_argument for a `#pragma cling` line it cannot read.
Cell read_cell(const std::string& source);

// Jupyter's is_complete: "complete", or "incomplete" while brackets, a string or a
// comment are still open (the front end then lets the user keep typing).
std::string completeness(const std::string& source);

// The identifiers in a piece of code (outside comments and strings), for completion.
std::vector<std::string> identifiers_in(const std::string& source);

// The code with comments, the insides of string/character literals and preprocessor
// lines replaced by spaces (same length, same line breaks): what the scanners above read.
std::string code_only(const std::string& source);

}  // namespace tapegrad_xcpp
