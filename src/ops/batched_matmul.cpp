#include "tapegrad/ops/batched_matmul.hpp"

#include "blas.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

namespace {

// The sizes of a batch of (m, k) @ (k, n) products.
struct BatchedShape {
  std::size_t batch, m, k, n;
};

BatchedShape check_batched_matmul(const Tensor& a, const Tensor& b) {
  const std::string shapes = a.label() + " @ " + b.label();
  if (a.dim() < 2 || a.dim() != b.dim())
    throw ShapeError("batched_matmul: expected a (..., m, k) and b (..., k, n) with the same number (>= 2) of "
                     "dimensions, got " + shapes);
  const Shape as = a.shape(), bs = b.shape();
  const std::size_t nd = as.size();
  std::size_t batch = 1;
  for (std::size_t d = 0; d + 2 < nd; ++d) {
    if (as[d] != bs[d])
      throw ShapeError("batched_matmul: the batch axes differ: " + shapes + " (axis " + std::to_string(d) + ": " +
                       std::to_string(as[d]) + " vs " + std::to_string(bs[d]) + "); expected equal leading axes");
    batch *= as[d];
  }
  if (as[nd - 1] != bs[nd - 2])
    throw ShapeError("batched_matmul: inner dimensions differ: " + shapes + "; expected a.shape[-1] (" +
                     std::to_string(as[nd - 1]) + ") == b.shape[-2] (" + std::to_string(bs[nd - 2]) + ")");
  return {batch, as[nd - 2], as[nd - 1], bs[nd - 1]};
}

}  // namespace

// ---- y_i = a_i @ b_i for every batch index i ----
Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  const BatchedShape s = check_batched_matmul(a, b);
  Shape y_shape = a.shape();
  y_shape.back() = s.n;
  Array y = Array::from_shape(y_shape);
  for (std::size_t i = 0; i < s.batch; ++i)
    blas::gemm({a.value().data() + i * s.m * s.k, s.m, s.k}, false, {b.value().data() + i * s.k * s.n, s.k, s.n},
               false, y.data() + i * s.m * s.n, 0.0);
  return record("batched_matmul", {a, b}, std::move(y), [](const Array& dy, const TapeEntry& e) {
    batched_matmul_backward(dy, e.inputs[0], e.inputs[1]);
  });
}

// da_i = dy_i b_iᵀ  (m, n) @ (k, n)ᵀ;   db_i = a_iᵀ dy_i  (m, k)ᵀ @ (m, n)
TAPEGRAD_BACKWARD void batched_matmul_backward(const Array& dy, const Tensor& a, const Tensor& b) {
  const BatchedShape s = check_batched_matmul(a, b);
  const double* g = dy.data();
  if (a.requires_grad()) {
    Array da = Array::from_shape(a.shape());
    for (std::size_t i = 0; i < s.batch; ++i)
      blas::gemm({g + i * s.m * s.n, s.m, s.n}, false, {b.value().data() + i * s.k * s.n, s.k, s.n}, true,
                 da.data() + i * s.m * s.k, 0.0);
    a.accumulate_grad(std::move(da));
  }
  if (b.requires_grad()) {
    Array db = Array::from_shape(b.shape());
    for (std::size_t i = 0; i < s.batch; ++i)
      blas::gemm({a.value().data() + i * s.m * s.k, s.m, s.k}, true, {g + i * s.m * s.n, s.m, s.n}, false,
                 db.data() + i * s.k * s.n, 0.0);
    b.accumulate_grad(std::move(db));
  }
}

}  // namespace tapegrad
