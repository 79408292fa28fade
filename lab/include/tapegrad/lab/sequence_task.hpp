#pragma once
// The lab's task for --arch transformer: copy with an offset.
//
//   tokens  x[t] uniform in [0, K), independent, t = 0 .. S−1   (K = config.classes, S = config.seq_len)
//   label   y[t] = x[(t − kCopyOffset) mod S]                     the token two places back, cyclically
//
// Why this task: the label at position t is independent of the token at t, so nothing that looks
// at one position alone (an FFN, the embeddings) beats chance; only attention, which moves the
// token from position t − 2 to position t, can. The labels are uniform, so the chance level (the
// loss of the best constant prediction) is exactly ln K, and a learned position embedding plus one
// attention head solve it: a Pre-Norm stack of 2 blocks learns it in a few hundred Adam steps.
//
// Datasets hold the tokens as x (n, S) (whole numbers as doubles, as nn::Embedding takes them)
// and the labels row by row, y[i·S + t] for sequence i, position t (n·S labels).

#include "tapegrad/lab/teacher_task.hpp"

namespace tapegrad::lab {

struct SequenceTask {
  Dataset train, eval;
};

// The labels of token sequences x (n, S), row by row.
std::vector<std::int64_t> copy_offset_labels(const Array& tokens);

// The train set, then the eval set, from one Generator seeded with data_seed(config).
SequenceTask make_sequence_task(const RunConfig& config);

// ln K: the loss of predicting every token with probability 1/K, which is the best a model that
// ignores the other positions can do.
double chance_loss(std::size_t classes);

}  // namespace tapegrad::lab
