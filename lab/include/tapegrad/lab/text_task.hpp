#pragma once
// The text tasks' examples: windows of a stream of character ids (text_corpus.hpp).
//
//   window at s   x = stream[s .. s + B),  y = stream[s + 1 .. s + B + 1)     (B = block size, RunConfig::seq_len)
//                 the label at every position is the next character: a causal model learns p(c_{t+1} | c_≤t).
//   a batch       `batch` windows, their starts drawn uniformly from [0, n − B − 1] by the Generator (with
//                 replacement: windows may overlap, as nanoGPT's get_batch).
//   evaluation    the stream cut into consecutive windows (the last one shorter), so every character but the
//                 first is a label exactly once: the same labels the baselines (text_baselines.hpp) score.

#include <cstdint>
#include <vector>

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::lab {

struct TextBatch {
  Array x;                      // (rows, B) ids as doubles, as nn::Embedding takes them
  std::vector<std::int64_t> y;  // rows·B next-character labels, row by row
};

// The window starting at `start` (start + B + 1 <= stream size, else an Error).
TextBatch text_window(const std::vector<std::int64_t>& stream, std::size_t start, std::size_t block);
// `batch` windows with starts drawn by gen (one gen.integer each, in row order).
TextBatch text_batch(const std::vector<std::int64_t>& stream, std::size_t block, std::size_t batch, Generator& gen);
// The consecutive evaluation windows: full ones of B characters, `rows` to a batch (a forward's memory), then the
// shorter rest (if any) alone. Together they label stream[1 .. n) once each, in order.
std::vector<TextBatch> eval_windows(const std::vector<std::int64_t>& stream, std::size_t block, std::size_t rows = 16);

}  // namespace tapegrad::lab
