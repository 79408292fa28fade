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
from llm_reference_code import (hf_apply_rotary_pos_emb, hf_cos_sin, meta_apply_rotary_emb,
                                meta_precompute_freqs_cis)

torch.manual_seed(20261204)

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "llm"))
B, H, S, D = 2, 3, 5, 8
OFFSET, BASE = 3, 10000.0


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
