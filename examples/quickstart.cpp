// The README's example, runnable: fit y = sin(x) with a tiny MLP, by hand-written
// SGD on the primitive ops. Step through it in gdb to watch the tape fill and drain.
#include <cmath>
#include <iostream>
#include <random>

#include <xtensor/xbuilder.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  std::mt19937_64 rng(0);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto randn = [&](Shape shape, double scale) {
    Array a = Array::from_shape(shape);
    for (double& v : a) v = normal(rng) * scale;
    return a;
  };

  // Data: 64 points of y = sin(x) on [-3, 3].
  Array xs = xt::linspace<double>(-3.0, 3.0, 64);
  xs.reshape({64, 1});
  Tensor x(xs, false, "x");
  Tensor y(Array(xt::sin(xs)), false, "y");

  // Parameters of a 1 -> 32 -> 1 tanh network.
  Tensor w1(randn({1, 32}, 1.0), true, "w1"), b1(Array(xt::zeros<double>({32})), true, "b1");
  Tensor w2(randn({32, 1}, 0.1), true, "w2"), b2(Array(xt::zeros<double>({1})), true, "b2");

  const double lr = 0.02;  // larger steps diverge: the curvature along w2 is about 2·Σh² ≈ 40
  for (int step = 0; step <= 2000; ++step) {
    Tensor h = tanh(matmul(x, w1) + b1);
    Tensor loss = mse_loss(matmul(h, w2) + b2, y);
    if (step == 0) std::cout << tape().to_string();  // what backward() will walk
    loss.backward();                                  // fills .grad(), releases the tape
    for (Tensor* p : {&w1, &b1, &w2, &b2}) {
      p->mutable_value() -= lr * p->grad();
      p->zero_grad();
    }
    if (step % 250 == 0) std::cout << "step " << step << "  loss " << loss.item() << '\n';
  }
}
