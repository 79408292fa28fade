// Exercise 19: LoRA forward, backward and merge
// 练习 19：LoRA 的前向、反向和合并
//
// Check it:   scripts/exercise.sh check lora        (--lang zh: 中文报告)
//
// A frozen linear layer W (out, in) with a trainable low-rank update (Hu et al. 2021, PEFT's lora.Linear),
// per row of x (..., in), r = A's rows:
// 冻结的线性层 W (out, in) 加上可训练的低秩更新（Hu 等 2021，PEFT 的 lora.Linear），对 x (..., in) 的每一行，r 是 A 的行数：
//
//   y = x Wᵀ + (alpha / r) · (x Aᵀ) Bᵀ          A (r, in), B (out, r), scale s = alpha / r
//
//   backward / 反向:  dx = dy W + s · (dy B) A
//                     dA = s · Σ_rows (dy B)ᵀ x        dB = s · Σ_rows dyᵀ (x Aᵀ)
//                     W is frozen: no gradient (leave g.dw as it is) / W 是冻结的：没有梯度（g.dw 保持原样）
//   merge / 合并:      W' = W + s · B A   (out, in): then x W'ᵀ is y, one matmul / 之后 x W'ᵀ 就是 y，只需一次矩阵乘
//
// Worked example / 例子: in = out = r = 1, W = [1], A = [2], B = [3], alpha = 2 (s = 2), x = 1:
//   y = 1 + 2·(1·2)·3 = 13;   dy = 1: dx = 1 + 2·3·2 = 13, dA = 2·3·1 = 6, dB = 2·1·2 = 4;   W' = 1 + 2·3·2 = 13
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::LoraGrads;

Array lora_forward(const Array& x, const Array& w, const Array& a, const Array& b, double alpha) {
  throw tapegrad::exercise::NotImplemented("lora_forward");
}

LoraGrads lora_backward(const Array& dy, const Array& x, const Array& w, const Array& a, const Array& b, double alpha) {
  throw tapegrad::exercise::NotImplemented("lora_backward");  // LoraGrads g; g.dx = ..., g.da = ..., g.db = ...;
}

Array lora_merge(const Array& w, const Array& a, const Array& b, double alpha) {
  throw tapegrad::exercise::NotImplemented("lora_merge");  // return W';
}
