#!/usr/bin/env python3
"""Replay a tapegrad-depth run in PyTorch (float64) and compare the per-step losses.

    tapegrad-depth --dump DIR --placements post --depths 2 --widths 8 --lrs 0.01 --warmups 0 --steps 20
    /usr/bin/python3 tools/replay_torch.py DIR            # prints the largest relative difference
    /usr/bin/python3 tools/replay_torch.py DIR --write    # also writes DIR/torch_losses.npy

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

torch.set_default_dtype(torch.float64)


class FFN(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class ResidualBlock(nn.Module):
    """The six placements of tapegrad's nn::ResidualBlock (include/tapegrad/nn/residual_block.hpp)."""

    def __init__(self, placement, d, hidden, eps, deepnorm_alpha):
        super().__init__()
        self.placement = placement
        self.alpha_const = deepnorm_alpha
        self.ffn = FFN(d, hidden)
        if placement in ("post", "pre", "deepnorm", "sandwich"):
            self.norm = nn.LayerNorm(d, eps=eps)
        if placement == "sandwich":
            self.norm_out = nn.LayerNorm(d, eps=eps)
        if placement == "rezero":
            self.alpha = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        p, F = self.placement, self.ffn
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


class DepthModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["d"]
        self.input = nn.Linear(cfg["d_in"], d)
        self.blocks = nn.Sequential(*[
            ResidualBlock(cfg["placement"], d, cfg["ffn_hidden"], cfg["layer_norm_eps"], cfg["deepnorm_alpha"])
            for _ in range(cfg["depth"])])
        self.final_norm = nn.LayerNorm(d, eps=cfg["layer_norm_eps"]) if cfg["final_norm"] else None
        self.head = nn.Linear(d, cfg["classes"])

    def forward(self, x):
        h = self.blocks(self.input(x))
        if self.final_norm is not None:
            h = self.final_norm(h)
        return self.head(h)


def load_parameters(model, folder):
    state = {}
    for key, value in model.state_dict().items():
        path = os.path.join(folder, key + ".npy")
        if not os.path.exists(path):
            sys.exit(f"replay_torch: missing {path} for parameter {key} {tuple(value.shape)}")
        array = np.load(path)
        if array.shape != tuple(value.shape):
            sys.exit(f"replay_torch: {path} has shape {array.shape}, parameter {key} wants {tuple(value.shape)}")
        state[key] = torch.from_numpy(array)
    model.load_state_dict(state)


def replay(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
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
        loss = nn.functional.cross_entropy(model(x[index]), y[index])
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
    print(f"{cfg['placement']:>9}  L={cfg['depth']} d={cfg['d']} lr={cfg['lr']} warmup={cfg['warmup']} "
          f"steps={len(torch_losses)}  loss {torch_losses[0]:.6f} -> {torch_losses[-1]:.6f}  "
          f"max relative difference {worst:.3e} (step {int(rel.argmax())})  torch {torch.__version__}")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
