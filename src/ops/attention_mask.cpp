#include "tapegrad/ops/attention_mask.hpp"

#include <cmath>
#include <limits>

#include <xtensor/xbroadcast.hpp>

#include "attention_kernel.hpp"

namespace tapegrad {

// 1 where key j is at or before query i's position; query i sits at position i + Sk − Sq (bottom right) or i (top left).
Array causal_mask(std::size_t sq, std::size_t sk, CausalAlignment alignment) {
  Array mask = xt::zeros<double>({sq, sk});
  for (std::size_t i = 0; i < sq; ++i)
    for (std::size_t j = 0; j < sk; ++j)
      mask(i, j) = kernels::causal_allows(alignment == CausalAlignment::bottom_right, i, j, sq, sk) ? 1.0 : 0.0;
  return mask;
}

// Right padding: sequence b fills positions 0 .. lengths[b] − 1; the rest are pads no query may look at.
Array padding_mask(const std::vector<std::size_t>& lengths, std::size_t s) {
  Array mask = xt::zeros<double>({lengths.size(), std::size_t{1}, std::size_t{1}, s});
  for (std::size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] > s)
      throw ShapeError("padding_mask: length " + std::to_string(lengths[b]) + " of sequence " + std::to_string(b) +
                       " exceeds the padded length S = " + std::to_string(s) + "; expected every length <= S");
    for (std::size_t j = 0; j < lengths[b]; ++j) mask(b, 0, 0, j) = 1.0;
  }
  return mask;
}

namespace kernels {

// The mask as one additive bias of the scores' full shape: 0 where visible, −∞ where masked (boolean
// false or causal), the given values for an additive mask. Empty when nothing is masked.
Array attention_bias(const std::string& op, const AttentionMask& mask, bool is_causal, const Shape& scores_shape) {
  const std::size_t nd = scores_shape.size(), sq = scores_shape[nd - 2], sk = scores_shape[nd - 1];
  if (mask.empty() && !is_causal) return Array();
  const double minus_inf = -std::numeric_limits<double>::infinity();
  Array bias = xt::zeros<double>(scores_shape);
  if (!mask.empty()) {
    const Shape ms(mask.values.shape().begin(), mask.values.shape().end());
    bool fits = ms.size() <= nd;
    for (std::size_t a = 0; fits && a < ms.size(); ++a) {
      const std::size_t m = ms[ms.size() - 1 - a], t = scores_shape[nd - 1 - a];
      fits = m == t || m == 1;
    }
    if (!fits)
      throw ShapeError(op + ": attn_mask of shape " + shape_str(ms) + " does not broadcast to the scores " +
                       shape_str(scores_shape) + "; expected a shape that broadcasts to (..., Sq, Sk), such as (" +
                       std::to_string(sq) + ", " + std::to_string(sk) + ")");
    const Array full = xt::broadcast(mask.values, scores_shape);
    for (std::size_t n = 0; n < full.size(); ++n) {
      const double m = full.flat(n);
      if (mask.kind == AttentionMask::Kind::boolean) {
        if (m != 0.0 && m != 1.0)
          throw Error(op + ": a boolean attn_mask holds " + std::to_string(m) +
                      "; expected only 0 (may not attend) and 1 (may attend)");
        bias.flat(n) = m == 1.0 ? 0.0 : minus_inf;
      } else {
        if (std::isnan(m) || m == std::numeric_limits<double>::infinity())
          throw Error(op + ": an additive attn_mask holds " + std::to_string(m) +
                      "; expected finite values or −∞ (may not attend)");
        bias.flat(n) = m;
      }
    }
  }
  if (is_causal) {
    const std::size_t matrices = bias.size() / (sq * sk);
    for (std::size_t b = 0; b < matrices; ++b)
      for (std::size_t i = 0; i < sq; ++i)
        for (std::size_t j = 0; j < sk; ++j)
          if (!causal_allows(true, i, j, sq, sk)) bias.flat((b * sq + i) * sk + j) = minus_inf;
  }
  return bias;
}

}  // namespace kernels

}  // namespace tapegrad
