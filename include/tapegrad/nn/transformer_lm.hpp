#pragma once
// nn::TransformerLM: a small decoder-only language model, GPT-2 or LLaMA shaped by its options:
//
//   h = embed_tokens(tokens) (+ embed_positions(positions) when there is no RoPE)
//   h = layers.0(h), ..., layers.{N−1}(h)      causal TransformerBlocks, all with the same placement
//   h = norm(h)                                 when needs_final_norm(placement) (Pre-Norm, Sandwich)
//   logits = lm_head(h)                         Linear(d, vocab), no bias
//
// Children (state_dict keys): "embed_tokens", "embed_positions" (learned, only without RoPE),
// "layers.<i>", "norm", "lm_head". A LLaMA-like model: Placement::pre, block.rope, block.num_kv_heads,
// block.residual.norm = "rms", block.activation = "swiglu".
//
// Decoding with caches: make_cache() gives one empty KVCache per layer; forward(tokens, caches) runs the
// tokens at positions caches[0].length() .. onwards and appends their keys and values: a prefill with
// the prompt, then one token per step. Inference only (under no_grad).

#include <cstdint>
#include <memory>
#include <vector>

#include "tapegrad/nn/embedding_layer.hpp"
#include "tapegrad/nn/transformer_block.hpp"
#include "tapegrad/ops/sampling.hpp"

namespace tapegrad::nn {

struct TransformerLMOptions {
  std::size_t vocab_size = 0;
  std::size_t d = 0;           // the model width
  std::size_t heads = 0;
  std::size_t num_layers = 1;
  std::size_t max_positions = 0;         // the learned position table's size (needed without RoPE)
  Placement placement = Placement::pre;
  TransformerBlockOptions block;         // causal is forced on
};

class TransformerLM : public Module {
 public:
  explicit TransformerLM(const TransformerLMOptions& options, Generator& gen = default_generator());
  // tokens (B, S) of token ids (whole numbers in [0, vocab), as nn::Embedding takes them) -> logits (B, S, vocab).
  Tensor forward(const Tensor& tokens) override;
  // The same for positions caches[0].length() .. + S − 1, with the layers' caches (inference only).
  Tensor forward(const Tensor& tokens, std::vector<KVCache>& caches);
  std::vector<KVCache> make_cache() const { return std::vector<KVCache>(layers.size()); }

  // The prompt followed by max_new_tokens sampled tokens (Hugging Face generate()'s output, batch 1).
  // use_cache: a prefill then one-token steps with KV caches; otherwise each step re-runs the whole
  // sequence. Both draw the same tokens for the same generator state. Runs under no_grad.
  std::vector<std::int64_t> generate(const std::vector<std::int64_t>& prompt, std::size_t max_new_tokens,
                                     const SamplingOptions& sampling, Generator& gen, bool use_cache = true);

  TransformerLMOptions options;
  std::shared_ptr<Embedding> embed_tokens, embed_positions;  // embed_positions null with RoPE
  std::vector<std::shared_ptr<TransformerBlock>> layers;
  std::shared_ptr<Module> norm;  // null unless needs_final_norm(placement)
  std::shared_ptr<Linear> lm_head;

 protected:
  std::string extra_repr() const override;

 private:
  Tensor run(const Tensor& tokens, std::vector<KVCache>* caches);
};

}  // namespace tapegrad::nn
