#pragma once
// A cell's #if / #ifdef / #ifndef / #elif / #else / #endif, evaluated before the kernel splits the cell
// (cell_wrap.hpp): the lines of the branches clang will skip are blanked, so that the kernel's wrappers
// are put around the code clang compiles. Without this, a wrapper could open in one branch and close
// in a skipped one (`#ifdef X ... Nested n #else ... #endif` left a namespace open: the check pass's clang
// then never finished), and a last expression in an #elif branch was not shown (issue 45).
//
// The directive lines stay (clang evaluates them again, and agrees). A condition the kernel cannot
// evaluate (a function-like macro, a macro that is not a number) leaves its whole #if ... #endif as it
// is, as before. Plain string work: the macros already defined come from a function the kernel gives.

#include <functional>
#include <optional>
#include <string>

namespace tapegrad_xcpp {

// A macro's definition as text, or std::nullopt if it is not defined; "(" for a function-like macro.
using MacroLookup = std::function<std::optional<std::string>(const std::string& name)>;

// source with the lines of its inactive branches blanked (same length, same line breaks). A #define or
// #undef in an active line of the cell counts from there on.
std::string without_inactive_branches(const std::string& source, const MacroLookup& macro);

// The value of an #if condition, or std::nullopt if the kernel cannot evaluate it.
std::optional<long long> preprocessor_value(const std::string& condition, const MacroLookup& macro);

}  // namespace tapegrad_xcpp
