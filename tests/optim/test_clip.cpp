// clip_grad_norm_ and grad_norm: PyTorch semantics and reference numbers.
#include <cmath>

#include "helpers.hpp"
#include "optim/optim_test.hpp"

using namespace tapegrad;
using optim::clip_grad_norm_;
using optim::grad_norm;

namespace {

Tensor with_grad(const Array& g, const std::string& name) {
  Tensor t(Array(xt::zeros_like(g)), true, name);
  t.accumulate_grad(g);
  return t;
}

}  // namespace

TEST_CASE("grad_norm is the L2 norm of all gradients as one vector", "[optim]") {
  Tensor a = with_grad(Array{3.0, -4.0, 1.0}, "a"), b = with_grad(Array{2.0, 0.5}, "b");
  Tensor none(Array{100.0}, true, "none");  // no gradient: left out
  CHECK(grad_norm({a, b, none}) == Approx(std::sqrt(9.0 + 16.0 + 1.0 + 4.0 + 0.25)).epsilon(1e-15));
  CHECK(grad_norm({none}) == 0.0);
}

TEST_CASE("clip_grad_norm_ scales by max_norm / (norm + 1e-6) and returns the norm before", "[optim]") {
  Tensor a = with_grad(Array{3.0, 4.0}, "a");
  const double total = clip_grad_norm_({a}, 1.0);
  CHECK(total == 5.0);
  const double c = 1.0 / (5.0 + 1e-6);
  CHECK(a.grad()(0) == Approx(3.0 * c).epsilon(1e-15));
  CHECK(a.grad()(1) == Approx(4.0 * c).epsilon(1e-15));
  CHECK(grad_norm({a}) < 1.0);  // just under max_norm, because of the 1e-6
  CHECK(grad_norm({a}) == Approx(1.0).margin(1e-6));
}

TEST_CASE("clip_grad_norm_ leaves small gradients alone", "[optim]") {
  Tensor a = with_grad(Array{0.3, 0.4}, "a");
  CHECK(clip_grad_norm_({a}, 1.0) == Approx(0.5).epsilon(1e-15));
  CHECK((a.grad() == Array{0.3, 0.4}));  // multiplied by exactly 1
  Tensor none(Array{1.0}, true, "none");
  CHECK(clip_grad_norm_({none}, 1.0) == 0.0);  // nothing to clip: norm 0, no error
  CHECK_FALSE(none.has_grad());
}

TEST_CASE("clip_grad_norm_ matches torch.nn.utils.clip_grad_norm_", "[optim]") {
  namespace ref = optim_reference;
  for (double max_norm : {1.0, 100.0}) {
    Tensor a = with_grad(Array{3.0, -4.0, 1.0}, "a"), b = with_grad(Array{2.0, 0.5}, "b");
    const double total = clip_grad_norm_({a, b}, max_norm);
    const double* expected = max_norm == 1.0 ? ref::clip_small_grads : ref::clip_large_grads;
    CHECK(total == Approx(max_norm == 1.0 ? ref::clip_small_total : ref::clip_large_total).epsilon(1e-15));
    const std::vector<double> got{a.grad()(0), a.grad()(1), a.grad()(2), b.grad()(0), b.grad()(1)};
    for (int i = 0; i < 5; ++i) CHECK(got[i] == Approx(expected[i]).epsilon(1e-15));
  }
}

TEST_CASE("clip_grad_norm_ with non-finite gradients: PyTorch's pass-through, or an error on request", "[optim]") {
  Tensor a = with_grad(Array{INFINITY, 1.0}, "a");
  CHECK_THROWS_WITH(clip_grad_norm_({a}, 1.0, true), Catch::Contains("total norm of the gradients is inf"));
  CHECK(a.grad()(1) == 1.0);  // untouched by the refused clip
  CHECK(std::isinf(clip_grad_norm_({a}, 1.0)));
  CHECK(a.grad()(1) == 0.0);  // 1 · (1 / inf), as in PyTorch
  CHECK_THROWS_WITH(clip_grad_norm_({a}, -1.0), Catch::Contains("clip_grad_norm_: invalid max_norm=-1"));
}
