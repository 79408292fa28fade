// The shape ops' copies, fast version (layout_kernel.hpp; the reference, xtensor's views, is in
// shape.cpp and narrow.cpp). xtensor assigns a strided view to an array with a generic
// multi-index iterator, element by element; these are plain loops over the longest contiguous
// runs the layout has:
//   narrow:  a slice is `outer` blocks of length·inner consecutive values (memcpy each);
//   permute: axes of size 1 dropped and neighbours that stay neighbours merged, then either the
//            innermost axis is contiguous on both sides (a run copy per output row: the head split
//            (B, S, H, Dh) -> (B, H, S, Dh) copies runs of Dh), or the innermost source axis
//            lands elsewhere and the copy goes in 32 × 32 tiles (a transpose), so that both the
//            reads and the writes stay within a few cache lines.
// A copy does no arithmetic: the arrays are bitwise the reference's (tests/ops/test_fast_layout.cpp).
#include <algorithm>
#include <cstring>

#include "../layout_kernel.hpp"

namespace tapegrad::kernels::fast {

namespace {

// The copy as (out shape, source strides) after dropping axes of size 1 and merging out axes
// k, k+1 whose source positions continue one another (source stride of k = stride · size of k+1).
struct Plan {
  std::vector<std::size_t> size, src_stride;
};

Plan plan_permute(const Shape& xs, const std::vector<std::size_t>& perm) {
  const std::size_t n = xs.size();
  std::vector<std::size_t> stride(n, 1);
  for (std::size_t k = n; k-- > 1;) stride[k - 1] = stride[k] * xs[k];
  Plan p;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t a = perm[k];
    if (xs[a] == 1) continue;
    if (!p.size.empty() && p.src_stride.back() == stride[a] * xs[a]) {
      p.size.back() *= xs[a];  // the last kept axis steps over whole runs of this one: one longer axis
      p.src_stride.back() = stride[a];
    } else {
      p.size.push_back(xs[a]);
      p.src_stride.push_back(stride[a]);
    }
  }
  return p;
}

// Walks the out axes [0, axes) except `skip` in row-major order and calls f(source offset, out
// offset) at each position; out_stride holds the out array's strides.
template <class F>
void for_each_outer(const Plan& p, const std::vector<std::size_t>& out_stride, std::size_t axes, std::size_t skip,
                    F&& f) {
  std::vector<std::size_t> walked;
  for (std::size_t k = 0; k < axes; ++k)
    if (k != skip) walked.push_back(k);
  std::vector<std::size_t> index(walked.size(), 0);
  std::size_t src = 0, out = 0;
  while (true) {
    f(src, out);
    bool stepped = false;
    for (std::size_t j = walked.size(); j-- > 0 && !stepped;) {  // the odometer: the last axis first
      const std::size_t k = walked[j];
      if (++index[j] < p.size[k]) {
        src += p.src_stride[k];
        out += out_stride[k];
        stepped = true;
      } else {
        src -= (p.size[k] - 1) * p.src_stride[k];
        out -= (p.size[k] - 1) * out_stride[k];
        index[j] = 0;
      }
    }
    if (!stepped) return;
  }
}

}  // namespace

Array permute_copy(const Array& x, const std::vector<std::size_t>& perm) {
  Shape y_shape(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) y_shape[k] = x.shape()[perm[k]];
  Array y = Array::from_shape(y_shape);
  if (y.size() == 0) return y;
  const Plan p = plan_permute(Shape(x.shape().begin(), x.shape().end()), perm);
  const std::size_t n = p.size.size();
  if (n == 0) {  // one value
    y.data()[0] = x.data()[0];
    return y;
  }
  std::vector<std::size_t> out_stride(n, 1);
  for (std::size_t k = n; k-- > 1;) out_stride[k - 1] = out_stride[k] * p.size[k];
  const double* src = x.data();
  double* dst = y.data();
  if (p.src_stride[n - 1] == 1) {  // contiguous runs on both sides
    const std::size_t run = p.size[n - 1];
    if (n == 1) {
      std::memcpy(dst, src, run * sizeof(double));
      return y;
    }
    for_each_outer(p, out_stride, n - 1, n, [&](std::size_t s, std::size_t o) {
      std::memcpy(dst + o, src + s, run * sizeof(double));
    });
    return y;
  }
  // The source's unit-stride axis c lands at out axis c (< n − 1): copy (c, n − 1) tiles.
  std::size_t c = 0;
  while (p.src_stride[c] != 1) ++c;
  const std::size_t rows = p.size[c], cols = p.size[n - 1];
  const std::size_t row_out = out_stride[c], col_src = p.src_stride[n - 1];
  constexpr std::size_t tile = 32;
  for_each_outer(p, out_stride, n - 1, c, [&](std::size_t s, std::size_t o) {
    for (std::size_t i0 = 0; i0 < rows; i0 += tile)
      for (std::size_t j0 = 0; j0 < cols; j0 += tile) {
        const std::size_t i1 = std::min(rows, i0 + tile), j1 = std::min(cols, j0 + tile);
        for (std::size_t i = i0; i < i1; ++i)
          for (std::size_t j = j0; j < j1; ++j) dst[o + i * row_out + j] = src[s + i + j * col_src];
      }
  });
  return y;
}

Array narrow_copy(const Array& x, std::size_t dim, std::size_t start, std::size_t length) {
  Shape y_shape(x.shape().begin(), x.shape().end());
  const std::size_t size = y_shape[dim];
  y_shape[dim] = length;
  Array y = Array::from_shape(y_shape);
  std::size_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < dim; ++k) outer *= y_shape[k];
  for (std::size_t k = dim + 1; k < y_shape.size(); ++k) inner *= y_shape[k];
  const std::size_t block = length * inner;
  if (block == 0) return y;
  for (std::size_t o = 0; o < outer; ++o)
    std::memcpy(y.data() + o * block, x.data() + (o * size + start) * inner, block * sizeof(double));
  return y;
}

Array narrow_scatter(const Array& slice, const Shape& shape, std::size_t dim, std::size_t start) {
  Array dx = Array::from_shape(shape);
  const std::size_t size = shape[dim], length = slice.shape()[dim];
  std::size_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < dim; ++k) outer *= shape[k];
  for (std::size_t k = dim + 1; k < shape.size(); ++k) inner *= shape[k];
  double* out = dx.data();
  for (std::size_t o = 0; o < outer; ++o) {  // per outer index: zeros, the slice, zeros
    double* row = out + o * size * inner;
    std::fill(row, row + start * inner, 0.0);
    const std::size_t block = length * inner;
    if (block) std::memcpy(row + start * inner, slice.data() + o * block, block * sizeof(double));
    std::fill(row + (start + length) * inner, row + size * inner, 0.0);
  }
  return dx;
}

}  // namespace tapegrad::kernels::fast
