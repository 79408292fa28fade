#!/usr/bin/python3
"""PyTorch reference fixtures for scaled_dot_product_attention with masks
(tests/ops/test_attention_mask.cpp, tag [parity]).

Run by hand with Debian's python3-torch (1.13), from anywhere:
    /usr/bin/python3 tools/llm_attention_fixtures.py
(`/usr/bin/python3`: a pyenv python3 first on PATH has no torch.) It rewrites the directories
tests/fixtures/llm/sdpa_<case>/ (and nothing else). Tests only read the committed .npy files.

Torch 1.13 has no public F.scaled_dot_product_attention (it came in 2.0). Its private
F._scaled_dot_product_attention takes a boolean mask and is_causal (top left, as 2.0's), but no
additive mask and no scale. So each case is computed twice and the script asserts that the two agree
to 1e-14:
    torch_op:  F._scaled_dot_product_attention where it applies (boolean mask, is_causal),
    formula:   PyTorch 2.x's documented reference of scaled_dot_product_attention
               (attn_bias = 0; is_causal: masked_fill(~ones(L, S).tril(), -inf); boolean mask:
               masked_fill(~mask, -inf); float mask: + mask; softmax(q kᵀ · scale + attn_bias) v).
The saved output and grads are the formula's (torch autograd), which for the additive case is the
only one available.

float64, fixed seed. Shapes (B, H) = (2, 3), Dh = 5, Dv = 4. Cases:
    sdpa_bool_broadcast: boolean mask (B, 1, Sq, Sk) = (2, 1, 4, 6), broadcast over the heads;
                         every row keeps key 0 (PyTorch gives NaN for a fully masked row).
    sdpa_additive:       float mask (Sq, Sk) = (4, 6) of randn values with a few -inf (never a whole row).
    sdpa_causal_top_left: is_causal=True with Sq = 3 != Sk = 6: PyTorch's top-left causal (query i sees
                         keys j <= i); mask.npy is the ones(Sq, Sk).tril() PyTorch uses.
    sdpa_padding:        self-attention, S = 5, key padding mask (B, 1, 1, S) from lengths (5, 3);
                         lengths.npy holds them.
Files per case: q, k, v, mask (0/1 for boolean, the bias for additive), dy (the fixed upstream
gradient), output, grad_q, grad_k, grad_v (dL/d· for L = sum(output * dy)); all .npy float64.
"""
import os

import torch
import torch.nn.functional as F

from fixture_case_dir import write_case_dir

torch.manual_seed(20261204)

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "llm"))
B, H, DH, DV = 2, 3, 5, 4


def formula(q, k, v, mask, is_causal):
    """PyTorch 2.x's documented reference implementation of scaled_dot_product_attention."""
    sq, sk = q.shape[-2], k.shape[-2]
    scale = 1.0 / (q.shape[-1] ** 0.5)
    bias = torch.zeros(sq, sk, dtype=q.dtype)
    if is_causal:
        bias = bias.masked_fill(~torch.ones(sq, sk, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        bias = bias.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else bias + mask
    return torch.softmax(q @ k.transpose(-2, -1) * scale + bias, dim=-1) @ v


def inputs(sq, sk):
    q = torch.randn(B, H, sq, DH, dtype=torch.float64, requires_grad=True)
    k = torch.randn(B, H, sk, DH, dtype=torch.float64, requires_grad=True)
    v = torch.randn(B, H, sk, DV, dtype=torch.float64, requires_grad=True)
    return q, k, v


def write_case(name, q, k, v, mask, is_causal, saved_mask, extra=None):
    y = formula(q, k, v, mask, is_causal)
    if mask is None or mask.dtype == torch.bool:  # the op itself where torch 1.13 has it
        y_op, _ = F._scaled_dot_product_attention(q, k, v, mask, 0.0, False, is_causal)
        assert torch.allclose(y, y_op, rtol=1e-14, atol=1e-14), name
    assert torch.isfinite(y).all(), name
    dy = torch.randn(y.shape, dtype=torch.float64)
    y.backward(dy)
    arrays = {"q": q.detach(), "k": k.detach(), "v": v.detach(), "mask": saved_mask, "dy": dy,
              "output": y.detach(), "grad_q": q.grad, "grad_k": k.grad, "grad_v": v.grad}
    arrays.update(extra or {})
    write_case_dir(OUT, name, arrays, "tapegrad::scaled_dot_product_attention with a mask",
                   "llm_attention_fixtures.py", "Read by `tests/ops/test_attention_mask.cpp` (tag `[parity]`).\n")


def main():
    sq, sk = 4, 6
    q, k, v = inputs(sq, sk)
    allowed = torch.rand(B, 1, sq, sk) > 0.4
    allowed[..., 0] = True  # no fully masked row: PyTorch would give NaN there
    write_case("sdpa_bool_broadcast", q, k, v, allowed, False, allowed.to(torch.float64))

    q, k, v = inputs(sq, sk)
    bias = torch.randn(sq, sk, dtype=torch.float64)
    bias[0, 2] = bias[1, 5] = bias[3, 0] = float("-inf")
    write_case("sdpa_additive", q, k, v, bias, False, bias)

    q, k, v = inputs(3, sk)
    write_case("sdpa_causal_top_left", q, k, v, None, True, torch.ones(3, sk, dtype=torch.float64).tril())

    s, lengths = 5, [5, 3]
    q, k, v = inputs(s, s)
    keys = torch.zeros(B, 1, 1, s, dtype=torch.bool)
    for b, n in enumerate(lengths):
        keys[b, 0, 0, :n] = True
    write_case("sdpa_padding", q, k, v, keys, False, keys.to(torch.float64),
               {"lengths": torch.tensor(lengths, dtype=torch.float64)})


if __name__ == "__main__":
    main()
