#include "tapegrad/lab/text_generation.hpp"

#include <algorithm>

namespace tapegrad::lab {

std::vector<std::int64_t> generate_ids(nn::TransformerLM& model, const std::vector<std::int64_t>& prompt,
                                       std::size_t count, std::size_t block, const SamplingOptions& sampling,
                                       Generator& gen, bool use_cache) {
  if (prompt.empty()) throw Error("generate_ids: an empty prompt (the model needs a first character)");
  if (block < 2) throw Error("generate_ids: a block of " + std::to_string(block) + " leaves no room to write");
  std::vector<std::int64_t> text = prompt;
  const std::size_t keep = block / 2;
  for (std::size_t written = 0; written < count;) {
    const std::size_t context = std::min(keep, text.size());
    const std::vector<std::int64_t> piece_prompt(text.end() - static_cast<std::ptrdiff_t>(context), text.end());
    const std::size_t piece = std::min(count - written, block - context);
    const std::vector<std::int64_t> out = model.generate(piece_prompt, piece, sampling, gen, use_cache);
    text.insert(text.end(), out.begin() + static_cast<std::ptrdiff_t>(context), out.end());
    written += piece;
  }
  return text;
}

}  // namespace tapegrad::lab
