#include "tapegrad/ops/narrow.hpp"

#include <xtensor/xstrided_view.hpp>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

namespace {

// The slice start : start + length of axis `dim`, every other axis whole.
xt::xstrided_slice_vector slice_of(std::size_t ndim, std::size_t dim, std::size_t start, std::size_t length) {
  xt::xstrided_slice_vector slices(ndim, xt::all());
  slices[dim] = xt::range(start, start + length);
  return slices;
}

}  // namespace

// ---- y = x[..., start : start + length, ...] ----
Tensor narrow(const Tensor& x, long dim, std::size_t start, std::size_t length) {
  const long n = static_cast<long>(x.dim());
  if (dim < -n || dim >= n)
    throw ShapeError("narrow: dim " + std::to_string(dim) + " is out of range for " + x.label());
  const std::size_t d = static_cast<std::size_t>(dim < 0 ? dim + n : dim);
  const std::size_t size = x.shape()[d];
  if (start > size || length > size - start)
    throw ShapeError("narrow: start " + std::to_string(start) + " + length " + std::to_string(length) +
                     " exceeds dimension " + std::to_string(d) + " (size " + std::to_string(size) + ") of " +
                     x.label());
  Array y = xt::strided_view(x.value(), slice_of(x.dim(), d, start, length));
  return record("narrow", {x}, std::move(y), [d, start](const Array& dy, const TapeEntry& e) {
    narrow_backward(dy, e.inputs[0], d, start);
  });
}

// dx = 0 outside the slice, dy inside it (a slice's gradient is the slice of the gradient).
TAPEGRAD_BACKWARD void narrow_backward(const Array& dy, const Tensor& x, std::size_t dim, std::size_t start) {
  Array dx = xt::zeros<double>(x.shape());
  xt::strided_view(dx, slice_of(x.dim(), dim, start, dy.shape()[dim])) = dy;
  x.accumulate_grad(std::move(dx));
}

}  // namespace tapegrad
