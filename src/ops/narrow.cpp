#include "tapegrad/ops/narrow.hpp"

#include <xtensor/xstrided_view.hpp>

#include "layout_kernel.hpp"
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

namespace kernels::reference {

// The plain versions of the copies (layout_kernel.hpp), xtensor's strided views; the fast ones
// (fast/layout_fast.cpp) copy the same values in contiguous blocks.
Array narrow_copy(const Array& x, std::size_t dim, std::size_t start, std::size_t length) {
  return xt::strided_view(x, slice_of(x.dimension(), dim, start, length));
}

Array narrow_scatter(const Array& slice, const Shape& shape, std::size_t dim, std::size_t start) {
  Array dx = xt::zeros<double>(shape);
  xt::strided_view(dx, slice_of(shape.size(), dim, start, slice.shape()[dim])) = slice;
  return dx;
}

}  // namespace kernels::reference

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
  return record("narrow", {x}, kernels::narrow_copy(x.value(), d, start, length),
                [d, start](const Array& dy, const TapeEntry& e) { narrow_backward(dy, e.inputs[0], d, start); });
}

// dx = 0 outside the slice, dy inside it (a slice's gradient is the slice of the gradient).
TAPEGRAD_BACKWARD void narrow_backward(const Array& dy, const Tensor& x, std::size_t dim, std::size_t start) {
  x.accumulate_grad(kernels::narrow_scatter(dy, x.shape(), dim, start));
}

}  // namespace tapegrad
