// The README's picture: a neuron's graph, y = tanh(sum(x·w) + b), drawn after backward with every
// gradient on it. scripts/draw-readme-graph.sh runs it to make docs/tape_graph.svg.
//
//   build/examples/readme_picture docs/tape_graph.svg
#include <fstream>
#include <iostream>

#include "tapegrad/tapegrad.hpp"

int main(int argc, char** argv) {
  using namespace tapegrad;
  const std::string path = argc > 1 ? argv[1] : "tape_graph.svg";
  Tensor x = tensor({2.0, 0.0}, false, "x");
  Tensor w = tensor({-3.0, 1.0}, true, "w");
  Tensor b = tensor({6.8813735870195432}, true, "b");  // micrograd's neuron: y = 0.7071
  Tensor n = add(sum(mul(x, w)), b);
  n.set_name("n");
  Tensor y = tanh(n);
  y.set_name("y");
  retain_grads();                        // every intermediate keeps its gradient...
  y.backward(/*retain_graph=*/true);  // ...and the tape stays, to be drawn
  DrawOptions options;
  options.direction = "LR";
  std::ofstream(path) << draw(y, options).svg;
  std::cout << "wrote " << path << " (" << tape().size() << " entries)\n";
  return 0;
}
