#pragma once
// nn::LoRALinear: a frozen nn::Linear plus a trainable low-rank update (LoRA, Hu et al. 2021,
// as Hugging Face PEFT's lora.Linear):
//
//   y = x Wᵀ + b + (alpha / r) · (x Aᵀ) Bᵀ      A: (r, in), B: (out, r)
//
// A starts Kaiming-uniform (a = √5, nn.Linear's default weight init, as PEFT), B starts at
// zero, so at init the layer computes exactly the base Linear and only A and B learn.
//
// Parameter names are PEFT's with the adapter name left out (one adapter here):
//   base_layer.weight, base_layer.bias   the frozen base (requires_grad false)
//   lora_A.weight (r, in), lora_B.weight (out, r)   trainable
// All four are listed by named_parameters() (as PEFT, so a state_dict holds the whole layer);
// the frozen two never get a gradient, and optimizers skip parameters without one.
// trainable_parameters() lists only A and B (PEFT's requires_grad filter), for an optimizer.

#include <memory>
#include <vector>

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/nn/linear_layer.hpp"
#include "tapegrad/nn/module.hpp"

namespace tapegrad::nn {

class LoRALinear : public Module {
 public:
  // Throws for r = 0, r > min(in, out) (B·A has rank ≤ min(in, out): a larger r only adds
  // parameters; a swapped argument is the likelier cause) and alpha ≤ 0 (or NaN).
  // Draws from `gen`: the base Linear's weight and bias, then lora_A.
  LoRALinear(std::size_t in_features, std::size_t out_features, std::size_t r, double alpha, bool bias = true,
             Generator& gen = default_generator());
  Tensor forward(const Tensor& x) override;

  // W ← W + (alpha/r)·B·A: forward is then the base Linear alone (one matmul), the same
  // result to rounding. While merged, A and B get no gradient (as in PEFT).
  void merge();
  // W ← W − (alpha/r)·B·A: undoes merge() (exact to rounding). Both throw when already in that state.
  void unmerge();
  bool is_merged() const { return merged_; }

  // lora_A.weight and lora_B.weight: what an optimizer should update.
  std::vector<Tensor> trainable_parameters() const;

  std::size_t in_features, out_features, r;
  double alpha;
  double scaling;  // alpha / r
  std::shared_ptr<Linear> base_layer;  // frozen
  std::shared_ptr<Linear> lora_A;      // in → r, no bias
  std::shared_ptr<Linear> lora_B;      // r → out, no bias

 protected:
  std::string extra_repr() const override;

 private:
  Array delta_weight() const;  // (alpha/r)·B·A, shape (out, in)
  bool merged_ = false;
};

}  // namespace tapegrad::nn
