#pragma once
// The tape as a table for people to print:
//
//   std::cout << tapegrad::tape_table();           // what has been recorded so far
//   loss.backward(/*retain_graph=*/true);
//   std::cout << tapegrad::tape_table();           // now with gradient norms
//
// Its picture is debug/draw.hpp's: draw(loss) (SVG) and draw_dot(tape()) (the Graphviz source).
// Tape::to_string() is the one-line-per-entry listing (also what gdb shows);
// these add the numbers you look at when a training run goes wrong.

#include <string>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

// One row per entry: index, op, inputs ("#3 (2, 4)" is the output of entry 3,
// other inputs are leaves: "'w' (3, 4)"), output shape, the L2 norm of the
// output value and of its gradient. Then the leaves with their gradient norms.
// A non-leaf output keeps its gradient after backward() only if retain_grad()
// was called on it; otherwise its |grad| column shows "-".
std::string tape_table(const Tape& t = tape());

}  // namespace tapegrad
