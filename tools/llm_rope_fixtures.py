#!/usr/bin/python3
"""PyTorch reference fixtures for rotary_embedding (tests/ops/test_rotary_embedding.cpp, tag [parity]).

Run by hand with Debian's python3-torch (1.13), from anywhere:
    /usr/bin/python3 tools/llm_rope_fixtures.py
(`/usr/bin/python3`: a pyenv python3 first on PATH has no torch.) It rewrites
tests/fixtures/llm/rope_half_split/ and tests/fixtures/llm/rope_interleaved/ (and nothing else).
Tests only read the committed .npy files; they never need torch.

Both in float64, fixed seed, x of shape (B, H, S, Dh) = (2, 3, 5, 8), positions offset .. offset + S - 1
with offset 3 (a cached decode step), base 10000:
    rope_half_split:  Hugging Face's apply_rotary_pos_emb (q * cos + rotate_half(q) * sin, cos/sin from
                      inv_freq = 1 / base^(arange(0, D, 2) / D), emb = cat(freqs, freqs)), as in
                      transformers' modeling_llama.py / GPT-NeoX.
    rope_interleaved: Meta's LLaMA apply_rotary_emb (precompute_freqs_cis + view_as_complex), on
                      (B, H, S, Dh) instead of Meta's (B, S, H, Dh): freqs_cis (S, Dh/2) broadcasts the same.
Files per case: x.npy, positions.npy (float64 whole numbers), base.npy (one number), dy.npy (random
upstream gradient), y.npy, dx.npy (dL/dx for L = sum(y * dy), by torch autograd).
"""
import os

import torch

from fixture_case_dir import write_case_dir

torch.manual_seed(20261204)

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "llm"))
B, H, S, D = 2, 3, 5, 8
OFFSET, BASE = 3, 10000.0


# ---- Hugging Face (transformers, modeling_llama.py) ----
def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_cos_sin(positions, dim, base):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    freqs = torch.outer(positions.to(torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def hf_apply_rotary_pos_emb(q, cos, sin):
    return q * cos + rotate_half(q) * sin


# ---- Meta (llama/model.py) ----
def meta_precompute_freqs_cis(positions, dim, base):
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64)[: dim // 2] / dim))
    freqs = torch.outer(positions.to(torch.float64), freqs)
    return torch.polar(torch.ones_like(freqs), freqs)  # complex128


def meta_apply_rotary_emb(x, freqs_cis):
    x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(x_ * freqs_cis).flatten(-2)


def write_case(name, rope):
    x = torch.randn(B, H, S, D, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(B, H, S, D, dtype=torch.float64)
    positions = torch.arange(OFFSET, OFFSET + S)
    y = rope(x, positions)
    y.backward(dy)
    arrays = {"x": x.detach(), "positions": positions.to(torch.float64), "base": torch.tensor([BASE]),
              "dy": dy, "y": y.detach(), "dx": x.grad}
    write_case_dir(OUT, name, arrays, "tapegrad::rotary_embedding", "llm_rope_fixtures.py")


def main():
    write_case("rope_half_split",
               lambda x, p: hf_apply_rotary_pos_emb(x, *hf_cos_sin(p, D, BASE)))
    write_case("rope_interleaved",
               lambda x, p: meta_apply_rotary_emb(x, meta_precompute_freqs_cis(p, D, BASE)))


if __name__ == "__main__":
    main()
