#include "tapegrad/lab/text_task.hpp"

#include <algorithm>

#include "tapegrad/autograd/error.hpp"

namespace tapegrad::lab {

namespace {

// Rows of windows at the starts, each `length` long.
TextBatch windows_at(const std::vector<std::int64_t>& stream, const std::vector<std::size_t>& starts,
                     std::size_t length) {
  TextBatch b;
  b.x = Array::from_shape({starts.size(), length});
  b.y.reserve(starts.size() * length);
  for (std::size_t r = 0; r < starts.size(); ++r) {
    if (starts[r] + length + 1 > stream.size())
      throw Error("text_window: a window of " + std::to_string(length) + " characters at " +
                  std::to_string(starts[r]) + " needs " + std::to_string(starts[r] + length + 1) +
                  " characters (its last label), the stream has " + std::to_string(stream.size()));
    for (std::size_t t = 0; t < length; ++t) {
      b.x(r, t) = static_cast<double>(stream[starts[r] + t]);
      b.y.push_back(stream[starts[r] + t + 1]);
    }
  }
  return b;
}

}  // namespace

TextBatch text_window(const std::vector<std::int64_t>& stream, std::size_t start, std::size_t block) {
  return windows_at(stream, {start}, block);
}

TextBatch text_batch(const std::vector<std::int64_t>& stream, std::size_t block, std::size_t batch, Generator& gen) {
  if (stream.size() < block + 1)
    throw Error("text_batch: the stream has " + std::to_string(stream.size()) + " characters, a window of " +
                std::to_string(block) + " needs " + std::to_string(block + 1) + "; use a smaller block size");
  std::vector<std::size_t> starts(batch);
  for (std::size_t& s : starts) s = static_cast<std::size_t>(gen.integer(stream.size() - block));
  return windows_at(stream, starts, block);
}

std::vector<TextBatch> eval_windows(const std::vector<std::int64_t>& stream, std::size_t block, std::size_t rows) {
  if (stream.size() < 2) throw Error("eval_windows: a stream of fewer than 2 characters has no label");
  const std::size_t labels = stream.size() - 1, full = labels / block, rest = labels % block;
  std::vector<TextBatch> out;
  for (std::size_t first = 0; first < full; first += std::max<std::size_t>(rows, 1)) {
    std::vector<std::size_t> starts;
    for (std::size_t i = first; i < std::min(full, first + std::max<std::size_t>(rows, 1)); ++i) starts.push_back(i * block);
    out.push_back(windows_at(stream, starts, block));
  }
  if (rest) out.push_back(windows_at(stream, {full * block}, rest));
  return out;
}

}  // namespace tapegrad::lab
