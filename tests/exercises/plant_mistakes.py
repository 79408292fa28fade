#!/usr/bin/env python3
"""Writes the planted mistakes: each catalogued mistake of tapegrad::exercise as a learner's wrong
solution, <NN>_<exercise>__<id>.cpp, made from the reference solution in exercises/solutions/ by the
edit a learner would make (or written out where the change is larger), and the test that checks each
is failed AND diagnosed with its own id (test_exercise_mistakes.cpp). The build writes them all at
build time (tests/exercises/tests.cmake); two are kept in tests/exercises/mistakes/ as examples
(exercises/README.md and the notebook tests use them). The other files there, <NN>_<exercise>__<id>.cpp or
<NN>_<exercise>__<id>__<variant>.cpp, are mistakes written by hand (exercises 11 onwards): copied beside the
planted ones and checked the same way.

  tests/exercises/plant_mistakes.py --out DIR   write every mistake into DIR/mistakes/ and the test into DIR
  tests/exercises/plant_mistakes.py --check     exit 1 if the kept examples differ from what it writes
  tests/exercises/plant_mistakes.py --examples  rewrite the kept examples

Each edit must apply exactly (the old text is in the solution), so a changed solution fails here.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOL = os.path.join(ROOT, "exercises", "solutions")

sys.path.insert(0, os.path.join(ROOT, "tools"))
from exercise_table import exercises, qualified  # noqa: E402  (exercises/table.tsv)

EXERCISES = {e.name: e for e in exercises()}  # the table's rows: the learner's functions and the grader's call
NUMBER = {e.name: e.number for e in exercises()}


def solution(exercise):
    with open(os.path.join(SOL, "%02d_%s_solution.cpp" % (NUMBER[exercise], exercise)), encoding="utf-8") as f:
        return f.read()


def edit(text, *pairs, count_all=False):
    for old, new in pairs:
        if old not in text:
            raise SystemExit("plant_mistakes.py: %r is not in the solution any more" % old)
        text = text.replace(old, new) if count_all else text.replace(old, new, 1)
    return text


def rename(text, old, new):
    return text.replace(old, new)


LN_FWD_VAR = ("for (std::size_t j = 0; j < N; ++j) var += (xr[j] - mean) * (xr[j] - mean);\n    var /= N;",
              "for (std::size_t j = 0; j < N; ++j) var += xr[j] * xr[j];\n    var = var / N - mean * mean;  // E[x^2] - E[x]^2")
BN_VAR = ("for (std::size_t r = 0; r < M; ++r) var += (x.data()[r * C + c] - mean) * (x.data()[r * C + c] - mean);\n    var /= M;",
          "for (std::size_t r = 0; r < M; ++r) var += x.data()[r * C + c] * x.data()[r * C + c];\n    var = var / M - mean * mean;  // E[x^2] - E[x]^2")

# LayerNorm forward with BatchNorm's axis: what "wrong_axis" looks like in a learner's LayerNorm.
LN_FORWARD_OVER_ROWS = '''#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array layer_norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  Array y = Array::from_shape(x.shape());
  for (std::size_t j = 0; j < N; ++j) {  // statistics of each column, over the rows
    double mean = 0, var = 0;
    for (std::size_t r = 0; r < rows; ++r) mean += x.data()[r * N + j];
    mean /= rows;
    for (std::size_t r = 0; r < rows; ++r) var += (x.data()[r * N + j] - mean) * (x.data()[r * N + j] - mean);
    var /= rows;
    for (std::size_t r = 0; r < rows; ++r)
      y.data()[r * N + j] = gamma(j) * (x.data()[r * N + j] - mean) / std::sqrt(var + eps) + beta(j);
  }
  return y;
}
'''

SOFTMAX_OVER_COLUMNS = '''#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array softmax_backward(const Array& dy, const Array& y) {
  const std::size_t N = y.shape().back(), rows = y.size() / N;
  Array dx = Array::from_shape(y.shape());
  std::vector<double> dot(N, 0.0);  // the sum over the rows, per column
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < N; ++j) dot[j] += dy.data()[r * N + j] * y.data()[r * N + j];
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < N; ++j) dx.data()[r * N + j] = y.data()[r * N + j] * (dy.data()[r * N + j] - dot[j]);
  return dx;
}
'''

RMS_AS_LAYER_NORM = '''#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

// "RMSNorm" written as LayerNorm without beta: the mean is subtracted.
Array rms_norm_forward(const Array& x, const Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (std::size_t j = 0; j < N; ++j) mean += x.data()[r * N + j] / N;
    for (std::size_t j = 0; j < N; ++j) var += (x.data()[r * N + j] - mean) * (x.data()[r * N + j] - mean) / N;
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = gamma(j) * (x.data()[r * N + j] - mean) / std::sqrt(var + eps);
  }
  return y;
}

NormGrads rms_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  NormGrads out;
  out.dx = Array::from_shape(x.shape());
  out.dgamma = Array::from_shape({N});
  out.dgamma.fill(0.0);
  std::vector<double> xhat(N);
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0, mean_g = 0, mean_gx = 0;
    for (std::size_t j = 0; j < N; ++j) mean += x.data()[r * N + j] / N;
    for (std::size_t j = 0; j < N; ++j) var += (x.data()[r * N + j] - mean) * (x.data()[r * N + j] - mean) / N;
    const double sigma = std::sqrt(var + eps);
    for (std::size_t j = 0; j < N; ++j) {
      xhat[j] = (x.data()[r * N + j] - mean) / sigma;
      const double g = gamma(j) * dy.data()[r * N + j];
      mean_g += g / N;
      mean_gx += g * xhat[j] / N;
      out.dgamma(j) += dy.data()[r * N + j] * xhat[j];
    }
    for (std::size_t j = 0; j < N; ++j)
      out.dx.data()[r * N + j] = (gamma(j) * dy.data()[r * N + j] - mean_g - xhat[j] * mean_gx) / sigma;
  }
  return out;
}
'''


def bn_over_rows():
    """BatchNorm with LayerNorm's axis: the learner's LayerNorm renamed."""
    fwd = rename(solution("layer_norm_forward"), "layer_norm_forward", "batch_norm_forward")
    bwd = rename(solution("layer_norm_backward"), "layer_norm_backward", "batch_norm_backward")
    return fwd + "\n" + bwd.split('#include "tapegrad_grader/exercise.hpp"\n', 1)[1]


def ln_backward_over_columns():
    """LayerNorm's backward with BatchNorm's axis: the BatchNorm backward renamed."""
    text = solution("batch_norm")
    text = text[:text.index("// Per feature c")] + text[text.index("// The same formula"):]
    return rename(text, "batch_norm_backward", "layer_norm_backward")


def mistakes():
    m = []
    add = lambda ex, id_, what, text: m.append((ex, id_, what, text))
    # 1. residual
    r = solution("residual")
    add("residual", "residual_missing", "the identity path left out: y = F(x), dx without dy",
        edit(r, ("Array y = x;  // the identity path", "Array y = Array::from_shape(x.shape());\n  y.fill(0.0);"),
             ("g.dx = dy;", "g.dx = Array::from_shape(x.shape());\n  g.dx.fill(0.0);")))
    add("residual", "sublayer_grad_missing", "dx = dy only",
        edit(r, ("        g.dx.data()[r * D + j] += dy.data()[r * D + i] * w(i, j);\n", "")))
    add("residual", "weight_grad_transposed", "dW = xᵀ dy",
        edit(r, ("g.dw(i, j) += dy.data()[r * D + i] * x.data()[r * D + j];", "g.dw(j, i) += dy.data()[r * D + i] * x.data()[r * D + j];")))
    # 2. LayerNorm forward
    f = solution("layer_norm_forward")
    add("layer_norm_forward", "eps_outside_sqrt", "(σ + ε), as the first seed",
        edit(f, ("1.0 / std::sqrt(var + eps);", "1.0 / (std::sqrt(var) + eps);")))
    add("layer_norm_forward", "unbiased_variance", "var / (N − 1)", edit(f, ("var /= N;", "var /= (N - 1);")))
    add("layer_norm_forward", "wrong_axis", "statistics over the rows (BatchNorm's axis)", LN_FORWARD_OVER_ROWS)
    add("layer_norm_forward", "affine_missing", "γ ignored",
        edit(f, ("gamma(j) * (xr[j] - mean) * inv_std + beta(j)", "(xr[j] - mean) * inv_std + beta(j)")))
    add("layer_norm_forward", "gamma_beta_swapped", "β x̂ + γ",
        edit(f, ("gamma(j) * (xr[j] - mean) * inv_std + beta(j)", "beta(j) * (xr[j] - mean) * inv_std + gamma(j)")))
    add("layer_norm_forward", "eps_missing", "sqrt(var)", edit(f, ("std::sqrt(var + eps)", "std::sqrt(var)")))
    add("layer_norm_forward", "one_pass_variance", "E[x²] − E[x]², the third seed's \"stable\" variance", edit(f, LN_FWD_VAR))
    # 3. LayerNorm backward
    b = solution("layer_norm_backward")
    dx_line = "(g[j] - mean_g - xhat[j] * mean_gx) / sigma;"
    add("layer_norm_backward", "mean_term_missing", "μ treated as a constant", edit(b, (dx_line, "(g[j] - xhat[j] * mean_gx) / sigma;")))
    add("layer_norm_backward", "projection_term_missing", "σ treated as a constant", edit(b, (dx_line, "(g[j] - mean_g) / sigma;")))
    add("layer_norm_backward", "wrong_axis", "BatchNorm's backward (over the rows)", ln_backward_over_columns())
    add("layer_norm_backward", "unbiased_variance", "var / (N − 1)", edit(b, ("var /= N;", "var /= (N - 1);")))
    add("layer_norm_backward", "gamma_not_applied", "g = dy", edit(b, ("g[j] = gamma(j) * dyr[j];", "g[j] = dyr[j];")))
    add("layer_norm_backward", "grads_not_summed", "dγ, dβ per row",
        edit(b, ("out.dgamma = Array::from_shape({N});\n  out.dbeta = Array::from_shape({N});",
                 "out.dgamma = Array::from_shape(x.shape());\n  out.dbeta = Array::from_shape(x.shape());"),
             ("out.dgamma(j) += dyr[j] * xhat[j];\n      out.dbeta(j) += dyr[j];",
              "out.dgamma.data()[r * N + j] = dyr[j] * xhat[j];\n      out.dbeta.data()[r * N + j] = dyr[j];")))
    add("layer_norm_backward", "dgamma_uses_x", "dγ = Σ dy·x",
        edit(b, ("out.dgamma(j) += dyr[j] * xhat[j];", "out.dgamma(j) += dyr[j] * xr[j];")))
    add("layer_norm_backward", "wrong_scale", "divided by σ²", edit(b, (dx_line, "(g[j] - mean_g - xhat[j] * mean_gx) / (sigma * sigma);")))
    add("layer_norm_backward", "eps_outside_sqrt", "σ + ε", edit(b, ("std::sqrt(var + eps);", "std::sqrt(var) + eps;")))
    add("layer_norm_backward", "one_pass_variance", "E[x²] − E[x]²", edit(b, LN_FWD_VAR))
    # 4. RMSNorm
    s = solution("rms_norm")
    rms_dx = "(gamma(j) * dyr[j] - (xr[j] / rms) * mean_gx) / rms;"
    add("rms_norm", "eps_outside_sqrt", "sqrt(mean(x²)) + ε",
        edit(s, ("std::sqrt(ms / N + eps)", "(std::sqrt(ms / N) + eps)"), count_all=True))
    add("rms_norm", "affine_missing", "γ ignored in the forward",
        edit(s, ("gamma(j) * x.data()[r * N + j] / rms", "x.data()[r * N + j] / rms")))
    add("rms_norm", "eps_missing", "sqrt(mean(x²))", edit(s, ("std::sqrt(ms / N + eps)", "std::sqrt(ms / N)"), count_all=True))
    add("rms_norm", "subtracts_mean", "LayerNorm written instead", RMS_AS_LAYER_NORM)
    add("rms_norm", "projection_term_missing", "rms treated as a constant", edit(s, (rms_dx, "(gamma(j) * dyr[j]) / rms;")))
    add("rms_norm", "gamma_not_applied", "g = dy",
        edit(s, ("mean_gx += gamma(j) * dyr[j] * (xr[j] / rms) / N;", "mean_gx += dyr[j] * (xr[j] / rms) / N;"),
             (rms_dx, "(dyr[j] - (xr[j] / rms) * mean_gx) / rms;")))
    add("rms_norm", "grads_not_summed", "dγ per row",
        edit(s, ("out.dgamma = Array::from_shape({N});\n  out.dgamma.fill(0.0);", "out.dgamma = Array::from_shape(x.shape());"),
             ("out.dgamma(j) += dyr[j] * xr[j] / rms;", "out.dgamma.data()[r * N + j] = dyr[j] * xr[j] / rms;")))
    add("rms_norm", "dgamma_uses_x", "dγ = Σ dy·x", edit(s, ("out.dgamma(j) += dyr[j] * xr[j] / rms;", "out.dgamma(j) += dyr[j] * xr[j];")))
    add("rms_norm", "wrong_scale", "divided by rms²", edit(s, (rms_dx, "(gamma(j) * dyr[j] - (xr[j] / rms) * mean_gx) / (rms * rms);")))
    # 5. BatchNorm
    n = solution("batch_norm")
    bn_dx = "(dy.data()[r * C + c] - sum_dy / M - xhat[r] * sum_dy_xhat / M)"
    add("batch_norm", "eps_outside_sqrt", "σ + ε", edit(n, ("std::sqrt(var + eps)", "(std::sqrt(var) + eps)"), count_all=True))
    add("batch_norm", "unbiased_variance", "var / (M − 1)", edit(n, ("var /= M;", "var /= (M - 1);"), count_all=True))
    add("batch_norm", "wrong_axis", "LayerNorm's axis (each row over the features)", bn_over_rows())
    add("batch_norm", "affine_missing", "γ and β ignored",
        edit(n, ("gamma(c) * (x.data()[r * C + c] - mean) / sigma + beta(c)", "(x.data()[r * C + c] - mean) / sigma")))
    add("batch_norm", "gamma_beta_swapped", "β x̂ + γ",
        edit(n, ("gamma(c) * (x.data()[r * C + c] - mean) / sigma + beta(c)", "beta(c) * (x.data()[r * C + c] - mean) / sigma + gamma(c)")))
    add("batch_norm", "eps_missing", "sqrt(var)", edit(n, ("std::sqrt(var + eps)", "std::sqrt(var)"), count_all=True))
    add("batch_norm", "mean_term_missing", "μ treated as a constant", edit(n, (bn_dx, "(dy.data()[r * C + c] - xhat[r] * sum_dy_xhat / M)")))
    add("batch_norm", "projection_term_missing", "σ treated as a constant", edit(n, (bn_dx, "(dy.data()[r * C + c] - sum_dy / M)")))
    add("batch_norm", "gamma_not_applied", "g = dy", edit(n, ("out.dx.data()[r * C + c] = gamma(c) * (", "out.dx.data()[r * C + c] = (")))
    add("batch_norm", "grads_not_summed", "dγ, dβ per row",
        edit(n, ("out.dgamma = Array::from_shape({C});\n  out.dbeta = Array::from_shape({C});",
                 "out.dgamma = Array::from_shape(x.shape());\n  out.dbeta = Array::from_shape(x.shape());"),
             ("out.dgamma(c) = sum_dy_xhat;\n    out.dbeta(c) = sum_dy;",
              "for (std::size_t r = 0; r < M; ++r)\n      out.dgamma.data()[r * C + c] = dy.data()[r * C + c] * xhat[r], out.dbeta.data()[r * C + c] = dy.data()[r * C + c];")))
    add("batch_norm", "dgamma_uses_x", "dγ = Σ dy·x",
        edit(n, ("out.dgamma(c) = sum_dy_xhat;",
                 "out.dgamma(c) = 0;\n    for (std::size_t r = 0; r < M; ++r) out.dgamma(c) += dy.data()[r * C + c] * x.data()[r * C + c];")))
    add("batch_norm", "wrong_scale", "divided by σ²", edit(n, ("xhat[r] * sum_dy_xhat / M) / sigma;", "xhat[r] * sum_dy_xhat / M) / (sigma * sigma);")))
    add("batch_norm", "one_pass_variance", "E[x²] − E[x]²", edit(n, BN_VAR, count_all=True))
    # 6. FFN
    ffn = solution("ffn")
    add("ffn", "relu_mask_missing", "ReLU's gradient taken as 1",
        edit(ffn, ('if (activation == "relu") return h > 0 ? 1.0 : 0.0;', 'if (activation == "relu") return 1.0;')))
    add("ffn", "activation_grad_missing", "dh = da, act'(h) left out",
        edit(ffn, ("dh[j] = da * activate_grad(h[j], activation);", "dh[j] = da;")))
    add("ffn", "weight_grad_transposed", "dW as xᵀ dz, (in, out)",
        edit(ffn, ("g.dw1 = Array::from_shape(w1.shape());", "g.dw1 = Array::from_shape({in, hidden});"),
             ("g.dw2 = Array::from_shape(w2.shape());", "g.dw2 = Array::from_shape({hidden, out});"),
             ("g.dw2(o, j) +=", "g.dw2(j, o) +="), ("g.dw1(j, i) +=", "g.dw1(i, j) +=")))
    add("ffn", "bias_grad_not_summed", "db per row",
        edit(ffn, ("g.db1 = Array::from_shape(b1.shape());",
                   "tapegrad::Shape s1(x.shape().begin(), x.shape().end()), s2 = s1;\n  s1.back() = hidden, s2.back() = out;\n"
                   "  g.db1 = Array::from_shape(s1);"),
             ("g.db2 = Array::from_shape({out});", "g.db2 = Array::from_shape(s2);"),
             ("g.db2(o) += dyr[o];", "g.db2.data()[r * out + o] = dyr[o];"),
             ("g.db1(j) += dh[j];", "g.db1.data()[r * hidden + j] = dh[j];")))
    # 7. blocks (with the reference LayerNorm, from exercises/solutions/)
    # The learner's LayerNorm, as the reference solutions: found through the include path exercises/.
    bl = solution("blocks").replace('#include "0', '#include "solutions/0')
    add("blocks", "post_pre_swapped", "Post-Norm computes Pre-Norm and Pre-Norm Post-Norm",
        bl.replace("post_norm_", "SWAP_").replace("pre_norm_", "post_norm_").replace("SWAP_", "pre_norm_"))
    add("blocks", "residual_of_normalized", "Pre-Norm adds LN(x) instead of x",
        edit(bl, ("return x + sublayer(layer_norm_forward(x, gamma, beta, eps), w, b);",
                  "const Array h = layer_norm_forward(x, gamma, beta, eps);\n  return h + sublayer(h, w, b);"),
             ("layer_norm_backward(dh, x, gamma, eps);", "layer_norm_backward(dy + dh, x, gamma, eps);"),
             ("g.dx = dy + n.dx;", "g.dx = n.dx;")))
    add("blocks", "residual_after_norm", "Post-Norm with the residual after the norm: x + LN(F(x))",
        edit(bl, ("return layer_norm_forward(x + sublayer(x, w, b), gamma, beta, eps);",
                  "return x + layer_norm_forward(sublayer(x, w, b), gamma, beta, eps);"),
             ("layer_norm_backward(dy, x + sublayer(x, w, b), gamma, eps);", "layer_norm_backward(dy, sublayer(x, w, b), gamma, eps);"),
             ("g.dx = n.dx + sublayer_backward(n.dx, x, w, g);", "g.dx = dy + sublayer_backward(n.dx, x, w, g);")))
    add("blocks", "residual_missing", "Post-Norm without the residual: LN(F(x))",
        edit(bl, ("return layer_norm_forward(x + sublayer(x, w, b), gamma, beta, eps);",
                  "return layer_norm_forward(sublayer(x, w, b), gamma, beta, eps);"),
             ("layer_norm_backward(dy, x + sublayer(x, w, b), gamma, eps);", "layer_norm_backward(dy, sublayer(x, w, b), gamma, eps);"),
             ("g.dx = n.dx + sublayer_backward(n.dx, x, w, g);", "g.dx = sublayer_backward(n.dx, x, w, g);")))
    # 8. softmax backward
    sm = solution("softmax_backward")
    sm_line = "dx.data()[r * N + j] = y.data()[r * N + j] * (dy.data()[r * N + j] - dot);"
    add("softmax_backward", "jacobian_diagonal_only", "y(1 − y) dy",
        edit(sm, (sm_line, "dx.data()[r * N + j] = y.data()[r * N + j] * (1 - y.data()[r * N + j]) * dy.data()[r * N + j];")))
    add("softmax_backward", "sum_term_missing", "y dy", edit(sm, (sm_line, "dx.data()[r * N + j] = y.data()[r * N + j] * dy.data()[r * N + j];")))
    add("softmax_backward", "wrong_axis", "the sum over the rows", SOFTMAX_OVER_COLUMNS)
    # 9. attention backward
    at = solution("attention_backward")
    add("attention_backward", "scale_missing", "1/√D forgotten in dq and dk",
        edit(at, ("g.dq(i, d) += dS * k(j, d) * scale;\n        g.dk(j, d) += dS * q(i, d) * scale;",
                  "g.dq(i, d) += dS * k(j, d);\n        g.dk(j, d) += dS * q(i, d);")))
    add("attention_backward", "softmax_jacobian_diagonal_only", "dS = P(1 − P) dP",
        edit(at, ("const double dS = P(i, j) * (dP[j] - dot);", "const double dS = P(i, j) * (1 - P(i, j)) * dP[j];")))
    add("attention_backward", "softmax_row_sum_missing", "dS = P ⊙ dP, the row-sum term left out",
        edit(at, ("const double dS = P(i, j) * (dP[j] - dot);", "const double dS = P(i, j) * dP[j];")))
    add("attention_backward", "dk_not_transposed", "dk = dS q",
        edit(at, ("g.dk(j, d) += dS * q(i, d) * scale;", "g.dk(i, d) += dS * q(j, d) * scale;")))
    add("attention_backward", "max_not_subtracted", "P = exp(s) / Σ exp(s), no max subtracted",
        edit(at, ("std::exp(P(i, j) - max);  // subtract the max: no overflow", "std::exp(P(i, j));")))
    add("attention_backward", "probs_not_transposed", "dv = P dy",
        edit(at, ("g.dv(j, e) += P(i, j) * dy(i, e);", "g.dv(j, e) += P(j, i) * dy(i, e);")))
    # 10. Adam
    ad = solution("adam_step")
    bc = "const double bc1 = 1 - std::pow(beta1, double(s.step)), bc2 = 1 - std::pow(beta2, double(s.step));"
    den = "(std::sqrt(s.v.data()[i] / bc2) + eps)"
    add("adam_step", "bias_correction_missing", "no 1 − β^t", edit(ad, (bc, "const double bc1 = 1, bc2 = 1;")))
    add("adam_step", "eps_inside_sqrt", "sqrt(v̂ + ε)", edit(ad, (den, "std::sqrt(s.v.data()[i] / bc2 + eps)")))
    add("adam_step", "sqrt_missing", "m̂ / (v̂ + ε)", edit(ad, (den, "(s.v.data()[i] / bc2 + eps)")))
    add("adam_step", "step_off_by_one", "the bias correction with the old step",
        edit(ad, (bc, "const double bc1 = 1 - std::pow(beta1, double(state.step)), bc2 = 1 - std::pow(beta2, double(state.step));")))
    return m


def file_name(exercise, id_):
    return "%02d_%s__%s.cpp" % (NUMBER[exercise], exercise, id_)


def mistake_file(exercise, id_, what, text):
    head = ("// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):\n"
            "// exercise: %s\n// mistake: %s (%s)\n// The grader must fail it and diagnose diagnosis=%s.\n" % (exercise, id_, what, id_))
    lines = text.split("\n")
    if lines[0].startswith("// Reference solution"):
        lines = lines[1:]
    return head + "\n".join(lines)


def test_file(ms):
    out = ['// Generated at build time by tests/exercises/plant_mistakes.py: every planted mistake under mistakes/ is failed by',
           '// the grader AND diagnosed with its own id; every id of every exercise\'s catalogue has one.',
           '// Each file is included in its own namespace (the headers it includes are included first, so',
           '// there they are no-ops).',
           '#include "exercise_test_common.hpp"',
           '']
    for ex, id_, name in ms:
        out += ["namespace %s {" % ns(name), '#include "mistakes/%s"' % name, "}  // namespace %s" % ns(name)]
    out += ["", "namespace {", "", "using namespace tapegrad::exercise;", "",
            "const std::vector<Planted>& planted() {", "  static const std::vector<Planted> p = {"]
    for ex, id_, name in ms:
        out.append('      {"%s", "%s", [](const Options& o) { return %s; }},' % (ex, id_, qualified(EXERCISES[ex], ns(name))))
    out += ["  };", "  return p;", "}", "", "}  // namespace", "",
            'TEST_CASE("exercise: every catalogued mistake has a planted wrong solution", "[exercise]") {',
            "  check_catalogue_covered(planted());", "}", ""]
    for ex in EXERCISES:
        out += ['TEST_CASE("exercise: planted mistakes of %s are failed and diagnosed", "[exercise]") {' % ex,
                '  check_planted("%s", planted());' % ex, "}", ""]
    return "\n".join(out)


def ns(name):
    return "planted_" + name[:-len(".cpp")]


# The examples kept in the tree (the others are written into the build).
KEPT = ["03_layer_norm_backward__mean_term_missing.cpp", "09_attention_backward__scale_missing.cpp"]
KEPT_DIR = os.path.join(HERE, "mistakes")
# A mistake written by hand: NN_<exercise>__<id>.cpp, or NN_<exercise>__<id>__<variant>.cpp for a second way.
HAND_WRITTEN = re.compile(r"^(\d\d)_([a-z_0-9]+?)__([a-z_0-9]+?)(?:__[a-z_0-9]+)?\.cpp$")


def hand_written():
    """(exercise, id, file name) of each mistake written by hand in tests/exercises/mistakes/."""
    out = []
    for name in sorted(os.listdir(KEPT_DIR)):
        m = HAND_WRITTEN.match(name)
        if name in KEPT or not m:
            continue
        if m.group(2) not in NUMBER or NUMBER[m.group(2)] != int(m.group(1)):
            raise SystemExit("plant_mistakes.py: %s names no exercise of exercises/table.tsv" % name)
        out.append((m.group(2), m.group(3), name))
    return out


def write_if_changed(path, text):
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    if old == text:
        return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def main():
    args = sys.argv[1:]
    ms = mistakes()
    texts = {file_name(ex, id_): mistake_file(ex, id_, what, text) for ex, id_, what, text in ms}
    by_hand = hand_written()
    listed = [(ex, id_, file_name(ex, id_)) for ex, id_, _, _ in ms] + by_hand
    if args[:1] == ["--out"] and len(args) == 2:
        out = args[1]
        for _, _, name in by_hand:
            texts[name] = open(os.path.join(KEPT_DIR, name), encoding="utf-8").read()
        written = sum(write_if_changed(os.path.join(out, "mistakes", name), text) for name, text in texts.items())
        written += write_if_changed(os.path.join(out, "test_exercise_mistakes.cpp"), test_file(listed))
        stale = set(os.listdir(os.path.join(out, "mistakes"))) - set(texts)
        for name in stale:  # a mistake no longer planted
            os.remove(os.path.join(out, "mistakes", name))
        print("%d planted mistakes (%d written by hand) in %s, %d files written" % (len(listed), len(by_hand), out, written))
        return 0
    if args not in (["--check"], ["--examples"]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kept_dir = KEPT_DIR
    if args == ["--examples"]:
        for name in KEPT:
            write_if_changed(os.path.join(kept_dir, name), texts[name])
        return 0
    stale = [name for name in KEPT if not os.path.exists(os.path.join(kept_dir, name))
             or open(os.path.join(kept_dir, name), encoding="utf-8").read() != texts[name]]
    extra = sorted(set(os.listdir(kept_dir)) - set(KEPT) - {name for _, _, name in by_hand})
    if stale or extra:
        print("plant_mistakes.py --check: %s%s" % (
            "out of date (run --examples): %s" % ", ".join(stale) if stale else "",
            "; not kept examples (the build writes them): %s" % ", ".join(extra) if extra else ""))
        return 1
    print("PASS: the %d kept examples of %d planted mistakes are up to date (and %d written by hand)"
          % (len(KEPT), len(ms), len(by_hand)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
