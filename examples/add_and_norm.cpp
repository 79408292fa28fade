// add_and_norm: the original Transformer's "Add & Norm", LayerNorm(x + F(x)).
// It is built from residual (an add that refuses broadcasting) and the fused
// layer_norm, so its tape shows the two entries; gradcheck confirms the
// backward of both together.
//
// In gdb: `start`, then `break tapegrad::layer_norm_backward` stops in its backward (as in
// tools/gdb/recipes/layer_norm_stop.gdb, which tools/gdb/README.md shows).
#include <iostream>

#include <xtensor/xio.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  Generator gen(7);
  Tensor x(gen.randn({2, 4}), true, "x");
  Tensor fx(gen.randn({2, 4}, 0.0, 0.5), true, "fx");  // stands for a sublayer's output
  Tensor gamma(gen.rand({4}, 0.5, 1.5), true, "gamma");
  Tensor beta(gen.randn({4}, 0.0, 0.1), true, "beta");

  Tensor y = add_and_norm(x, fx, gamma, beta);
  Tensor y2 = layer_norm(residual(x, fx), {4}, gamma, beta);
  std::cout << "add_and_norm(x, F(x))          =\n" << y.value() << "\n";
  std::cout << "layer_norm(residual(x, F(x)))  =\n" << y2.value() << "\n";
  const double diff = xt::amax(xt::abs(y.value() - y2.value()))();
  std::cout << "largest difference: " << diff << "\n\n" << tape_table() << '\n';
  tape().clear();

  // Central differences agree with the fused backward for all four inputs.
  GradcheckResult check = gradcheck(
      [](const std::vector<Tensor>& in) { return add_and_norm(in[0], in[1], in[2], in[3]); }, {x, fx, gamma, beta});
  std::cout << check.report << '\n';
  return check.ok && diff < 1e-12 ? 0 : 1;
}
