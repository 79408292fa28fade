#include "tapegrad/lab/sequence_task.hpp"

#include <cmath>

namespace tapegrad::lab {

std::vector<std::int64_t> copy_offset_labels(const Array& tokens) {
  const std::size_t n = tokens.shape()[0], S = tokens.shape()[1];
  std::vector<std::int64_t> y;
  y.reserve(n * S);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t < S; ++t)
      y.push_back(static_cast<std::int64_t>(tokens(i, (t + S - kCopyOffset % S) % S)));
  return y;
}

namespace {

Dataset random_sequences(Generator& gen, std::size_t n, std::size_t S, std::size_t vocab) {
  Dataset data;
  data.x = Array::from_shape({n, S});
  for (double& token : data.x) token = static_cast<double>(gen.integer(vocab));
  data.y = copy_offset_labels(data.x);
  return data;
}

}  // namespace

SequenceTask make_sequence_task(const RunConfig& c) {
  validate(c);
  Generator gen(data_seed(c));
  SequenceTask task;
  task.train = random_sequences(gen, c.train_size, c.seq_len, c.classes);
  task.eval = random_sequences(gen, c.eval_size, c.seq_len, c.classes);
  return task;
}

double chance_loss(std::size_t classes) { return std::log(static_cast<double>(classes)); }

}  // namespace tapegrad::lab
