#include "tapegrad/nn/lora_linear.hpp"

#include <algorithm>

#include "tapegrad/nn/init.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "../argument_check.hpp"

namespace tapegrad::nn {

LoRALinear::LoRALinear(std::size_t in, std::size_t out, std::size_t rank, double alpha_, bool has_bias, Generator& gen)
    : Module("LoRALinear"), in_features(in), out_features(out), r(rank), alpha(alpha_) {
  if (rank == 0 || rank > std::min(in, out))
    throw Error("LoRALinear: invalid r=" + std::to_string(rank) + " for in_features=" + std::to_string(in) +
                ", out_features=" + std::to_string(out) + " (expected 1 <= r <= min(in_features, out_features) = " +
                std::to_string(std::min(in, out)) + ")");
  detail::require(alpha > 0.0, "LoRALinear", "alpha", alpha, "> 0");
  scaling = alpha / static_cast<double>(r);

  base_layer = register_module("base_layer", std::make_shared<Linear>(in, out, has_bias, gen));
  // Frozen: a leaf that does not require grad gets no gradient, so optimizers skip it.
  base_layer->weight.requires_grad_(false);
  if (base_layer->bias.defined()) base_layer->bias.requires_grad_(false);

  // nn.Linear's default weight init is PEFT's init of A: kaiming_uniform_(a = √5).
  lora_A = register_module("lora_A", std::make_shared<Linear>(in, r, false, gen));
  // B = 0, so that the layer starts as the base Linear. (Its Linear drew a weight from gen
  // first; zeroing it keeps one way of building a Linear.)
  lora_B = register_module("lora_B", std::make_shared<Linear>(r, out, false, gen));
  init::zeros_(lora_B->weight);
}

// y = x Wᵀ + b + (alpha/r) · (x Aᵀ) Bᵀ. The low-rank path goes through r features: x Aᵀ
// is (…, r), never the (out, in) matrix B·A.
Tensor LoRALinear::forward(const Tensor& x) {
  if (merged_) return base_layer->forward(x);  // W already holds W + (alpha/r)·B·A
  return add(base_layer->forward(x), mul(lora_B->forward(lora_A->forward(x)), scaling));
}

// (alpha/r)·B·A, (out, r)·(r, in) → (out, in), in plain loops.
Array LoRALinear::delta_weight() const {
  const Array& a = lora_A->weight.value();
  const Array& b = lora_B->weight.value();
  Array delta = Array::from_shape({out_features, in_features});
  for (std::size_t o = 0; o < out_features; ++o)
    for (std::size_t i = 0; i < in_features; ++i) {
      double sum = 0.0;
      for (std::size_t k = 0; k < r; ++k) sum += b(o, k) * a(k, i);
      delta(o, i) = scaling * sum;
    }
  return delta;
}

// In place on the base weight's value, like PEFT's merge under no_grad: not an op.
void LoRALinear::merge() {
  if (merged_) throw Error("LoRALinear::merge: already merged (call unmerge() first)");
  base_layer->weight.mutable_value() += delta_weight();
  merged_ = true;
}

void LoRALinear::unmerge() {
  if (!merged_) throw Error("LoRALinear::unmerge: not merged (call merge() first)");
  base_layer->weight.mutable_value() -= delta_weight();
  merged_ = false;
}

std::vector<Tensor> LoRALinear::trainable_parameters() const { return {lora_A->weight, lora_B->weight}; }

std::string LoRALinear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", r=" + std::to_string(r) + ", alpha=" + detail::num(alpha) + (merged_ ? ", merged" : "");
}

}  // namespace tapegrad::nn
