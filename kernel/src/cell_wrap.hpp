#pragma once
// How the kernel rewrites a cell's code before clang compiles it, as cling does:
//   - each top-level *statement* runs inside a function the kernel makes, so a lambda
//     anywhere in it is safe (clang 22 mis-mangles a lambda in a top-level statement,
//     llvm-project PR 217041) and it runs in order with the cell's declarations;
//   - each top-level *declaration* that a learner may run again (a variable, function,
//     struct, class, enum, alias, template, extern variable) goes into the cell's inline
//     namespace, `inline namespace __tgx_N { ... }` (one per cell, reopened for each
//     declaration, as cling's DefinitionShadower does): names stay visible as if global, the
//     cell's declarations complete each other, and a later definition of the same name gets its
//     own mangled names; the kernel then hides the older one from lookup (redefinition.hpp);
//     inside a `namespace N { ... }` block, its declarations are wrapped the same way (the block
//     itself cannot be); a top-level lambda's capture-default is dropped (it captures nothing
//     at namespace scope, where clang refuses it and cling accepts it);
//   - the last expression without `;` (also one ending in `}`: `S{1}`, `std::vector<int>{1, 2}`)
//     is shown as the cell's result;
//   - a last declaration without `;` (`int a = 5`, `std::vector<bool> Bv(5, 5)`, `class C {} c`) is
//     declared, and its (last) variable is shown as the cell's result, as cling does.
// Every piece keeps its line, so clang's diagnostics point at the learner's lines. Plain
// string work on code_only() (cell_text.hpp): no clang here, easy to step through.

#include <string>
#include <vector>

namespace tapegrad_xcpp {

// One top-level piece of a cell's body.
struct Chunk {
  enum Kind { declaration, statement, expression } kind = statement;
  std::size_t begin = 0, end = 0;  // [begin, end) in the body
  bool redefinable = false;        // a declaration that goes into the cell's inline namespace
  bool terminated = true;          // it ends with its `;` (or a body's `}`)
};

// The variable a declaration declares last (`unsigned u1 = 45, u2` -> "u2", `class C {} c` -> "c"),
// or "" if it declares none (a class, an alias, a function definition, ...).
std::string declared_variable(const std::string& body, const Chunk& chunk);

// Whether the cell shows a result: its last piece is an expression, or a declaration of a variable
// without its `;`.
bool shows_result(const std::string& body, const std::vector<Chunk>& chunks);

// The top-level pieces of a body (preprocessor lines and comments are not pieces). The last
// one is an `expression` if it is a statement without its `;`.
std::vector<Chunk> split_top_level(const std::string& body);

// The body as clang gets it: chunks rewritten as above, everything else unchanged, in one
// piece or more (compiled and run one after the other: see wrap_cell), each with the cell's
// line numbers. serial makes the kernel's names unique (one per cell run).
std::vector<std::string> wrap_cell(const std::string& body, unsigned serial);

// The names the kernel itself declares start with this.
inline constexpr const char* kKernelNamePrefix = "__tgx_";

}  // namespace tapegrad_xcpp
