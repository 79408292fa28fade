// tiny_training: the whole loop on a toy problem, as in PyTorch:
//   zero_grad → forward → loss → backward → step
// A two-layer MLP learns y = sin(x₀) + x₁² / 2 from 64 points, with Adam.
//
// In gdb: `break optimizer.cpp:tapegrad::optim::Optimizer::step` stops once per step;
// `p fc1.weight` before and after `finish` shows the update.
#include <cmath>
#include <iostream>

#include <xtensor/xio.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  Generator gen(0);
  // Data: 64 points in [-2, 2]², targets from a smooth function.
  const Array xs = gen.rand({64, 2}, -2.0, 2.0);
  Array ys = Array::from_shape({64, 1});
  for (std::size_t i = 0; i < 64; ++i) ys(i, 0) = std::sin(xs(i, 0)) + 0.5 * xs(i, 1) * xs(i, 1);
  Tensor x(xs, false, "x"), y(ys, false, "y");

  // Model: Linear(2, 32) → tanh → Linear(32, 1).
  nn::Linear fc1(2, 32, true, gen), fc2(32, 1, true, gen);
  std::vector<Tensor> params = fc1.parameters();
  for (const Tensor& p : fc2.parameters()) params.push_back(p);
  optim::Adam optimizer(params, optim::AdamOptions{0.01});

  double first = 0.0, last = 0.0;
  for (int step = 0; step <= 300; ++step) {
    optimizer.zero_grad();                          // forget last step's gradients
    Tensor pred = fc2(tanh(fc1(x)));                // forward: records linear, tanh, linear
    Tensor loss = mse_loss(pred, y);
    loss.backward();                                // gradients for every parameter; tape released
    optimizer.step();                               // p ← p − lr · m̂ / (√v̂ + ε)
    if (step == 0) first = loss.item();
    last = loss.item();
    if (step % 50 == 0) std::cout << "step " << step << "  loss " << loss.item() << '\n';
  }
  std::cout << "loss went from " << first << " to " << last << '\n';
  return last < 0.1 * first ? 0 : 1;
}
