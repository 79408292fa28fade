// ffn: a Transformer's position-wise feed-forward network, y = fc2(act(fc1(x))),
// forward and backward, with the tape and gradient norms. The module runs the fused
// op feed_forward (src/ops/feed_forward.cpp): one tape entry, its backward written out.
//
// In gdb: tools/gdb/recipes/ffn_stop.gdb (shown and tested in tools/gdb/README.md):
// `start`, `break feed_forward.cpp:tapegrad::feed_forward_backward`, `continue` stops in
// the FFN's backward (dy, x, w1, b1, w2, b2, saved), which makes dW2, da, dh, dW1, dx in
// order; `frame function main` and `p ffn` show the module with its parameters' norms.
//
//   ./ffn_by_hand --fp16   the same step inside precision_scope(fp16): feed_forward then runs
//                          composed (linear, activation, linear), so its backward is three
//                          entries and feed_forward_backward is not called (recipe ffn_precision).
#include <cstring>
#include <iostream>
#include <optional>

#include <xtensor/xio.hpp>
#include <xtensor/xnorm.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main(int argc, char** argv) {
  Generator gen(1);
  nn::FFN ffn(4, 8, "gelu", gen);  // d = 4 → hidden 8 → 4
  std::cout << ffn.to_string() << "\n";

  Tensor x(gen.randn({3, 4}), true, "x");  // 3 positions, d = 4; each is transformed on its own
  std::optional<precision_scope> fp16;
  if (argc > 1 && std::strcmp(argv[1], "--fp16") == 0) fp16.emplace(Precision::fp16);
  Tensor y = ffn(x);
  std::cout << "y = ffn(x), shape " << shape_str(y.shape()) << ":\n" << y.value() << "\n\n";

  Tensor loss = mean(y * y);
  loss.backward(/*retain_graph=*/true);
  std::cout << "loss = " << loss.item() << "\n" << tape_table() << "\n";
  fp16.reset();  // gradcheck needs float64 (it refuses inside a scope)
  for (const auto& [name, p] : ffn.named_parameters())
    std::cout << name << " " << shape_str(p.shape()) << "  |grad| = " << xt::norm_l2(p.grad())() << '\n';
  tape().clear();

  // gradcheck perturbs the module's own parameter tensors in place (and restores them).
  GradcheckResult check =
      gradcheck([&](const std::vector<Tensor>& in) { return ffn(in[0]); }, {x, ffn.fc1->weight, ffn.fc2->bias});
  std::cout << '\n' << check.report << '\n';
  return check.ok ? 0 : 1;
}
