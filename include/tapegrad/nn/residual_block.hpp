#pragma once
// ResidualBlock: a sublayer F (an FFN here) with a residual connection and a
// LayerNorm in one of the placements the literature compares:
//
//   post      x ← LN(x + F(x))              original Transformer (Add & Norm)
//   pre       x ← x + F(LN(x))              GPT-2, Llama; needs a final LN before the head
//   deepnorm  x ← LN(α·x + F(x))            DeepNet; F's weights scaled by β at init
//   rezero    x ← x + α·F(x)                α a learned scalar, initialised to 0; no norm
//   sandwich  x ← x + LN_out(F(LN(x)))      CogView / Peri-LN; needs a final LN too
//   none      x ← x + F(x)                  baseline
//
// With options.dropout = p > 0, F(x) above is Dropout(F(x)) in training (the original Transformer's residual
// dropout, "applied to the output of each sub-layer, before it is added to the sub-layer input and normalized";
// GPT-2's resid_pdrop); in eval() mode the identity.
//
// The norm is a LayerNorm unless options.norm says "rms" (RMSNorm) or "batch" (BatchNorm1d over every
// position of the batch, per channel: over B·S for a (B, S, d) input), so that the same placements can be
// compared with the other normalisations.
//
// Children: the sublayer (named by options.sublayer_name, e.g. "ffn"), "norm" (and "norm_out" for sandwich);
// parameter "alpha" (shape (1)) for rezero; "dropout" (nn::Dropout) when options.dropout > 0.

#include <functional>
#include <memory>
#include <string>

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/nn/module.hpp"
#include "tapegrad/nn/norm_layers.hpp"

namespace tapegrad::nn {

enum class Placement { post, pre, deepnorm, rezero, sandwich, none };

Placement parse_placement(const std::string& name);  // "post", "pre", ...; throws with the valid list
std::string to_string(Placement placement);
const std::vector<Placement>& all_placements();
// Pre-Norm and Sandwich stacks end un-normalised (the residual stream) and get a final LayerNorm.
bool needs_final_norm(Placement placement);

// DeepNet's constants for a stack of N blocks (encoder-only): α = (2N)^{1/4}, β = (8N)^{-1/4}.
struct DeepNormConstants {
  double alpha, beta;
};
DeepNormConstants deepnorm_constants(std::size_t num_blocks);

struct ResidualBlockOptions {
  double eps = 1e-5;         // of the norms
  double deepnorm_alpha = 1.0;
  double deepnorm_beta = 1.0;  // multiplies every "weight" of the sublayer at construction
  std::string sublayer_name = "sublayer";  // the sublayer's name in state_dict keys ("blocks.3.ffn.fc1.weight")
  std::string norm = "layer";  // "layer", "rms" or "batch" (make_norm)
  double dropout = 0.0;        // residual dropout on F's output, in [0, 1]
  // Where the dropout masks come from (it must outlive the block); null = default_generator().
  Generator* dropout_generator = nullptr;
};

class ResidualBlock : public Module {
 public:
  ResidualBlock(std::shared_ptr<Module> sublayer, Placement placement, std::size_t d,
                const ResidualBlockOptions& options = {});
  Tensor forward(const Tensor& x) override;
  // The same placement with `sublayer_call` standing in for the sublayer's forward, e.g. an attention
  // called with its KV cache (TransformerBlock::forward(x, cache)). It should run `sublayer`.
  Tensor forward(const Tensor& x, const std::function<Tensor(const Tensor&)>& sublayer_call);

  Placement placement;
  ResidualBlockOptions options;
  std::shared_ptr<Module> sublayer;
  std::shared_ptr<Module> norm, norm_out;  // as the placement needs them (a LayerNorm unless options.norm)
  std::shared_ptr<Module> dropout;          // options.dropout > 0 only
  Tensor alpha;                               // rezero only

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
