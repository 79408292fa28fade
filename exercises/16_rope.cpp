// Exercise 16: RoPE (rotary position embedding) forward and backward, in the style you pick
// 练习 16：RoPE（旋转位置编码）的前向和反向，风格由你选
//
// Check it:   scripts/exercise.sh check rope        (--lang zh: 中文报告)
//
// x (..., S, D), D even; row s (along S) is at position positions[s] (a decode step's positions start at the
// cache's length, not at 0). Frequencies θ_i = base^(−2i/D), i = 0 .. D/2 − 1. Each pair (a, b) of a row is
// rotated by the angle positions[s]·θ_i:   (a, b) -> (a cos − b sin,  a sin + b cos).
// Two styles pair the features differently (same θ_i, same rotation):
//   RopeStyle::interleaved  pairs (2i, 2i + 1)   (the RoFormer paper, Meta's LLaMA code)
//   RopeStyle::half_split   pairs (i, i + D/2)   (GPT-NeoX, Hugging Face: x·cos + rotate_half(x)·sin)
// Pick one (or both): write it, and leave the other style throwing NotImplemented; the grader checks what you
// wrote, and says so if you wrote the other style's pairing. The backward is the rotation by −angle of dy.
// x (..., S, D)，D 为偶数；第 s 行（沿 S）的位置是 positions[s]（解码步的位置从缓存长度开始，不是 0）。
// 频率 θ_i = base^(−2i/D)，i = 0 .. D/2 − 1。每行的每一对 (a, b) 旋转角度 positions[s]·θ_i：
// (a, b) -> (a cos − b sin, a sin + b cos)。两种风格的配对不同（θ_i 和旋转相同）：interleaved 配对 (2i, 2i + 1)
// （RoFormer 论文、Meta 的 LLaMA 代码），half_split 配对 (i, i + D/2)（GPT-NeoX、Hugging Face）。
// 选一种（或两种）：写好它，另一种保持抛出 NotImplemented；检查器检查你写的那种，如果你写成了另一种的配对会告诉你。
// 反向就是把 dy 旋转 −angle。
//
// Worked example 例子:  x = [1, 2, 3, 4], position 1, base 100 (θ = 1, 0.1):
//   interleaved: pairs (1, 2) by 1 rad, (3, 4) by 0.1 rad -> [−1.14264, 1.92208, 2.58568, 4.27952]
//   half_split:  pairs (1, 3) by 1 rad, (2, 4) by 0.1 rad -> [−1.98411, 1.59067, 2.46238, 4.17968]
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::RopeStyle;

Array rope_forward(const Array& x, const std::vector<std::int64_t>& positions, double base, RopeStyle style) {
  throw tapegrad::exercise::NotImplemented("rope_forward");
}

Array rope_backward(const Array& dy, const std::vector<std::int64_t>& positions, double base, RopeStyle style) {
  throw tapegrad::exercise::NotImplemented("rope_backward");  // dx, the shape of dy
}
