// tape_walkthrough: build a small graph, print the tape, run backward, print
// the gradients, and confirm them with gradcheck.
//
//   ./tape_walkthrough            the walkthrough
//   ./tape_walkthrough --dot      only the graph, for: ./tape_walkthrough --dot | dot -Tsvg > tape.svg
//
// Step through it in gdb: tools/gdb/recipes/walkthrough.gdb is the session that
// tools/gdb/README.md shows (and ctest runs):
//   cd build-debug && gdb -q -iex "add-auto-load-safe-path $PWD" examples/tape_walkthrough
//   (gdb) start
//   (gdb) next 3                               the leaves x, w, b
//   (gdb) p x                                  Tensor(name='x', shape=(2, 3), value=[[1, -2, 3], [-1, 0.5, 2]], ...)
//   (gdb) break matmul.cpp:tapegrad::matmul_backward
//   (gdb) continue                             during loss.backward(): dy, the inputs a and b
//   (gdb) p $tape()                            the entries recorded
#include <cstring>
#include <iostream>

#include <xtensor/xio.hpp>  // operator<< for arrays

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

// The model, as a function of its inputs, so gradcheck can call it too:
//   loss = mean(relu(x @ w + b)²)
Tensor model(const Tensor& x, const Tensor& w, const Tensor& b) {
  Tensor z = matmul(x, w);  // tape entry 0: (2, 3) @ (3, 2) -> (2, 2)
  Tensor h = relu(z + b);   // entries 1 (add: b is broadcast over rows) and 2 (relu)
  return mean(h * h);       // entries 3 (mul) and 4 (mean): a 0-d tensor
}

int main(int argc, char** argv) {
  // 1. Leaves: tensors we make ourselves. requires_grad = true asks backward()
  //    to fill in their gradients.
  Tensor x(Array{{1.0, -2.0, 3.0}, {-1.0, 0.5, 2.0}}, true, "x");
  Tensor w(Array{{0.5, -1.0}, {1.0, 0.25}, {-0.5, 2.0}}, true, "w");
  Tensor b(Array{2.0, -0.2}, true, "b");

  // 2. Forward. Every op computes its value now and appends one entry to the
  //    tape: its name, its inputs, its output and how to differentiate it.
  tape().clear();
  Tensor loss = model(x, w, b);
  if (argc > 1 && std::strcmp(argv[1], "--dot") == 0) {
    std::cout << draw_dot(tape());
    return 0;
  }
  std::cout << "loss = " << loss.item() << "\n\n" << tape().to_string() << '\n';

  // 3. Backward. retain_graph = true keeps the tape so we can look at it again;
  //    normally backward() releases it. Entries are walked from the last to the
  //    first, each adding its inputs' gradients (the chain rule, one op at a time).
  loss.backward(/*retain_graph=*/true);
  std::cout << "After loss.backward(retain_graph=true):\n" << tape_table() << '\n';
  std::cout << "dloss/dx =\n" << x.grad() << "\n\ndloss/dw =\n" << w.grad() << "\n\ndloss/db =\n" << b.grad()
            << "\n\n";
  tape().clear();

  // 4. Check the gradients against central finite differences of the same model.
  //    (The relu inputs z + b are at least 1 away from its kink at 0, so the
  //    finite differences see a smooth function.)
  GradcheckResult check = gradcheck(
      [](const std::vector<Tensor>& in) { return model(in[0], in[1], in[2]); }, {x, w, b});
  std::cout << check.report << '\n';
  return check.ok ? 0 : 1;
}
