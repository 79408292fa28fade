#include "tapegrad/ops/embedding.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

namespace {

// The indices as row numbers, each checked against the table's size.
std::vector<std::size_t> checked_rows(const Tensor& indices, const Tensor& weight) {
  if (weight.dim() != 2)
    throw ShapeError("embedding: expected a 2-D weight (num_embeddings, embedding_dim), got " + weight.label());
  if (indices.requires_grad())
    throw Error("embedding: the indices " + indices.label() +
                " require grad, but an index has no gradient; pass them as a plain tensor");
  const std::size_t num = weight.shape()[0];
  std::vector<std::size_t> rows(indices.numel());
  const double* idx = indices.value().data();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double v = idx[i];
    if (!(v >= 0.0 && v < static_cast<double>(num) && v == std::floor(v))) {
      std::ostringstream msg;
      msg << "embedding: index " << v << " at flat position " << i << " of the indices " << indices.label()
          << " is not a row of the weight " << weight.label() << "; expected whole numbers in [0, " << num << ")";
      throw Error(msg.str());
    }
    rows[i] = static_cast<std::size_t>(v);
  }
  return rows;
}

}  // namespace

// ---- y[i, :] = weight[rows[i], :] ----
Tensor embedding(const Tensor& indices, const Tensor& weight) {
  std::vector<std::size_t> rows = checked_rows(indices, weight);
  const std::size_t d = weight.shape()[1];
  Shape y_shape = indices.shape();
  y_shape.push_back(d);
  Array y = Array::from_shape(y_shape);
  const double* w = weight.value().data();
  for (std::size_t i = 0; i < rows.size(); ++i) std::copy_n(w + rows[i] * d, d, y.data() + i * d);
  return record("embedding", {indices, weight}, std::move(y),
                [rows = std::move(rows)](const Array& dy, const TapeEntry& e) {
                  embedding_backward(dy, e.inputs[1], rows);
                });
}

// dweight[r, :] = Σ_{i : rows[i] = r} dy[i, :]: a scatter-add, since one token may occur many times.
TAPEGRAD_BACKWARD void embedding_backward(const Array& dy, const Tensor& weight,
                                          const std::vector<std::size_t>& rows) {
  if (!weight.requires_grad()) return;
  const std::size_t d = weight.shape()[1];
  Array dweight = xt::zeros<double>(weight.shape());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double* g = dy.data() + i * d;
    double* out = dweight.data() + rows[i] * d;
    for (std::size_t j = 0; j < d; ++j) out[j] += g[j];
  }
  weight.accumulate_grad(std::move(dweight));
}

}  // namespace tapegrad
