#!/usr/bin/env python3
"""Writes the planted mistakes: each catalogued mistake of tapegrad::exercise as a learner's wrong
solution, <NN>_<exercise>__<id>.cpp (<NN>_<exercise>__<id>__<variant>.cpp for a second way to make the
same mistake), made from the reference solution in exercises/solutions/ by the edit a learner would make
(or written out where the change is larger), and the test that checks each is failed AND diagnosed with
its own id (test_exercise_mistakes.cpp). The build writes them all at build time
(tests/exercises/tests.cmake); two are kept in tests/exercises/mistakes/ as examples (exercises/README.md
and the CLI test use them).

  tests/exercises/plant_mistakes.py --out DIR   write every mistake into DIR/mistakes/ and the test into DIR
  tests/exercises/plant_mistakes.py --check     exit 1 if the kept examples differ from what it writes
  tests/exercises/plant_mistakes.py --examples  rewrite the kept examples

Each edit must apply exactly (the old text is in the solution), so a changed solution fails here.
"""

import os
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

    def add(ex, id_, what, text, variant=None):  # a variant: a second way to make the same mistake
        m.append((ex, id_, what, text, file_name(ex, id_, variant)))
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
    # 11. softmax
    s11 = solution("softmax")
    add("softmax", "max_not_subtracted", "exp(x) / Σ exp(x), in both forms",
        edit(s11,
             ("    double m = xr[0], d = 0;\n"
              "    for (std::size_t j = 1; j < N; ++j) m = std::max(m, xr[j]);\n"
              "    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j] - m);  // subtract the max: no overflow\n",
              "    double d = 0;\n"
              "    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j]);\n"),
             ("    double m = -INFINITY, d = 0;\n"
              "    for (std::size_t j = 0; j < N; ++j) {\n"
              "      const double m_new = std::max(m, xr[j]);\n"
              "      d = d * std::exp(m - m_new) + std::exp(xr[j] - m_new);\n"
              "      m = m_new;\n"
              "    }\n"
              "    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = std::exp(xr[j] - m) / d;\n",
              "    double d = 0;\n"
              "    for (std::size_t j = 0; j < N; ++j) d += std::exp(xr[j]);\n"
              "    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = std::exp(xr[j]) / d;\n")))
    add("softmax", "max_not_subtracted", "exp(x) / Σ exp(x) in the safe form only",
        edit(s11,
             ("    double m = xr[0], d = 0;\n"
              "    for (std::size_t j = 1; j < N; ++j) m = std::max(m, xr[j]);\n"
              "    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j] - m);  // subtract the max: no overflow\n",
              "    double d = 0;\n"
              "    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j]);\n")), variant="safe_only")
    add("softmax", "rescale_missing", "the running sum not rescaled when the max grows",
        edit(s11, ("d = d * std::exp(m - m_new) + std::exp(xr[j] - m_new);", "d = d + std::exp(xr[j] - m_new);")))
    add("softmax", "wrong_axis", "the sum over the first axis, xtensor reductions",
        edit(s11,
             ("  const std::size_t N = x.shape().back(), rows = x.size() / N;\n"
              "  Array y = Array::from_shape(x.shape());\n"
              "  for (std::size_t r = 0; r < rows; ++r) {\n"
              "    const double* xr = x.data() + r * N;\n"
              "    double* yr = y.data() + r * N;\n"
              "    double m = xr[0], d = 0;\n"
              "    for (std::size_t j = 1; j < N; ++j) m = std::max(m, xr[j]);\n"
              "    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j] - m);  // subtract the max: no overflow\n"
              "    for (std::size_t j = 0; j < N; ++j) yr[j] /= d;\n"
              "  }\n"
              "  return y;\n",
              "  const std::size_t last = x.dimension() - 1;\n"
              "  Array m = xt::amax(x, {last}, xt::keep_dims | xt::evaluation_strategy::immediate);\n"
              "  Array e = xt::exp(x - m);\n"
              "  Array d = xt::sum(e, {0}, xt::keep_dims | xt::evaluation_strategy::immediate);  // the first axis\n"
              "  return e / d;\n")))
    # 12. cross_entropy
    s12 = solution("cross_entropy")
    add("cross_entropy", "grad_mean_missing", "the gradient without 1/n",
        edit(s12,
             ("    for (std::size_t c = 0; c < C; ++c) dz(i, c) = std::exp(logits(i, c) - lse) / n;\n"
              "    dz(i, targets[i]) -= 1.0 / n;\n",
              "    for (std::size_t c = 0; c < C; ++c) dz(i, c) = std::exp(logits(i, c) - lse);\n"
              "    dz(i, targets[i]) -= 1.0;\n")))
    add("cross_entropy", "gradient_sign_flipped", "onehot − softmax",
        edit(s12,
             ("    for (std::size_t c = 0; c < C; ++c) dz(i, c) = std::exp(logits(i, c) - lse) / n;\n"
              "    dz(i, targets[i]) -= 1.0 / n;\n",
              "    for (std::size_t c = 0; c < C; ++c) dz(i, c) = -std::exp(logits(i, c) - lse) / n;\n"
              "    dz(i, targets[i]) += 1.0 / n;\n")))
    add("cross_entropy", "max_not_subtracted", "log Σ exp(z) without the max",
        edit(s12,
             ("  double m = z[0], s = 0;\n"
              "  for (std::size_t c = 1; c < C; ++c) m = std::max(m, z[c]);\n"
              "  for (std::size_t c = 0; c < C; ++c) s += std::exp(z[c] - m);\n"
              "  return m + std::log(s);\n",
              "  double s = 0;\n"
              "  for (std::size_t c = 0; c < C; ++c) s += std::exp(z[c]);\n"
              "  return std::log(s);\n")))
    add("cross_entropy", "mean_over_all_rows", "divided by N, the ignored rows counted",
        edit(s12,
             ("  for (std::int64_t t : targets) n += t != ignore_index;\n"
              "  return n;\n",
              "  return double(targets.size());  // every row\n")))
    # 13. multi_head_attention
    s13 = solution("multi_head_attention")
    add("multi_head_attention", "causal_mask_reversed", "query i sees keys j >= i",
        edit(s13,
             ("const bool allowed = (!causal || j <= i) && j < lengths[b];",
              "const bool allowed = (!causal || j >= i) && j < lengths[b];")))
    add("multi_head_attention", "heads_split_without_transpose", "(B, S, d) reshaped to (B, H, S, Dh)",
        edit(s13,
             ("// Head h of position s is features h·Dh .. h·Dh + Dh − 1 of row (b, s): the split (B, S, H, Dh) -> (B, H, S, Dh)\n"
              "// read in place. Per (b, h): scores = q kᵀ/√Dh, −∞ where masked, P = softmax per row, y = P v.\n",
              "// The heads split by a reshape alone: (B, S, d) -> (B, H, S, Dh), and merged back the same way.\n"),
             ("  Array y = Array::from_shape({B, S, d});\n"
              "  y.fill(0.0);\n",
              "  Array qh = q, kh = k, vh = v;\n"
              "  qh.reshape({B, heads, S, Dh});\n"
              "  kh.reshape({B, heads, S, Dh});\n"
              "  vh.reshape({B, heads, S, Dh});\n"
              "  Array y = xt::zeros<double>({B, heads, S, Dh});\n"),
             ("          const bool allowed = (!causal || j <= i) && j < lengths[b];\n", ""),
             ("          for (std::size_t e = 0; e < Dh; ++e) s += q(b, i, h * Dh + e) * k(b, j, h * Dh + e);\n"
              "          p[j] = allowed ? s * scale : -INFINITY;  // masked before the softmax\n",
              "          for (std::size_t e = 0; e < Dh; ++e) s += qh(b, h, i, e) * kh(b, h, j, e);\n"
              "          p[j] = (!causal || j <= i) && j < lengths[b] ? s * scale : -INFINITY;\n"),
             ("          for (std::size_t e = 0; e < Dh; ++e) y(b, i, h * Dh + e) += p[j] / z * v(b, j, h * Dh + e);\n"
              "      }\n"
              "  return y;\n",
              "          for (std::size_t e = 0; e < Dh; ++e) y(b, h, i, e) += p[j] / z * vh(b, h, j, e);\n"
              "      }\n"
              "  y.reshape({B, S, d});\n"
              "  return y;\n")))
    add("multi_head_attention", "mask_after_softmax", "P zeroed where masked, after the softmax",
        edit(s13,
             ("p[j] = allowed ? s * scale : -INFINITY;  // masked before the softmax", "p[j] = s * scale;"),
             ("          for (std::size_t e = 0; e < Dh; ++e) y(b, i, h * Dh + e) += p[j] / z * v(b, j, h * Dh + e);\n",
              "          for (std::size_t e = 0; e < Dh; ++e)\n"
              "            y(b, i, h * Dh + e) += ((!causal || j <= i) && j < lengths[b] ? p[j] / z : 0.0) * v(b, j, h * Dh + e);\n")))
    add("multi_head_attention", "mask_multiplied", "scores · mask",
        edit(s13,
             ("p[j] = allowed ? s * scale : -INFINITY;  // masked before the softmax",
              "p[j] = s * scale * (allowed ? 1.0 : 0.0);  // the mask multiplied in")))
    add("multi_head_attention", "max_not_subtracted", "exp of the raw scores",
        edit(s13,
             ("for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);",
              "for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j]);")))
    add("multi_head_attention", "scale_by_d", "scores / Dh",
        edit(s13, ("const double scale = 1.0 / std::sqrt(double(Dh));", "const double scale = 1.0 / double(Dh);")))
    # 14. multi_head_attention_backward
    s14 = solution("multi_head_attention_backward")
    add("multi_head_attention_backward", "dk_not_transposed", "dk = dS q",
        edit(s14,
             ("g.dk(b, j, f + e) += dS * q(b, i, f + e) * scale;",
              "g.dk(b, i, f + e) += dS * q(b, j, f + e) * scale;")))
    add("multi_head_attention_backward", "max_not_subtracted", "P from exp of the raw scores",
        edit(s14,
             ("for (std::size_t j = 0; j < S; ++j) z += P[j] = std::exp(P[j] - m);",
              "for (std::size_t j = 0; j < S; ++j) z += P[j] = std::exp(P[j]);")))
    add("multi_head_attention_backward", "scale_missing", "1/√Dh forgotten in dq",
        edit(s14, ("g.dq(b, i, f + e) += dS * k(b, j, f + e) * scale;", "g.dq(b, i, f + e) += dS * k(b, j, f + e);")))
    add("multi_head_attention_backward", "scale_missing", "1/√Dh forgotten in dk",
        edit(s14,
             ("g.dk(b, j, f + e) += dS * q(b, i, f + e) * scale;", "g.dk(b, j, f + e) += dS * q(b, i, f + e);")), variant="dk")
    add("multi_head_attention_backward", "softmax_row_sum_missing", "dS = P ⊙ dP",
        edit(s14, ("const double dS = P[j] * (dP[j] - dot);", "const double dS = P[j] * dP[j];")))
    # 15. grouped_query_attention
    s15 = solution("grouped_query_attention")
    add("grouped_query_attention", "kv_heads_tiled", "kv head h % Hkv",
        edit(s15,
             ("const std::size_t g = h / n_rep;  // the kv head this query head shares",
              "const std::size_t g = h % k.shape()[1];  // the kv head this query head shares")))
    add("grouped_query_attention", "kv_heads_tiled", "k and v tiled (torch's repeat) to H heads first",
        edit(s15,
             ("// Query head h reads kv head h / n_rep (repeat_interleave), then plain attention per (b, h).",
              "// k and v repeated to H heads as torch's k.repeat(1, n_rep, 1, 1): the kv heads tiled, 0, 1, 0, 1, ..."),
             ("  const std::size_t n_rep = H / k.shape()[1];\n",
              "  const std::size_t n_rep = H / k.shape()[1];\n"
              "  const std::size_t Hkv = k.shape()[1];\n"
              "  Array kr = xt::zeros<double>(q.shape()), vr = xt::zeros<double>(q.shape());\n"
              "  for (std::size_t b = 0; b < B; ++b)\n"
              "    for (std::size_t r = 0; r < n_rep; ++r)  // copy r of all the kv heads: heads r·Hkv .. r·Hkv + Hkv − 1\n"
              "      for (std::size_t j = 0; j < Hkv; ++j)\n"
              "        for (std::size_t i = 0; i < S; ++i)\n"
              "          for (std::size_t e = 0; e < D; ++e) kr(b, r * Hkv + j, i, e) = k(b, j, i, e), vr(b, r * Hkv + j, i, e) = v(b, j, i, e);\n"),
             ("  Array y = Array::from_shape(q.shape());\n"
              "  y.fill(0.0);\n",
              "  Array y = xt::zeros<double>(q.shape());\n"),
             ("    for (std::size_t h = 0; h < H; ++h) {\n"
              "      const std::size_t g = h / n_rep;  // the kv head this query head shares\n",
              "    for (std::size_t h = 0; h < H; ++h)\n"),
             ("for (std::size_t e = 0; e < D; ++e) s += q(b, h, i, e) * k(b, g, j, e);",
              "for (std::size_t e = 0; e < D; ++e) s += q(b, h, i, e) * kr(b, h, j, e);"),
             ("          for (std::size_t e = 0; e < D; ++e) y(b, h, i, e) += p[j] / z * v(b, g, j, e);\n"
              "      }\n"
              "    }\n",
              "          for (std::size_t e = 0; e < D; ++e) y(b, h, i, e) += p[j] / z * vr(b, h, j, e);\n"
              "      }\n")), variant="tile")
    # 16. rope
    s16 = solution("rope")
    add("rope", "backward_rotates_forward", "the backward rotates by +angle",
        edit(s16,
             ("return rotate_pairs(dy, positions, base, style, -1.0);",
              "return rotate_pairs(dy, positions, base, style, +1.0);")))
    add("rope", "base_exponent_wrong", "θ_i = base^(−i/D)",
        edit(s16,
             ("const double angle = sign * pos * std::pow(base, -2.0 * double(i) / double(D));",
              "const double angle = sign * pos * std::pow(base, -double(i) / double(D));")))
    add("rope", "other_style", "half_split asked, the interleaved pairs written (and the other way round)",
        edit(s16,
             ("      const std::size_t a = style == RopeStyle::interleaved ? 2 * i : i;\n"
              "      const std::size_t b = style == RopeStyle::interleaved ? 2 * i + 1 : i + D / 2;\n",
              "      const std::size_t a = style == RopeStyle::half_split ? 2 * i : i;\n"
              "      const std::size_t b = style == RopeStyle::half_split ? 2 * i + 1 : i + D / 2;\n")))
    add("rope", "position_off_by_one", "positions[s] + 1",
        edit(s16,
             ("const double pos = double(positions[r % S]);  // rows run over (..., S): row r is position r % S",
              "const double pos = double(positions[r % S] + 1);  // rows run over (..., S): row r is position r % S")))
    add("rope", "positions_ignored", "row s at position s",
        edit(s16,
             ("const double pos = double(positions[r % S]);  // rows run over (..., S): row r is position r % S",
              "const double pos = double(r % S);  // rows run over (..., S): row r is position r % S")))
    add("rope", "wrong_pairing", "this style's pairs, the other style's frequency per feature",
        edit(s16,
             ("      const double angle = sign * pos * std::pow(base, -2.0 * double(i) / double(D));\n", ""),
             ("      const std::size_t b = style == RopeStyle::interleaved ? 2 * i + 1 : i + D / 2;\n",
              "      const std::size_t b = style == RopeStyle::interleaved ? 2 * i + 1 : i + D / 2;\n"
              "      // cos and sin per feature, laid out for the other style: feature f has frequency f mod D/2 (cat(freqs, freqs))\n"
              "      // next to interleaved pairs, f / 2 (repeat_interleave) next to rotate_half\n"
              "      auto angle = [&](std::size_t f) {\n"
              "        const std::size_t k = style == RopeStyle::interleaved ? f % (D / 2) : f / 2;\n"
              "        return sign * pos * std::pow(base, -2.0 * double(k) / double(D));\n"
              "      };\n"),
             ("      y.data()[r * D + a] = xa * std::cos(angle) - xb * std::sin(angle);\n"
              "      y.data()[r * D + b] = xa * std::sin(angle) + xb * std::cos(angle);\n",
              "      y.data()[r * D + a] = xa * std::cos(angle(a)) - xb * std::sin(angle(a));\n"
              "      y.data()[r * D + b] = xa * std::sin(angle(b)) + xb * std::cos(angle(b));\n")))
    # 17. kv_cache_decode
    s17 = solution("kv_cache_decode")
    add("kv_cache_decode", "attended_before_append", "the attention over rows 0..t−1, the new token left out",
        edit(s17,
             ("const std::size_t n = cache.length;",
              "const std::size_t n = t;  // the cache as it was before this token")))
    add("kv_cache_decode", "causal_mask_in_decode", "the causal mask of row 0 applied to the one query",
        edit(s17,
             ("    p[j] = s / std::sqrt(double(D));\n",
              "    const std::size_t i = 0;  // the query's row: one new token\n"
              "    p[j] = j > i ? -INFINITY : s / std::sqrt(double(D));  // causal mask\n")))
    add("kv_cache_decode", "position_off_by_one", "pos[t + 1]: the position counted from 1",
        edit(s17,
             ("for (std::size_t i = 0; i < d; ++i) h[i] = x(i) + pos(t, i);",
              "for (std::size_t i = 0; i < d; ++i) h[i] = x(i) + pos(t + 1, i);  // positions counted from 1")))
    # 18. swiglu
    s18 = solution("swiglu")
    add("swiglu", "gate_up_swapped", "silu(x W3ᵀ) ⊙ x W1ᵀ",
        edit(s18,
             ("        gate += x.data()[r * in + i] * w1(j, i);\n"
              "        up += x.data()[r * in + i] * w3(j, i);\n",
              "        gate += x.data()[r * in + i] * w3(j, i);\n"
              "        up += x.data()[r * in + i] * w1(j, i);\n"),
             ("for (std::size_t i = 0; i < in; ++i) gate[j] += xr[i] * w1(j, i), up[j] += xr[i] * w3(j, i);",
              "for (std::size_t i = 0; i < in; ++i) gate[j] += xr[i] * w3(j, i), up[j] += xr[i] * w1(j, i);"),
             ("        g.dw1(j, i) += dg[j] * xr[i];\n"
              "        g.dw3(j, i) += du[j] * xr[i];\n"
              "        g.dx.data()[r * in + i] += dg[j] * w1(j, i) + du[j] * w3(j, i);\n",
              "        g.dw3(j, i) += dg[j] * xr[i];\n"
              "        g.dw1(j, i) += du[j] * xr[i];\n"
              "        g.dx.data()[r * in + i] += dg[j] * w3(j, i) + du[j] * w1(j, i);\n")))
    add("swiglu", "sigmoid_instead_of_silu", "σ(g) ⊙ u",
        edit(s18,
             ("static double silu(double g) { return g * sigmoid(g); }\n"
              "static double silu_grad(double g) { return sigmoid(g) + g * sigmoid(g) * (1.0 - sigmoid(g)); }\n",
              "static double silu(double g) { return sigmoid(g); }\n"
              "static double silu_grad(double g) { return sigmoid(g) * (1.0 - sigmoid(g)); }\n")))
    add("swiglu", "silu_grad_missing_term", "silu'(g) = σ(g)",
        edit(s18,
             ("static double silu_grad(double g) { return sigmoid(g) + g * sigmoid(g) * (1.0 - sigmoid(g)); }",
              "static double silu_grad(double g) { return sigmoid(g); }")))
    # 19. lora
    s19 = solution("lora")
    add("lora", "a_b_order_swapped", "ΔW = Aᵀ Bᵀ, the update transposed",
        edit(s19,
             ("  Array merged = w;\n"
              "  for (std::size_t o = 0; o < out; ++o)\n"
              "    for (std::size_t i = 0; i < in; ++i)\n"
              "      for (std::size_t k = 0; k < r; ++k) merged(o, i) += s * b(o, k) * a(k, i);\n"
              "  return merged;\n",
              "  Array delta = Array::from_shape({in, out});  // Aᵀ Bᵀ, in the forward's order\n"
              "  delta.fill(0.0);\n"
              "  for (std::size_t i = 0; i < in; ++i)\n"
              "    for (std::size_t o = 0; o < out; ++o)\n"
              "      for (std::size_t k = 0; k < r; ++k) delta(i, o) += s * a(k, i) * b(o, k);\n"
              "  return w + delta;\n")))
    add("lora", "alpha_over_r_missing", "no alpha/r anywhere",
        edit(s19,
             ("  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0], rows = x.size() / in;\n"
              "  const double s = alpha / double(r);\n"
              "  tapegrad::Shape shape(x.shape().begin(), x.shape().end());\n",
              "  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0], rows = x.size() / in;\n"
              "  const double s = 1.0;  // alpha unused\n"
              "  tapegrad::Shape shape(x.shape().begin(), x.shape().end());\n"),
             ("  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0], rows = x.size() / in;\n"
              "  const double s = alpha / double(r);\n"
              "  LoraGrads g;\n",
              "  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0], rows = x.size() / in;\n"
              "  const double s = 1.0;  // alpha unused\n"
              "  LoraGrads g;\n"),
             ("  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0];\n"
              "  const double s = alpha / double(r);\n",
              "  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0];\n"
              "  const double s = 1.0;  // alpha unused\n")))
    add("lora", "frozen_weight_gradient", "dW = Σ dyᵀ x",
        edit(s19,
             ("  g.dx.fill(0.0), g.da.fill(0.0), g.db.fill(0.0);\n",
              "  g.dw = Array::from_shape(w.shape());\n"
              "  g.dx.fill(0.0), g.da.fill(0.0), g.db.fill(0.0), g.dw.fill(0.0);\n"),
             ("for (std::size_t o = 0; o < out; ++o) dx += dyr[o] * w(o, i);",
              "for (std::size_t o = 0; o < out; ++o) dx += dyr[o] * w(o, i), g.dw(o, i) += dyr[o] * xr[i];")))
    # 20. dropout
    s20 = solution("dropout")
    add("dropout", "backward_mask_not_reused", "dx = dy / (1 − p)",
        edit(s20,
             ("for (std::size_t i = 0; i < dy.size(); ++i) dx.data()[i] = dy.data()[i] * mask.data()[i] * scale;",
              "for (std::size_t i = 0; i < dy.size(); ++i) dx.data()[i] = dy.data()[i] * scale;")))
    add("dropout", "eval_still_drops", "training ignored",
        edit(s20,
             ("Array dropout_forward(const Array& x, const Array& mask, double p, bool training) {\n"
              "  if (!training) return x;\n",
              "Array dropout_forward(const Array& x, const Array& mask, double p, bool /*training*/) {\n"),
             ("Array dropout_backward(const Array& dy, const Array& mask, double p, bool training) {\n"
              "  if (!training) return dy;\n",
              "Array dropout_backward(const Array& dy, const Array& mask, double p, bool /*training*/) {\n")))
    add("dropout", "inverted_scale_missing", "y = x ⊙ mask",
        edit(s20,
             ("  if (!training) return x;\n"
              "  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;\n",
              "  if (!training) return x;\n"
              "  const double scale = 1.0;\n"),
             ("  if (!training) return dy;\n"
              "  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;\n",
              "  if (!training) return dy;\n"
              "  const double scale = 1.0;\n")))
    add("dropout", "scaled_by_p", "y = x ⊙ mask / p",
        edit(s20,
             ("  if (!training) return x;\n"
              "  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;\n",
              "  if (!training) return x;\n"
              "  const double scale = 1.0 / p;\n"),
             ("  if (!training) return dy;\n"
              "  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;\n",
              "  if (!training) return dy;\n"
              "  const double scale = 1.0 / p;\n")))
    # 21. sampling
    s21 = solution("sampling")
    add("sampling", "not_renormalised", "the kept probabilities not divided by their sum",
        edit(s21,
             ("  double total = 0;\n"
              "  for (double v : p) total += v;\n"
              "  for (double& v : p) v /= total;\n",
              "  (void)p;  // already a distribution\n")))
    add("sampling", "temperature_after_softmax", "softmax(z) / T",
        edit(s21,
             ("  for (std::size_t i = 0; i < V; ++i) max = std::max(max, logits(i) / temperature);\n"
              "  for (std::size_t i = 0; i < V; ++i) z += p[i] = std::exp(logits(i) / temperature - max);\n"
              "  for (double& v : p) v /= z;\n",
              "  for (std::size_t i = 0; i < V; ++i) max = std::max(max, logits(i));\n"
              "  for (std::size_t i = 0; i < V; ++i) z += p[i] = std::exp(logits(i) - max);\n"
              "  for (double& v : p) v /= z * temperature;  // the temperature\n")))
    add("sampling", "top_k_keeps_k_plus_one", "the (k+1)-th as the threshold",
        edit(s21, ("const double kth = p[order[top_k - 1]];", "const double kth = p[order[top_k]];")))
    add("sampling", "top_p_excludes_crossing", "keep while the running sum stays within top_p",
        edit(s21,
             ("if (before >= top_p) p[i] = 0;  // the set already reached top_p",
              "if (before + pi > top_p) p[i] = 0;  // it would go past top_p")))
    # 22. llama_block
    s22 = solution("llama_block")
    add("llama_block", "gate_up_swapped", "silu on n W3ᵀ, times n W1ᵀ",
        edit(s22,
             ("const std::vector<double> f = swiglu(rms_norm(h, w.ffn_norm, eps), w.w1, w.w3, w.w2);",
              "const std::vector<double> f = swiglu(rms_norm(h, w.ffn_norm, eps), w.w3, w.w1, w.w2);")))
    add("llama_block", "kv_heads_tiled", "query head h reads kv head h % Hkv (torch's repeat)",
        edit(s22,
             ("  const std::size_t n_rep = H / Hkv;\n", ""),
             ("const std::size_t g = h / n_rep;", "const std::size_t g = h % Hkv;  // n_rep unused")))
    add("llama_block", "no_causal_mask", "every query sees every key",
        edit(s22,
             ("for (std::size_t j = 0; j <= i; ++j) {  // causal: keys 0..i", "for (std::size_t j = 0; j < S; ++j) {"),
             ("        for (std::size_t j = 0; j <= i; ++j) z += p[j] = std::exp(p[j] - m);\n"
              "        for (std::size_t j = 0; j <= i; ++j)\n",
              "        for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);\n"
              "        for (std::size_t j = 0; j < S; ++j)\n")))
    add("llama_block", "post_norm", "the norms after the residual sums: h = RMSNorm(x + Attn(x)), y = RMSNorm(h + FFN(h))",
        edit(s22,
             ("const std::vector<double> n = rms_norm(xs, w.attention_norm, eps);",
              "const std::vector<double>& n = xs;  // Post-Norm: the sublayer reads x itself"),
             ("  const std::vector<double> f = swiglu(rms_norm(h, w.ffn_norm, eps), w.w1, w.w3, w.w2);\n",
              "  h = rms_norm(h, w.attention_norm, eps);\n"
              "  const std::vector<double> f = swiglu(h, w.w1, w.w3, w.w2);\n"
              "  std::vector<double> sum(h.size());\n"
              "  for (std::size_t i = 0; i < h.size(); ++i) sum[i] = h[i] + f[i];\n"
              "  sum = rms_norm(sum, w.ffn_norm, eps);\n"),
             ("for (std::size_t i = 0; i < h.size(); ++i) y.data()[i] = h[i] + f[i];",
              "for (std::size_t i = 0; i < h.size(); ++i) y.data()[i] = sum[i];")))
    add("llama_block", "residual_missing", "the attention's residual left out: h = Attn(RMSNorm(x))",
        edit(s22,
             ("for (std::size_t i = 0; i < h.size(); ++i) h[i] = xs[i] + a[i];",
              "for (std::size_t i = 0; i < h.size(); ++i) h[i] = a[i];")))
    add("llama_block", "residual_missing", "the FFN's residual left out: y = FFN(RMSNorm(h))",
        edit(s22,
             ("for (std::size_t i = 0; i < h.size(); ++i) y.data()[i] = h[i] + f[i];",
              "for (std::size_t i = 0; i < h.size(); ++i) y.data()[i] = f[i];")), variant="ffn")
    add("llama_block", "rms_eps_outside_sqrt", "x / (sqrt(mean(x²)) + eps)",
        edit(s22,
             ("for (std::size_t j = 0; j < n; ++j) y[r * n + j] = x[r * n + j] / std::sqrt(ms + eps) * weight(j);",
              "for (std::size_t j = 0; j < n; ++j) y[r * n + j] = x[r * n + j] / (std::sqrt(ms) + eps) * weight(j);")))
    add("llama_block", "rms_without_weight", "RMSNorm without its weight",
        edit(s22,
             ("for (std::size_t j = 0; j < n; ++j) y[r * n + j] = x[r * n + j] / std::sqrt(ms + eps) * weight(j);",
              "for (std::size_t j = 0; j < n; ++j) y[r * n + j] = x[r * n + j] / std::sqrt(ms + eps);")))
    add("llama_block", "rope_interleaved", "RoPE pairs (2i, 2i + 1), Meta's layout",
        edit(s22,
             ("        double& a = t[r * heads * D + h * D + i];\n"
              "        double& b = t[r * heads * D + h * D + i + D / 2];\n",
              "        double& a = t[r * heads * D + h * D + 2 * i];\n"
              "        double& b = t[r * heads * D + h * D + 2 * i + 1];\n")))
    add("llama_block", "rope_not_on_k", "RoPE on q only",
        edit(s22, ("  rope_half_split(k, S, num_kv_heads, D, rope_base);\n", "")))
    add("llama_block", "rope_on_v", "RoPE on v as well as q and k",
        edit(s22,
             ("const std::vector<double> v = linear(n, w.wv);", "std::vector<double> v = linear(n, w.wv);"),
             ("  rope_half_split(k, S, num_kv_heads, D, rope_base);\n",
              "  rope_half_split(k, S, num_kv_heads, D, rope_base);\n"
              "  rope_half_split(v, S, num_kv_heads, D, rope_base);\n")))
    add("llama_block", "scale_by_d", "scores / D",
        edit(s22, ("const double scale = 1.0 / std::sqrt(double(D));", "const double scale = 1.0 / double(D);")))
    return m


def file_name(exercise, id_, variant=None):
    return "%02d_%s__%s%s.cpp" % (NUMBER[exercise], exercise, id_, "__" + variant if variant else "")


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
    texts = {name: mistake_file(ex, id_, what, text) for ex, id_, what, text, name in ms}
    listed = [(ex, id_, name) for ex, id_, _, _, name in ms]
    if args[:1] == ["--out"] and len(args) == 2:
        out = args[1]
        written = sum(write_if_changed(os.path.join(out, "mistakes", name), text) for name, text in texts.items())
        written += write_if_changed(os.path.join(out, "test_exercise_mistakes.cpp"), test_file(listed))
        stale = set(os.listdir(os.path.join(out, "mistakes"))) - set(texts)
        for name in stale:  # a mistake no longer planted
            os.remove(os.path.join(out, "mistakes", name))
        print("%d planted mistakes in %s, %d files written" % (len(listed), out, written))
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
    extra = sorted(set(os.listdir(kept_dir)) - set(KEPT))
    if stale or extra:
        print("plant_mistakes.py --check: %s%s" % (
            "out of date (run --examples): %s" % ", ".join(stale) if stale else "",
            "; not kept examples (the build writes them): %s" % ", ".join(extra) if extra else ""))
        return 1
    print("PASS: the %d kept examples of %d planted mistakes are up to date" % (len(KEPT), len(ms)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
