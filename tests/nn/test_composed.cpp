// use_composed(): a model whose LayerNorm, RMSNorm, BatchNorm1d and FFN run composed from
// primitive ops trains to the same values as the same model on the fused ops.
#include "helpers.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using testing::randn;

namespace {

// Linear → BatchNorm1d → Post-Norm, Pre-Norm and Sandwich blocks (LayerNorms; FFNs with ReLU
// and GELU) → RMSNorm → head. Every parameter has a real gradient: nothing adds a per-feature
// constant (or scale) right before the BatchNorm, which would cancel it and leave a gradient
// of rounding noise that Adam amplifies to full-size steps.
std::shared_ptr<Sequential> make_model(std::uint64_t seed) {
  Generator gen(seed);
  auto model = std::make_shared<Sequential>();
  model->append(std::make_shared<Linear>(6, 8, false, gen));
  model->append(std::make_shared<BatchNorm1d>(8));
  model->append(std::make_shared<ResidualBlock>(std::make_shared<FFN>(8, 16, "relu", gen), Placement::post, 8));
  model->append(std::make_shared<ResidualBlock>(std::make_shared<FFN>(8, 16, "relu", gen), Placement::pre, 8));
  model->append(std::make_shared<ResidualBlock>(std::make_shared<FFN>(8, 16, "gelu", gen), Placement::sandwich, 8));
  model->append(std::make_shared<RMSNorm>(8));
  model->append(std::make_shared<Linear>(8, 3, true, gen));
  return model;
}

// `steps` Adam steps on fixed data; returns the losses.
std::vector<double> train(Sequential& model, int steps) {
  const Tensor x(randn({32, 6}, 7), false, "x");
  std::vector<std::int64_t> y(32);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<std::int64_t>(i % 3);
  optim::AdamOptions options;
  options.lr = 1e-2;
  optim::Adam adam(model.parameters(), options);
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    adam.zero_grad();
    Tensor loss = cross_entropy(model(x), y);
    loss.backward();
    adam.step();
    losses.push_back(loss.value()());
  }
  return losses;
}

}  // namespace

TEST_CASE("use_composed: a composed model and a fused one train to the same values", "[nn][composed]") {
  auto fused = make_model(5), composed = make_model(5);
  composed->use_composed();
  CHECK(composed->at<BatchNorm1d>(1).is_composed());  // reaches every child
  CHECK_FALSE(fused->at<BatchNorm1d>(1).is_composed());

  // The composed model puts every step on the tape: a much longer tape for the same forward.
  const Tensor x(randn({4, 6}, 8), false, "x");
  const std::size_t fused_entries = (sum((*fused)(x)), tape().size());
  tape().clear();
  const std::size_t composed_entries = (sum((*composed)(x)), tape().size());
  tape().clear();
  CHECK(composed_entries > fused_entries + 20);

  const std::vector<double> fused_losses = train(*fused, 15), composed_losses = train(*composed, 15);
  CHECK(fused_losses.back() < fused_losses.front());  // it does train
  for (std::size_t s = 0; s < fused_losses.size(); ++s)
    CHECK(composed_losses[s] == Approx(fused_losses[s]).epsilon(1e-12).margin(1e-12));
  const NamedTensors a = fused->state_dict(), b = composed->state_dict();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first);
    CHECK(testing::allclose(b[i].second.value(), a[i].second.value(), 1e-12, 1e-12));
  }
}
