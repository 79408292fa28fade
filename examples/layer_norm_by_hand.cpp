// layer_norm_by_hand: LayerNorm of x = [3, 4, 5] with γ = 1, β = 0, one step at a
// time, next to the library's fused op. Expected: [-1.2247, 0, 1.2247].
//
//   mean   μ  = (3 + 4 + 5) / 3                 = 4
//   centre x̂₀ = x − μ                           = [-1, 0, 1]
//   var    σ² = mean(x̂₀²)  (biased, as PyTorch) = 2/3
//   rstd      = 1 / sqrt(σ² + eps)              ≈ 1.2247
//   y         = x̂₀ · rstd · γ + β               ≈ [-1.2247, 0, 1.2247]
//
// In gdb: tools/gdb/recipes/layer_norm_stop.gdb (shown and tested in tools/gdb/README.md):
// `start`, `break tapegrad::layer_norm_backward`, `continue` stops in the fused backward
// with dy = [1, 2, 4] and saved.stats (mean 4, var 2/3, rstd 1.2247); `p $tape()` there
// shows the fused tape (layer_norm, mul, sum): the by-hand one was released by its backward.
#include <iomanip>
#include <iostream>

#include <xtensor/xio.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  std::cout << std::setprecision(6);
  const double eps = 1e-5;
  Tensor x(Array{3.0, 4.0, 5.0}, true, "x");
  Tensor gamma(Array{1.0, 1.0, 1.0}, true, "gamma");
  Tensor beta(Array{0.0, 0.0, 0.0}, true, "beta");

  // ---- by hand, each step an op on the tape ----
  tape().clear();
  Tensor mu = mean(x);                      // 4
  Tensor centred = x - mu;                  // [-1, 0, 1]
  Tensor var = mean(centred * centred);     // 2/3
  Tensor rstd = 1.0 / sqrt(var + eps);      // 1.22474
  Tensor y_hand = centred * rstd * gamma + beta;
  std::cout << "mean      = " << mu.value() << "\ncentred   = " << centred.value() << "\nvariance  = " << var.value()
            << "\nrstd      = " << rstd.value() << "\ny by hand = " << y_hand.value() << "\n\n";
  std::cout << "the by-hand tape:\n" << tape().to_string() << '\n';

  // The gradient of a weighted sum, so that it is not trivially zero
  // (Σ layer_norm(x) is constant: the output always has mean 0).
  const Array weights{1.0, 2.0, 4.0};
  sum(y_hand * Tensor(weights)).backward();
  const Array dx_hand = x.grad(), dgamma_hand = gamma.grad();
  x.zero_grad();
  gamma.zero_grad();
  beta.zero_grad();

  // ---- the library's fused op: one tape entry, a hand-written backward ----
  Tensor y = layer_norm(x, {3}, gamma, beta, eps);
  std::cout << "layer_norm(x) = " << y.value() << "   (expected [-1.2247, 0, 1.2247])\n";
  std::cout << "the fused tape:\n" << tape().to_string() << '\n';
  sum(y * Tensor(weights)).backward();

  std::cout << "dx     by hand " << dx_hand << "   fused " << x.grad() << '\n';
  std::cout << "dgamma by hand " << dgamma_hand << "   fused " << gamma.grad() << '\n';
  const double diff = xt::amax(xt::abs(dx_hand - x.grad()))();
  std::cout << "largest |dx difference| = " << diff << (diff < 1e-12 ? "  (agree)\n" : "  (DISAGREE)\n");
  return diff < 1e-12 ? 0 : 1;
}
