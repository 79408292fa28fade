#include "tapegrad/lab/teacher_task.hpp"

#include <cmath>

#include <xtensor/xview.hpp>

#include "tapegrad/ops/matmul.hpp"

namespace tapegrad::lab {

std::vector<std::int64_t> teacher_labels(const Array& w1, const Array& w2, const Array& x) {
  const Array h = xt::tanh(gemm(x, w1, false, true));  // (n, hidden)
  const Array logits = gemm(h, w2, false, true);       // (n, classes)
  const std::size_t n = logits.shape()[0], classes = logits.shape()[1];
  std::vector<std::int64_t> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t best = 0;  // the first maximum, as numpy/torch argmax
    for (std::size_t k = 1; k < classes; ++k)
      if (logits(i, k) > logits(i, best)) best = k;
    y[i] = static_cast<std::int64_t>(best);
  }
  return y;
}

TeacherTask make_teacher_task(const RunConfig& c) {
  validate(c);
  Generator gen(data_seed(c));
  TeacherTask task;
  task.w1 = gen.randn({c.teacher_hidden, c.d_in}, 0.0, 1.0 / std::sqrt(static_cast<double>(c.d_in)));
  task.w2 = gen.randn({c.classes, c.teacher_hidden}, 0.0, 1.0 / std::sqrt(static_cast<double>(c.teacher_hidden)));
  task.train.x = gen.randn({c.train_size, c.d_in});
  task.train.y = teacher_labels(task.w1, task.w2, task.train.x);
  task.eval.x = gen.randn({c.eval_size, c.d_in});
  task.eval.y = teacher_labels(task.w1, task.w2, task.eval.x);
  return task;
}

Dataset gather(const Dataset& data, const std::vector<std::int64_t>& indices) {
  const std::size_t cols = data.x.shape()[1], per_example = data.labels_per_example();
  Dataset batch;
  batch.x = Array::from_shape({indices.size(), cols});
  batch.y.reserve(indices.size() * per_example);
  for (std::size_t r = 0; r < indices.size(); ++r) {
    const auto i = static_cast<std::size_t>(indices[r]);
    if (i >= data.size())
      throw Error("gather: index " + std::to_string(i) + " is out of range for a dataset of " +
                  std::to_string(data.size()) + " examples");
    xt::view(batch.x, r, xt::all()) = xt::view(data.x, i, xt::all());
    batch.y.insert(batch.y.end(), data.y.begin() + static_cast<std::ptrdiff_t>(i * per_example),
                   data.y.begin() + static_cast<std::ptrdiff_t>((i + 1) * per_example));
  }
  return batch;
}

std::vector<std::vector<std::int64_t>> sample_batches(const RunConfig& c) {
  validate(c);
  Generator gen(batch_seed(c));
  std::vector<std::vector<std::int64_t>> batches(static_cast<std::size_t>(c.steps));
  for (auto& b : batches)
    for (std::size_t i : gen.sample(c.train_size, c.batch)) b.push_back(static_cast<std::int64_t>(i));
  return batches;
}

}  // namespace tapegrad::lab
