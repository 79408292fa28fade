#pragma once
// The lab's task: classify x ~ N(0, I) by the argmax of a fixed random teacher.
//
//   h = tanh(x W1ᵀ),  logits = h W2ᵀ,  y = argmax(logits)
//   W1 (hidden, d_in) ~ N(0, 1/d_in),  W2 (classes, hidden) ~ N(0, 1/hidden)
//
// A student that fits it must learn a smooth nonlinear partition of the input
// space; a collapsed student predicts the label frequencies, whose loss is
// about ln K (the labels come out roughly balanced).

#include <cstdint>
#include <vector>

#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/autograd/random.hpp"

namespace tapegrad::lab {

struct Dataset {
  Array x;                      // (n, d_in); for the sequence task (n, S) tokens
  std::vector<std::int64_t> y;  // n labels in [0, classes); for the sequence task n·S, row by row
  std::size_t size() const { return x.dimension() == 0 ? 0 : x.shape()[0]; }  // examples (rows of x)
  std::size_t labels_per_example() const { return size() == 0 ? 0 : y.size() / size(); }
};

struct TeacherTask {
  Array w1, w2;  // the teacher's weights
  Dataset train, eval;
};

// Teacher weights, then the train set, then the eval set, all from one
// Generator seeded with data_seed(config), in that order.
TeacherTask make_teacher_task(const RunConfig& config);

// The teacher's labels for the rows of x.
std::vector<std::int64_t> teacher_labels(const Array& w1, const Array& w2, const Array& x);

// The rows `indices` of the dataset (with their labels), as a minibatch.
Dataset gather(const Dataset& data, const std::vector<std::int64_t>& indices);

// Minibatch indices for every step (steps × batch), each batch `batch`
// distinct examples drawn by a Generator seeded with batch_seed(config).
std::vector<std::vector<std::int64_t>> sample_batches(const RunConfig& config);

}  // namespace tapegrad::lab
