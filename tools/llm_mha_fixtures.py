#!/usr/bin/python3
"""PyTorch reference fixtures for nn::MultiheadAttention (tests/nn/test_multihead_attention.cpp, tag [parity]).

Run by hand with Debian's python3-torch (1.13), from anywhere:
    /usr/bin/python3 tools/llm_mha_fixtures.py
(`/usr/bin/python3`: a pyenv python3 first on PATH has no torch.) It rewrites
tests/fixtures/llm/mha_gqa_half_split/ and tests/fixtures/llm/mha_mqa_interleaved/ (and nothing else).
Tests only read the committed .npy files; they never need torch.

The attention is written out as Hugging Face's LlamaAttention.forward does it (transformers'
modeling_llama.py): q_proj, k_proj, v_proj, view + transpose(1, 2) to (B, H, S, Dh), RoPE on q and k,
repeat_kv (expand + reshape = repeat_interleave on the head axis), causal attention, transpose back,
o_proj. torch 1.13 has no F.scaled_dot_product_attention; its math form is written out instead:
softmax(q kᵀ / √Dh + causal mask of −inf above the diagonal) v, the reference that F.sdpa's math
backend computes.
    mha_gqa_half_split:  d 16, 4 query heads, 2 kv heads (GQA), biases on all four projections
                         (config.attention_bias), HF's rotate_half RoPE, base 10000.
    mha_mqa_interleaved: d 16, 4 query heads, 1 kv head (MQA), no biases, Meta's complex RoPE
                         (view_as_complex pairs (2i, 2i+1)), base 500.
Float64, fixed seed, x (B, S, d) = (2, 5, 16), positions 0 .. S-1. Files per case: x.npy, dy.npy (random
upstream gradient), y.npy, dx.npy, param.<name>.npy (q_proj.weight, ... as (out, in) like nn.Linear),
grad.<name>.npy (dL/d param for L = sum(y * dy), by torch autograd), config.npy = [num_heads,
num_kv_heads, bias, style (0 half_split, 1 interleaved), base].
"""
import math
import os

import torch

from fixture_case_dir import write_case_dir
from llm_reference_code import (hf_apply_rotary_pos_emb, hf_cos_sin, meta_apply_rotary_emb,
                                meta_precompute_freqs_cis, repeat_kv)

torch.manual_seed(20261205)

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "llm"))
B, S, D_MODEL, HEADS = 2, 5, 16, 4
HEAD_DIM = D_MODEL // HEADS


def hf_rope(x, positions, base):
    return hf_apply_rotary_pos_emb(x, *hf_cos_sin(positions, HEAD_DIM, base))


def meta_rope(x, positions, base):
    return meta_apply_rotary_emb(x, meta_precompute_freqs_cis(positions, HEAD_DIM, base))


def attention(x, proj, kv_heads, rope, base):
    bsz, q_len, _ = x.shape
    q = proj["q_proj"](x).view(bsz, q_len, HEADS, HEAD_DIM).transpose(1, 2)
    k = proj["k_proj"](x).view(bsz, q_len, kv_heads, HEAD_DIM).transpose(1, 2)
    v = proj["v_proj"](x).view(bsz, q_len, kv_heads, HEAD_DIM).transpose(1, 2)
    positions = torch.arange(q_len)
    q, k = rope(q, positions, base), rope(k, positions, base)
    k, v = repeat_kv(k, HEADS // kv_heads), repeat_kv(v, HEADS // kv_heads)
    scores = q @ k.transpose(2, 3) / math.sqrt(HEAD_DIM)
    causal = torch.full((q_len, q_len), float("-inf"), dtype=torch.float64).triu(1)
    y = torch.softmax(scores + causal, dim=-1) @ v
    y = y.transpose(1, 2).reshape(bsz, q_len, D_MODEL)
    return proj["o_proj"](y)


def write_case(name, kv_heads, bias, style, base):
    rope = hf_rope if style == 0 else meta_rope
    proj = {
        "q_proj": torch.nn.Linear(D_MODEL, D_MODEL, bias=bias, dtype=torch.float64),
        "k_proj": torch.nn.Linear(D_MODEL, kv_heads * HEAD_DIM, bias=bias, dtype=torch.float64),
        "v_proj": torch.nn.Linear(D_MODEL, kv_heads * HEAD_DIM, bias=bias, dtype=torch.float64),
        "o_proj": torch.nn.Linear(D_MODEL, D_MODEL, bias=bias, dtype=torch.float64),
    }
    x = torch.randn(B, S, D_MODEL, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(B, S, D_MODEL, dtype=torch.float64)
    y = attention(x, proj, kv_heads, rope, base)
    y.backward(dy)
    arrays = {"x": x.detach(), "dy": dy, "y": y.detach(), "dx": x.grad,
              "config": torch.tensor([HEADS, kv_heads, float(bias), style, base], dtype=torch.float64)}
    for pname, module in proj.items():
        for tname, t in module.named_parameters():
            arrays["param.%s.%s" % (pname, tname)] = t.detach()
            arrays["grad.%s.%s" % (pname, tname)] = t.grad
    write_case_dir(OUT, name, arrays, "tapegrad::nn::MultiheadAttention", "llm_mha_fixtures.py")

def main():
    write_case("mha_gqa_half_split", kv_heads=2, bias=True, style=0, base=10000.0)
    write_case("mha_mqa_interleaved", kv_heads=1, bias=False, style=1, base=500.0)


if __name__ == "__main__":
    main()
