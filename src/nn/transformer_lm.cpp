#include "tapegrad/nn/transformer_lm.hpp"

#include <xtensor/xview.hpp>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/nn/norm_layers.hpp"
#include "tapegrad/ops/elementwise.hpp"

namespace tapegrad::nn {

TransformerLM::TransformerLM(const TransformerLMOptions& options_, Generator& gen)
    : Module("TransformerLM"), options(options_) {
  const TransformerLMOptions& o = options;
  if (o.vocab_size == 0 || o.d == 0 || o.heads == 0 || o.num_layers == 0)
    throw Error("TransformerLM: vocab_size, d, heads and num_layers must be positive, got vocab_size=" +
                std::to_string(o.vocab_size) + ", d=" + std::to_string(o.d) + ", heads=" + std::to_string(o.heads) +
                ", num_layers=" + std::to_string(o.num_layers));
  if (!o.block.rope && o.max_positions == 0)
    throw Error("TransformerLM: without RoPE the model learns a position embedding; set max_positions > 0 "
                "(the longest sequence it will see)");
  TransformerBlockOptions block = o.block;
  block.causal = true;  // a language model predicts each token from the earlier ones
  embed_tokens = register_module("embed_tokens", std::make_shared<Embedding>(o.vocab_size, o.d, gen));
  if (!o.block.rope)
    embed_positions = register_module("embed_positions", std::make_shared<Embedding>(o.max_positions, o.d, gen));
  for (std::size_t i = 0; i < o.num_layers; ++i)
    layers.push_back(register_module("layers." + std::to_string(i),
                                     std::make_shared<TransformerBlock>(o.d, o.heads, o.placement, block, gen)));
  if (needs_final_norm(o.placement)) norm = register_module("norm", make_norm(block.residual.norm, o.d, block.residual.eps));
  lm_head = register_module("lm_head", std::make_shared<Linear>(o.d, o.vocab_size, false, gen));
}

Tensor TransformerLM::forward(const Tensor& tokens) { return run(tokens, nullptr); }

Tensor TransformerLM::forward(const Tensor& tokens, std::vector<KVCache>& caches) {
  if (caches.size() != layers.size())
    throw Error("TransformerLM: expected one KVCache per layer (" + std::to_string(layers.size()) + "), got " +
                std::to_string(caches.size()) + "; use make_cache()");
  if (!layers[0]->multihead_attention)
    throw Error("TransformerLM: a KV cache needs the MultiheadAttention blocks; set block.num_kv_heads, "
                "block.rope or block.separate_qkv");
  return run(tokens, &caches);
}

Tensor TransformerLM::run(const Tensor& tokens, std::vector<KVCache>* caches) {
  if (tokens.dim() != 2)
    throw ShapeError("TransformerLM: expected tokens of shape (B, S) (token ids), got " + tokens.label());
  const std::size_t offset = caches ? (*caches)[0].length() : 0, S = tokens.shape()[1];
  Tensor h = (*embed_tokens)(tokens);  // (B, S, d)
  if (embed_positions) {
    if (offset + S > options.max_positions)
      throw ShapeError("TransformerLM: positions up to " + std::to_string(offset + S - 1) +
                       " but the learned position embedding has max_positions = " +
                       std::to_string(options.max_positions) + " (tokens " + tokens.label() + ", cached " +
                       std::to_string(offset) + ")");
    Array positions = Array::from_shape({S});
    for (std::size_t s = 0; s < S; ++s) positions(s) = static_cast<double>(offset + s);
    h = add(h, (*embed_positions)(Tensor(positions)));  // (S, d) broadcast over the batch
  }
  for (std::size_t i = 0; i < layers.size(); ++i) h = caches ? layers[i]->forward(h, &(*caches)[i]) : (*layers[i])(h);
  if (norm) h = (*norm)(h);
  return (*lm_head)(h);
}

std::vector<std::int64_t> TransformerLM::generate(const std::vector<std::int64_t>& prompt, std::size_t max_new_tokens,
                                                  const SamplingOptions& sampling, Generator& gen, bool use_cache) {
  if (prompt.empty()) throw Error("TransformerLM::generate: the prompt is empty (expected at least one token id)");
  no_grad guard;
  // (1, n) of token ids.
  const auto as_batch = [](const std::vector<std::int64_t>& ids, std::size_t first) {
    Array a = Array::from_shape({std::size_t{1}, ids.size() - first});
    for (std::size_t s = first; s < ids.size(); ++s) a(0, s - first) = static_cast<double>(ids[s]);
    return Tensor(a);
  };
  std::vector<std::int64_t> ids = prompt;
  std::vector<KVCache> caches = make_cache();
  std::size_t fed = 0;  // tokens already in the caches
  for (std::size_t step = 0; step < max_new_tokens; ++step) {
    // With caches only the tokens not yet seen are run (the whole prompt first); without, all of them.
    const Tensor logits = use_cache ? forward(as_batch(ids, fed), caches) : forward(as_batch(ids, 0));
    fed = ids.size();
    const std::size_t last = logits.shape()[1] - 1;
    const Array next_logits = xt::view(logits.value(), 0, last, xt::all());  // (vocab)
    ids.push_back(sample(Tensor(next_logits), sampling, gen));
  }
  return ids;
}

std::string TransformerLM::extra_repr() const {
  return "vocab_size=" + std::to_string(options.vocab_size) + ", d=" + std::to_string(options.d) +
         ", heads=" + std::to_string(options.heads) + ", num_layers=" + std::to_string(options.num_layers) +
         ", placement=" + nn::to_string(options.placement);
}

}  // namespace tapegrad::nn
