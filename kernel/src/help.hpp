#pragma once
// ?name and name? (and Jupyter's inspect, Shift-Tab): the declaration of a name and the
// comment above it, read from the header that declares it (tapegrad's, the standard
// library's, xtensor's) or from the cell that defined it. Offline: clang already knows
// where every declaration is.

#include <string>

namespace clang {
class Interpreter;
}

namespace tapegrad_xcpp {

// "" if clang knows no declaration of name (a, a::b, ::a::b; namespace aliases followed).
std::string describe(clang::Interpreter& clang, const std::string& name);

}  // namespace tapegrad_xcpp
