// post_vs_pre_norm: forward and backward through a two-block Post-Norm stack
//   x ← LN(x + FFN(x))          (original Transformer)
// and a two-block Pre-Norm stack with a final LayerNorm
//   x ← x + FFN(LN(x)),  y = LN(x)      (GPT-2, Llama)
// with the same FFN weights, and where the gradient goes.
//
// What to compare: in Post-Norm every block's LayerNorm sits on the residual
// path, so the gradient reaching block 0 and x has been through block 1's
// LayerNorm backward; in Pre-Norm the identity path carries it from the final
// LayerNorm down to x unchanged. With two blocks the effect is small; it grows
// with depth.
//
// In gdb: `start`, `break tapegrad::layer_norm_backward`, `continue`; then `p $entry()` shows
// which LayerNorm entry is being differentiated and `p $tape()` the whole stack (see
// tools/gdb/recipes/layer_norm_stop.gdb, shown in tools/gdb/README.md).
#include <iostream>

#include <xtensor/xio.hpp>
#include <xtensor/xnorm.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

namespace {

// Two blocks with FFNs drawn from the same seed, so both stacks share weights.
std::shared_ptr<nn::Sequential> make_stack(nn::Placement placement) {
  Generator gen(42);
  auto stack = std::make_shared<nn::Sequential>();  // modules cannot be copied: their parameters are shared handles
  for (int i = 0; i < 2; ++i)
    stack->append(std::make_shared<nn::ResidualBlock>(std::make_shared<nn::FFN>(4, 16, "relu", gen), placement, 4));
  return stack;
}

void run(const char* title, nn::Placement placement, const Array& input) {
  const std::shared_ptr<nn::Sequential> owner = make_stack(placement);
  nn::Sequential& stack = *owner;
  nn::LayerNorm final_norm(4);
  Tensor x(input, true, "x");
  Tensor h = stack(x);
  Tensor y = nn::needs_final_norm(placement) ? final_norm(h) : h;
  Tensor loss = mean(y * Tensor(Array{{1.0, -1.0, 2.0, 0.5}}));  // a fixed readout
  std::cout << "==== " << title << " ====\nblock 0: " << stack[0].to_string() << "\ny =\n" << y.value() << "\nloss = " << loss.item()
            << "\ntape: " << tape().size() << " entries\n";
  loss.backward();
  std::cout << "|dL/dx| = " << xt::norm_l2(x.grad())() << '\n';
  for (const auto& [name, p] : stack.named_parameters())
    if (name.find("fc1.weight") != std::string::npos)
      std::cout << "|dL/d " << name << "| = " << xt::norm_l2(p.grad())() << '\n';
  std::cout << '\n';
}

}  // namespace

int main() {
  Generator gen(3);
  const Array input = gen.randn({2, 4}, 0.0, 3.0);  // 2 positions, d = 4, a large-ish scale
  run("Post-Norm: x <- LN(x + FFN(x))", nn::Placement::post, input);
  run("Pre-Norm: x <- x + FFN(LN(x)), then a final LN", nn::Placement::pre, input);
  return 0;
}
