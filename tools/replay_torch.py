#!/usr/bin/env python3
"""Replay a tapegrad-depth run in PyTorch (float64) and compare the per-step losses.

    tapegrad-depth --dump DIR --placements post --depths 2 --widths 8 --lrs 0.01 --warmups 0 --steps 20
    /usr/bin/python3 tools/replay_torch.py DIR            # prints the largest relative difference
    /usr/bin/python3 tools/replay_torch.py DIR --write    # also writes DIR/torch_losses.npy

Both architectures (--arch ffn and transformer; self-attention as torch.nn.MultiheadAttention, or with
--positions rope / rope-interleaved or --kv-heads as Hugging Face's LlamaAttention: --preset llama) and the
--init, --norm (layer, rms, batch), --activation (relu, gelu, swiglu), --ffn-mult, --heads, --seq-len options.

The record (see lab/include/tapegrad/lab/replay.hpp) holds config.json, the initial
parameters as <state_dict key>.npy, the train set x.npy / y.npy, the minibatch indices
batches.npy (steps x batch) and tapegrad's losses.npy. This script builds the same model
with torch.nn modules of the same names, loads the parameters, and trains it on the same
batches with torch.optim.Adam, setting the learning rate of every step to
lr * min(1, (step + 1) / warmup) (warmup 0: lr throughout).

Needs Debian's python3-torch (run with /usr/bin/python3); tests and CI never run it.
Exit status 1 if the difference is above --tolerance (default 1e-9).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
from torch import nn

from torch_fixtures import RMSNorm, sdpa  # RMSNorm: x / sqrt(mean(x^2) + eps) * weight; sdpa: softmax(q kᵀ/√Dh) v
from llm_parts_fixtures import LlamaMLP  # SwiGLU: down_proj(silu(gate_proj(x)) * up_proj(x))
from llm_reference_code import (hf_apply_rotary_pos_emb, hf_cos_sin, meta_apply_rotary_emb,  # HF's and Meta's code
                                meta_precompute_freqs_cis, repeat_kv)

torch.set_default_dtype(torch.float64)


ACTIVATIONS = {"relu": torch.relu, "gelu": nn.functional.gelu,  # gelu: the exact (erf) form, as tapegrad's
               "gelu_tanh": lambda x: nn.functional.gelu(x, approximate="tanh"), "silu": nn.functional.silu}


class FFN(nn.Module):
    def __init__(self, d, hidden, activation="relu"):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.act = ACTIVATIONS[activation]

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class BatchNormLast(nn.BatchNorm1d):
    """BatchNorm1d with the features last, as tapegrad's: (N, C), or (B, S, C) normalised over B*S per channel."""

    def forward(self, x):
        if x.dim() == 3:
            return super().forward(x.permute(0, 2, 1)).permute(0, 2, 1)
        return super().forward(x)


def make_norm(kind, d, eps):
    if kind == "layer":
        return nn.LayerNorm(d, eps=eps)
    if kind == "rms":
        return RMSNorm(d, eps)
    if kind == "batch":
        return BatchNormLast(d, eps=eps)
    raise ValueError(f"unknown norm {kind!r}")


class SelfAttention(nn.Module):
    """nn.MultiheadAttention(d, heads, batch_first=True) called as mha(x, x, x): its parameter names."""

    def __init__(self, d, heads):
        super().__init__()
        self.mha = nn.MultiheadAttention(d, heads, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


class LlamaAttention(nn.Module):
    """tapegrad's nn::MultiheadAttention as the lab builds it (--positions rope or --kv-heads), written as Hugging
    Face's LlamaAttention: q, k, v, o projections without biases, RoPE on q and k (positions 0..S-1), each key/value
    head shared by heads / kv_heads query heads (Hugging Face's repeat_kv)."""

    def __init__(self, d, heads, kv_heads, positions):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim, self.positions = heads, kv_heads, d // heads, positions
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def rope(self, x):
        positions = torch.arange(x.shape[-2])
        if self.positions == "rope":  # half-split pairs (i, i + D/2), Hugging Face's
            return hf_apply_rotary_pos_emb(x, *hf_cos_sin(positions, self.head_dim, 10000.0))
        if self.positions == "rope-interleaved":  # pairs (2i, 2i + 1), Meta's
            return meta_apply_rotary_emb(x, meta_precompute_freqs_cis(positions, self.head_dim, 10000.0))
        return x

    def forward(self, x):
        B, S, _ = x.shape
        q = self.rope(self.q_proj(x).view(B, S, self.heads, self.head_dim).transpose(1, 2))
        k = self.rope(self.k_proj(x).view(B, S, self.kv_heads, self.head_dim).transpose(1, 2))
        v = self.v_proj(x).view(B, S, self.kv_heads, self.head_dim).transpose(1, 2)
        groups = self.heads // self.kv_heads
        k, v = repeat_kv(k, groups), repeat_kv(v, groups)
        y = sdpa(q, k, v, causal=False)  # torch 1.13 has no F.scaled_dot_product_attention
        return self.o_proj(y.transpose(1, 2).reshape(B, S, -1))


def make_ffn(cfg):
    if cfg.get("activation", "relu") == "swiglu":
        return LlamaMLP(cfg["d"], cfg["ffn_hidden"])
    return FFN(cfg["d"], cfg["ffn_hidden"], cfg.get("activation", "relu"))


def llama_attention(cfg):
    """The lab's rule (lab/include/tapegrad/lab/run_config.hpp, has_llama_attention)."""
    return cfg.get("positions", "learned") != "learned" or cfg.get("kv_heads", 0) != 0


class ResidualBlock(nn.Module):
    """The six placements of tapegrad's nn::ResidualBlock (include/tapegrad/nn/residual_block.hpp), around
    the sublayer `sublayer` registered under `name`."""

    def __init__(self, placement, name, sublayer, d, cfg):
        super().__init__()
        self.placement = placement
        self.alpha_const = cfg["deepnorm_alpha"]
        self.name = name
        self.add_module(name, sublayer)
        kind, eps = cfg.get("norm", "layer"), cfg["layer_norm_eps"]
        if placement in ("post", "pre", "deepnorm", "sandwich"):
            self.norm = make_norm(kind, d, eps)
        if placement == "sandwich":
            self.norm_out = make_norm(kind, d, eps)
        if placement == "rezero":
            self.alpha = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        p, F = self.placement, getattr(self, self.name)
        if p == "post":
            return self.norm(x + F(x))
        if p == "pre":
            return x + F(self.norm(x))
        if p == "deepnorm":
            return self.norm(x * self.alpha_const + F(x))
        if p == "rezero":
            return x + F(x) * self.alpha
        if p == "sandwich":
            return x + self.norm_out(F(self.norm(x)))
        if p == "none":
            return x + F(x)
        raise ValueError(f"unknown placement {p!r}")


class TransformerBlock(nn.Module):
    """tapegrad's nn::TransformerBlock: attn (the placement around self-attention), then ffn (around the FFN)."""

    def __init__(self, cfg):
        super().__init__()
        d, p = cfg["d"], cfg["placement"]
        if llama_attention(cfg):
            attention = LlamaAttention(d, cfg["heads"], cfg.get("kv_heads", 0) or cfg["heads"],
                                       cfg.get("positions", "learned"))
        else:
            attention = SelfAttention(d, cfg["heads"])
        self.attn = ResidualBlock(p, "self_attn", attention, d, cfg)
        self.ffn = ResidualBlock(p, "ffn", make_ffn(cfg), d, cfg)

    def forward(self, x):
        return self.ffn(self.attn(x))


class DepthModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["d"]
        self.transformer = cfg.get("arch", "ffn") == "transformer"
        if self.transformer:
            self.token_embedding = nn.Embedding(cfg["classes"], d)
            if cfg.get("positions", "learned") == "learned":  # RoPE: positions inside the attention instead
                self.position_embedding = nn.Embedding(cfg["seq_len"], d)
            blocks = [TransformerBlock(cfg) for _ in range(cfg["depth"])]
        else:
            self.input = nn.Linear(cfg["d_in"], d)
            blocks = [ResidualBlock(cfg["placement"], "ffn", make_ffn(cfg), d, cfg) for _ in range(cfg["depth"])]
        self.blocks = nn.Sequential(*blocks)
        self.final_norm = make_norm(cfg.get("norm", "layer"), d, cfg["layer_norm_eps"]) if cfg["final_norm"] else None
        self.head = nn.Linear(d, cfg["classes"])

    def forward(self, x):
        if self.transformer:
            h = self.token_embedding(x.long())
            if hasattr(self, "position_embedding"):
                h = h + self.position_embedding(torch.arange(x.shape[1]))
        else:
            h = self.input(x)
        h = self.blocks(h)
        if self.final_norm is not None:
            h = self.final_norm(h)
        return self.head(h).reshape(-1, self.head.out_features)  # one row per example (per position)


# tapegrad's state_dict names for the attention: nn.MultiheadAttention sits one level lower here.
def tapegrad_name(key):
    return key.replace("self_attn.mha.", "self_attn.")


def load_parameters(model, folder):
    """The parameters from FOLDER/<tapegrad name>.npy; buffers (BatchNorm's running statistics) keep their
    initial values, as tapegrad's do (the record holds parameters only)."""
    state = {}
    for key, value in model.named_parameters():
        path = os.path.join(folder, tapegrad_name(key) + ".npy")
        if not os.path.exists(path):
            sys.exit(f"replay_torch: missing {path} for parameter {key} {tuple(value.shape)}")
        array = np.load(path)
        if array.shape != tuple(value.shape):
            sys.exit(f"replay_torch: {path} has shape {array.shape}, parameter {key} wants {tuple(value.shape)}")
        state[key] = torch.from_numpy(array)
    missing = model.load_state_dict(state, strict=False).missing_keys
    assert all(k.endswith(("running_mean", "running_var", "num_batches_tracked")) for k in missing), missing


def replay(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    if cfg.get("precision", "fp64") != "fp64":
        # tapegrad's formats are emulated (each op correctly rounded from float64, docs/precision.md); a CPU
        # torch run in float16 rounds differently (through float32, inside its reductions), so no 1e-9 parity.
        sys.exit(f"replay_torch: {folder} is a {cfg['precision']} run; only fp64 runs replay bit-close in PyTorch")
    if cfg.get("dropout", 0.0) != 0.0:
        # The masks are draws of tapegrad's Generator (Mersenne Twister), not of torch's: the same run cannot
        # be redone step for step.
        sys.exit(f"replay_torch: {folder} has dropout {cfg['dropout']}; only runs without dropout replay in PyTorch")
    model = DepthModel(cfg)
    load_parameters(model, folder)
    x = torch.from_numpy(np.load(os.path.join(folder, "x.npy")))
    y = torch.from_numpy(np.load(os.path.join(folder, "y.npy")))
    batches = np.load(os.path.join(folder, "batches.npy"))
    adam = cfg["adam"]
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], betas=tuple(adam["betas"]), eps=adam["eps"],
                           weight_decay=adam["weight_decay"])
    losses = []
    for step, idx in enumerate(batches):
        warmup = cfg["warmup"]
        lr = cfg["lr"] * (min(1.0, (step + 1) / warmup) if warmup > 0 else 1.0)
        for group in opt.param_groups:
            group["lr"] = lr
        opt.zero_grad(set_to_none=True)
        index = torch.from_numpy(idx)
        loss = nn.functional.cross_entropy(model(x[index]), y[index].reshape(-1))
        loss.backward()
        losses.append(loss.item())
        if not math.isfinite(loss.item()):
            break
        opt.step()
    return cfg, np.array(losses)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="a replay record written by tapegrad-depth --dump")
    parser.add_argument("--write", action="store_true", help="write the PyTorch losses to FOLDER/torch_losses.npy")
    parser.add_argument("--tolerance", type=float, default=1e-9, help="largest allowed relative difference")
    args = parser.parse_args()

    cfg, torch_losses = replay(args.folder)
    ours = np.load(os.path.join(args.folder, "losses.npy"))
    if ours.shape != torch_losses.shape:
        print(f"replay_torch: tapegrad recorded {ours.size} losses, PyTorch made {torch_losses.size}")
        return 1
    rel = np.abs(ours - torch_losses) / np.maximum(np.abs(torch_losses), np.finfo(np.float64).tiny)
    worst = float(rel.max()) if rel.size else 0.0
    if args.write:
        np.save(os.path.join(args.folder, "torch_losses.npy"), torch_losses)
    options = " ".join(f"{k}={cfg[k]}" for k in ("arch", "init", "norm", "activation", "heads", "kv_heads", "positions",
                                                 "seq_len") if k in cfg)
    print(f"{cfg['placement']:>9}  {options}  L={cfg['depth']} d={cfg['d']} lr={cfg['lr']} warmup={cfg['warmup']} "
          f"steps={len(torch_losses)}  loss {torch_losses[0]:.6f} -> {torch_losses[-1]:.6f}  "
          f"max relative difference {worst:.3e} (step {int(rel.argmax())})  torch {torch.__version__}")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
