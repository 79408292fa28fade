#include "tapegrad/ops/reduce.hpp"

#include <algorithm>

#include <xtensor/xbroadcast.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

std::vector<std::size_t> normalize_axes(const char* op, const Axes& axes, const Shape& shape) {
  const long n = static_cast<long>(shape.size());
  std::vector<std::size_t> out;
  for (long a : axes) {
    if (a < -n || a >= n)
      throw ShapeError(std::string(op) + ": axis " + std::to_string(a) + " is out of range for a tensor of shape " +
                       shape_str(shape) + " (valid axes: " + std::to_string(-n) + " to " + std::to_string(n - 1) + ")");
    out.push_back(static_cast<std::size_t>(a < 0 ? a + n : a));
  }
  std::sort(out.begin(), out.end());
  const auto repeated = std::adjacent_find(out.begin(), out.end());
  if (repeated != out.end())  // e.g. {1, -1} on a 2-D tensor: both mean axis 1
    throw ShapeError(std::string(op) + ": axis " + std::to_string(*repeated) +
                     " is repeated in the list (negative axes count from the end) for a tensor of shape " +
                     shape_str(shape));
  return out;
}

namespace {

// The input's shape with the reduced axes set to 1: how dy lines up with x.
Shape keepdims_shape(const Shape& shape, const std::vector<std::size_t>& axes) {
  Shape kept = shape;
  for (std::size_t a : axes) kept[a] = 1;
  return kept;
}

// The input's shape without the reduced axes.
Shape reduced_shape(const Shape& shape, const std::vector<std::size_t>& axes) {
  Shape out;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) out.push_back(shape[i]);
  return out;
}

// sum and mean share everything but the scale: y = scale · Σ_axes x.
Tensor scaled_sum(const char* op, const Tensor& x, const std::vector<std::size_t>& axes, bool keepdims,
                  bool divide_by_count) {
  const Shape in_shape = x.shape();
  double count = 1.0;
  for (std::size_t a : axes) count *= static_cast<double>(in_shape[a]);
  const double scale = divide_by_count ? 1.0 / count : 1.0;

  // xtensor 0.24's immediate reducer reads through a null pointer on an empty x: its sums are
  // zeros (a mean over an axis of size 0 is then 0 · (1/0) = NaN, as in PyTorch).
  Array y = x.numel() == 0 ? Array(xt::zeros<double>(reduced_shape(in_shape, axes)))
                           : Array(xt::sum(x.value(), axes, xt::evaluation_strategy::immediate));
  if (scale != 1.0) y *= scale;
  const Shape kept = keepdims_shape(in_shape, axes);
  if (keepdims) y.reshape(kept);

  if (!divide_by_count)
    return record(op, {x}, std::move(y),
                  [kept](const Array& dy, const TapeEntry& e) { sum_backward(dy, e.inputs[0], kept); });
  return record(op, {x}, std::move(y),
                [kept, count](const Array& dy, const TapeEntry& e) { mean_backward(dy, e.inputs[0], kept, count); });
}

std::vector<std::size_t> all_axes(const Tensor& x) {
  std::vector<std::size_t> axes(x.dim());
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = i;
  return axes;
}

}  // namespace

// sum:  y = Σ_axes x;  dx = dy broadcast back over the summed axes
// (kept_shape is x's shape with those axes set to 1: how dy lines up with x).
TAPEGRAD_BACKWARD void sum_backward(const Array& dy, const Tensor& x, const Shape& kept_shape) {
  Array g = dy;
  g.reshape(kept_shape);
  x.accumulate_grad(xt::broadcast(g, x.shape()));
}

// mean:  y = (1/n) Σ_axes x, n = count of the averaged elements;  dx = dy / n broadcast back
TAPEGRAD_BACKWARD void mean_backward(const Array& dy, const Tensor& x, const Shape& kept_shape, double count) {
  sum_backward(dy * (1.0 / count), x, kept_shape);
}

Tensor sum(const Tensor& x) { return scaled_sum("sum", x, all_axes(x), false, false); }
Tensor sum(const Tensor& x, const Axes& axes, bool keepdims) {
  if (axes.empty()) return scaled_sum("sum", x, all_axes(x), keepdims, false);  // as torch 1.13
  return scaled_sum("sum", x, normalize_axes("sum", axes, x.shape()), keepdims, false);
}
Tensor mean(const Tensor& x) { return mean(x, {}, false); }
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims) {
  if (axes.empty()) {  // every axis, as torch 1.13; of an empty tensor refused (torch gives NaN)
    if (x.numel() == 0) throw ShapeError("mean: tensor " + x.label() + " is empty; the mean of nothing is undefined");
    return scaled_sum("mean", x, all_axes(x), keepdims, true);
  }
  return scaled_sum("mean", x, normalize_axes("mean", axes, x.shape()), keepdims, true);
}

}  // namespace tapegrad
