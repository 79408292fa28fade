#pragma once
// Views of the tape for people: a table to print and a Graphviz graph to draw.
//
//   std::cout << tapegrad::tape_table();           // what has been recorded so far
//   loss.backward(/*retain_graph=*/true);
//   std::cout << tapegrad::tape_table();           // now with gradient norms
//   std::ofstream("graph.dot") << tapegrad::to_dot();   // then: dot -Tsvg graph.dot > graph.svg
//
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

// The tape as a Graphviz digraph: draw_dot(t) (debug/draw.hpp), which draw() lays out as SVG.
// Tensors: parameters blue boxes, constants white notes, op outputs yellow ellipses; ops are
// boxes "#index op" (fused or primitive); edges run from the inputs (labelled with their
// position) to the op and on to its output.
std::string to_dot(const Tape& t = tape());

}  // namespace tapegrad
