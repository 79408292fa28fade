#include "tapegrad/ops/shape.hpp"

#include <xtensor/xmanipulation.hpp>

#include "layout_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

Tensor transpose(const Tensor& x) {
  if (x.dim() != 2)
    throw ShapeError("transpose: expected a 2-D tensor, got " + x.label() + "; use transpose(x, dim0, dim1) for N-D");
  return transpose(x, 0, 1);
}

namespace kernels::reference {

// The plain version of the copy (layout_kernel.hpp): xtensor's transposed view of x, assigned to
// a new array. The fast one (fast/layout_fast.cpp) makes the same array with plain loops.
Array permute_copy(const Array& x, const std::vector<std::size_t>& perm) { return xt::transpose(x, perm); }

}  // namespace kernels::reference

// permute:  y's axis i is x's axis dims[i];  dx = dy with the inverse permutation
// (inverse[dims[i]] = i puts every axis back where it came from)
TAPEGRAD_BACKWARD void permute_backward(const Array& dy, const Tensor& x, const std::vector<std::size_t>& perm) {
  std::vector<std::size_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = i;
  x.accumulate_grad(kernels::permute_copy(dy, inverse));
}

namespace {

Tensor record_permute(const char* op, const Tensor& x, const std::vector<std::size_t>& perm) {
  return record(op, {x}, kernels::permute_copy(x.value(), perm),
                [perm](const Array& dy, const TapeEntry& e) { permute_backward(dy, e.inputs[0], perm); });
}

}  // namespace

Tensor permute(const Tensor& x, const std::vector<long>& dims) {
  const long n = static_cast<long>(x.dim());
  const std::string what = " for " + x.label() + "; expected a permutation of its " + std::to_string(n) + " axes";
  if (static_cast<long>(dims.size()) != n)
    throw ShapeError("permute: got " + std::to_string(dims.size()) + " dims" + what);
  std::vector<std::size_t> perm(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const long d = dims[i];
    if (d < -n || d >= n) throw ShapeError("permute: dim " + std::to_string(d) + " is out of range" + what);
    perm[i] = static_cast<std::size_t>(d < 0 ? d + n : d);
    if (seen[perm[i]]) throw ShapeError("permute: dim " + std::to_string(d) + " appears twice" + what);
    seen[perm[i]] = true;
  }
  return record_permute("permute", x, perm);
}

// transpose:  y = x with axes d0 and d1 swapped: permute by the swap (its own inverse)
Tensor transpose(const Tensor& x, long dim0, long dim1) {
  const long n = static_cast<long>(x.dim());
  for (long d : {dim0, dim1})
    if (d < -n || d >= n)
      throw ShapeError("transpose: dim " + std::to_string(d) + " is out of range for " + x.label());
  const std::size_t d0 = static_cast<std::size_t>(dim0 < 0 ? dim0 + n : dim0);
  const std::size_t d1 = static_cast<std::size_t>(dim1 < 0 ? dim1 + n : dim1);
  std::vector<std::size_t> perm(x.dim());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::swap(perm[d0], perm[d1]);
  return record_permute("transpose", x, perm);
}

// reshape:  y = x's elements in a new shape (same order);  dx = dy reshaped back to x's shape
TAPEGRAD_BACKWARD void reshape_backward(const Array& dy, const Tensor& x) {
  Array g = dy;
  g.reshape(x.shape());
  x.accumulate_grad(std::move(g));  // moved: the copy above is the only one
}

Tensor reshape(const Tensor& x, const std::vector<long>& shape) {
  Shape known_dims;  // all but the -1
  long infer_at = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer_at >= 0) throw ShapeError("reshape: only one dimension can be -1, got several for " + x.label());
      infer_at = static_cast<long>(i);
    } else if (shape[i] < 0) {
      throw ShapeError("reshape: invalid dimension " + std::to_string(shape[i]) + " for " + x.label());
    } else {
      known_dims.push_back(static_cast<std::size_t>(shape[i]));
    }
  }
  // Refused if it overflows: a wrapped product could match x's count ((2^32, 2^32) wraps to 0).
  std::size_t known = checked_numel("reshape", known_dims);
  Shape target(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) target[i] = static_cast<std::size_t>(shape[i] < 0 ? 0 : shape[i]);
  if (infer_at >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw ShapeError("reshape: cannot infer the -1 dimension to reshape " + x.label() + " (" +
                       std::to_string(x.numel()) + " elements)");
    target[static_cast<std::size_t>(infer_at)] = x.numel() / known;
    known *= target[static_cast<std::size_t>(infer_at)];
  }
  if (known != x.numel())
    throw ShapeError("reshape: cannot reshape " + x.label() + " (" + std::to_string(x.numel()) + " elements) to " +
                     shape_str(target) + " (" + std::to_string(known) + " elements)");
  Array y = x.value();
  y.reshape(target);
  return record("reshape", {x}, std::move(y),
                [](const Array& dy, const TapeEntry& e) { reshape_backward(dy, e.inputs[0]); });
}

}  // namespace tapegrad
