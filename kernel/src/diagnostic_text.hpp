#pragma once
// clang's diagnostics as the learner should read them: about the cell they typed, not about the code the
// kernel compiled. The kernel wraps a cell's parts (cell_wrap.hpp: a declaration in the cell's inline
// namespace, a statement in a function run once); clang then reports positions in the wrapped text. Here the
// wrappers come out again, and the columns move with them: in "input_line_7:1:16:", in the quoted source
// line, and in the caret and fix-it lines under it, so that the ^ stands under the spot, as in cling.
// Plain string work, no clang (tests/kernel/diagnostic_text_cases.cpp).

#include <string>
#include <vector>

namespace tapegrad_xcpp {

// The comment the kernel puts after the closing brace of a cell's inline namespace, so that the brace can be
// told from the learner's own and taken out of a diagnostic's quoted line.
inline constexpr const char* kNamespaceEndMarker = " }/*__tgx*/";

// A diagnostic (or any text the kernel shows: a symbol's name, a declaration) without the kernel's wrappers.
std::string without_wrappers(const std::string& text);

// A diagnostic's quoted lines of the cell (those under an "input_line_N:L:C:" location) replaced by the cell's
// line L as typed, where the two are of one length: the kernel's rewrites that keep the columns (a top-level
// lambda's `[&]` compiled as `[ ]`, cell_wrap.cpp) are not shown to the learner. CELL: the text the kernel split
// (its lines are the diagnostics' line numbers).
std::vector<std::string> with_cell_lines(std::vector<std::string> diagnostic, const std::string& cell);

// The text's lines, without their '\n'.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace tapegrad_xcpp
