// batch_norm: nn::BatchNorm1d in training and in eval mode.
//   train: normalise each feature (column) with THIS batch's mean and variance,
//          and move the running statistics towards them (momentum 0.1).
//   eval:  normalise with the running statistics: the output of one sample no
//          longer depends on the rest of the batch.
//
// In gdb: `p bn.running_mean` after each training step shows the statistics move.
#include <iostream>

#include <xtensor/xio.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  nn::BatchNorm1d bn(2);  // 2 features; γ = 1, β = 0, running_mean = 0, running_var = 1
  std::cout << bn.to_string() << "\n";
  Tensor x(Array{{1.0, 10.0}, {2.0, 20.0}, {3.0, 30.0}, {6.0, 60.0}}, false, "x");  // (N = 4, C = 2)

  // ---- training mode ----
  bn.train();
  Tensor y = bn(x);
  std::cout << "train: y =\n" << y.value() << "\n(each column has mean 0 and biased variance 1)\n";
  std::cout << "running_mean = " << bn.running_mean.value() << "   (0.9·0 + 0.1·batch mean [3, 30])\n";
  std::cout << "running_var  = " << bn.running_var.value() << "   (0.9·1 + 0.1·unbiased batch variance)\n\n";

  // Gradients flow to γ and β (and to x if it required grad). The weights
  // differ per row: with the same weight in every row dγ = Σ dy·x̂ would be 0,
  // since x̂ sums to 0 over the batch.
  sum(y * Tensor(Array{{1.0, 2.0}, {0.0, 1.0}, {-1.0, 3.0}, {2.0, 0.0}})).backward();
  std::cout << "dL/dgamma = " << bn.weight.grad() << "   dL/dbeta = " << bn.bias.grad() << "\n\n";
  bn.zero_grad();

  // A few more batches bring the running statistics closer to the data's.
  for (int step = 0; step < 30; ++step) {
    no_grad guard;
    bn(x);
  }
  std::cout << "after 31 batches: running_mean = " << bn.running_mean.value()
            << ", running_var = " << bn.running_var.value() << "\n\n";

  // ---- eval mode ----
  bn.eval();
  Tensor one(Array{{2.0, 20.0}}, false, "one sample");
  std::cout << "eval: bn(" << one.value() << ") = " << bn(one).value()
            << "\n(uses the running statistics; in train mode a batch of one sample would be refused)\n";
  bn.train();
  try {
    bn(one);
  } catch (const Error& err) {
    std::cout << "train mode, one sample: " << err.what() << '\n';
  }
  tape().clear();
  return 0;
}
