// A correct FFN written with xtensor-blas (xt::linalg::dot): it links (the check's link line carries
// the library's OpenBLAS) and passes.
#include <cmath>
#include <string>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmanipulation.hpp>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

static Array activate(const Array& h, const std::string& activation) {
  if (activation == "relu") return xt::maximum(h, 0.0);
  return 0.5 * h * (1.0 + xt::erf(h / std::sqrt(2.0)));
}
static Array activate_grad(const Array& h, const std::string& activation) {
  if (activation == "relu") return xt::where(h > 0.0, 1.0, 0.0);
  return 0.5 * (1.0 + xt::erf(h / std::sqrt(2.0))) + h * xt::exp(-0.5 * h * h) / std::sqrt(2.0 * M_PI);
}
// x (..., in) as the matrix (rows, in).
static Array as_rows(const Array& x, std::size_t width) {
  Array m = x;
  m.reshape({x.size() / width, width});
  return m;
}

Array ffn_forward(const Array& x, const Array& w1, const Array& b1, const Array& w2, const Array& b2,
                  const std::string& activation) {
  const Array h = xt::linalg::dot(as_rows(x, w1.shape()[1]), xt::transpose(w1)) + b1;
  Array y = xt::linalg::dot(activate(h, activation), xt::transpose(w2)) + b2;
  tapegrad::Shape shape(x.shape().begin(), x.shape().end());
  shape.back() = w2.shape()[0];
  y.reshape(shape);
  return y;
}

tapegrad::exercise::FfnGrads ffn_backward(const Array& dy, const Array& x, const Array& w1, const Array& b1,
                                          const Array& w2, const Array& b2, const std::string& activation) {
  (void)b2;
  const Array x2 = as_rows(x, w1.shape()[1]), dy2 = as_rows(dy, w2.shape()[0]);
  const Array h = xt::linalg::dot(x2, xt::transpose(w1)) + b1;
  const Array a = activate(h, activation);
  const Array dh = xt::linalg::dot(dy2, w2) * activate_grad(h, activation);
  tapegrad::exercise::FfnGrads g;
  g.dw2 = xt::linalg::dot(xt::transpose(dy2), a);
  g.db2 = xt::sum(dy2, {0}, xt::evaluation_strategy::immediate);
  g.dw1 = xt::linalg::dot(xt::transpose(dh), x2);
  g.db1 = xt::sum(dh, {0}, xt::evaluation_strategy::immediate);
  g.dx = xt::linalg::dot(dh, w1);
  g.dx.reshape(x.shape());
  return g;
}
