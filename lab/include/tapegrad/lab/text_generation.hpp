#pragma once
// Writing text with a trained nn::TransformerLM (lm_training.hpp): sampling (ops/sampling.hpp: temperature,
// top-k, top-p) through TransformerLM::generate, with the KV cache or without.
//
// The model saw windows of at most `block` characters (its learned positions stop there), so a text longer than
// that is written in pieces: each piece's prompt is the last block/2 characters written so far (the first one the
// prompt's last block/2), and it adds up to block − prompt characters. One Generator draws every token, so a
// seeded call is reproducible, and the cache does not change the tokens (generate() draws alike either way).

#include <cstdint>
#include <vector>

#include "tapegrad/nn/transformer_lm.hpp"

namespace tapegrad::lab {

// The prompt followed by `count` sampled ids. An Error for an empty prompt or a block below 2.
std::vector<std::int64_t> generate_ids(nn::TransformerLM& model, const std::vector<std::int64_t>& prompt,
                                       std::size_t count, std::size_t block, const SamplingOptions& sampling,
                                       Generator& gen, bool use_cache = true);

}  // namespace tapegrad::lab
