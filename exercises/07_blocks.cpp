// Exercise 7: Add & Norm, Post-Norm and Pre-Norm blocks from your own LayerNorm
// 练习 7：用你自己的 LayerNorm 搭 Add & Norm、Post-Norm 和 Pre-Norm
//
// Check it:   scripts/exercise.sh check blocks        (--lang zh: 中文报告)
//
// Built from your own parts: this file includes your exercises 2 and 3 (layer_norm_forward and
// layer_norm_backward), so do those first. The sublayer is F(h) = h Wᵀ + b, W (D, D), b (D).
// 用你自己的零件搭：本文件包含了你的练习 2 和 3（layer_norm_forward、layer_norm_backward），请先完成它们。
// 子层是 F(h) = h Wᵀ + b，W (D, D)，b (D)。
//
//   Add & Norm:  y = LN(x + fx)               dx = dfx = LN's dx at x + fx
//   Post-Norm:   y = LN(x + F(x))             (the original Transformer / 原始 Transformer)
//   Pre-Norm:    y = x + F(LN(x))             (GPT, Llama: the residual carries the raw x / 残差传递原始的 x)
//
// Every backward returns the gradients of all its inputs: dx, and dW, db, dγ, dβ for the blocks.
// Remember the residual path in dx: the gradient reaches x around F (and around LN in Pre-Norm).
// 记得 dx 里的残差路径：梯度绕过 F（在 Pre-Norm 里还绕过 LN）直接到达 x。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

#include "02_layer_norm_forward.cpp"
#include "03_layer_norm_backward.cpp"

using tapegrad::Array;
using tapegrad::exercise::AddNormGrads;
using tapegrad::exercise::BlockGrads;

Array add_and_norm_forward(const Array& x, const Array& fx, const Array& gamma, const Array& beta, double eps) {
  throw tapegrad::exercise::NotImplemented("add_and_norm_forward");
}

AddNormGrads add_and_norm_backward(const Array& dy, const Array& x, const Array& fx, const Array& gamma, double eps) {
  throw tapegrad::exercise::NotImplemented("add_and_norm_backward");  // return {dx, dfx, dgamma, dbeta};
}

Array post_norm_forward(const Array& x, const Array& w, const Array& b, const Array& gamma, const Array& beta,
                        double eps) {
  throw tapegrad::exercise::NotImplemented("post_norm_forward");
}

BlockGrads post_norm_backward(const Array& dy, const Array& x, const Array& w, const Array& b, const Array& gamma,
                              const Array& beta, double eps) {
  throw tapegrad::exercise::NotImplemented("post_norm_backward");  // return {dx, dw, db, dgamma, dbeta};
}

Array pre_norm_forward(const Array& x, const Array& w, const Array& b, const Array& gamma, const Array& beta,
                       double eps) {
  throw tapegrad::exercise::NotImplemented("pre_norm_forward");
}

BlockGrads pre_norm_backward(const Array& dy, const Array& x, const Array& w, const Array& b, const Array& gamma,
                             const Array& beta, double eps) {
  throw tapegrad::exercise::NotImplemented("pre_norm_backward");  // return {dx, dw, db, dgamma, dbeta};
}
