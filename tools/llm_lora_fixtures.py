#!/usr/bin/python3
"""PyTorch reference fixtures for the LoRA parity test (tests/nn/test_lora_linear.cpp).

Run by hand with Debian's python3-torch (1.13), from anywhere:
    /usr/bin/python3 tools/llm_lora_fixtures.py
It rewrites tests/fixtures/llm/lora/ (and nothing else). The tests only read the committed
.npy files; they never need torch.

The layer is written out as PEFT's lora.Linear computes it (PEFT itself is not needed):
    y = x Wᵀ + b + (alpha / r) · (x Aᵀ) Bᵀ,   W, b frozen;  A (r, in), B (out, r) trainable
B is random (not PEFT's zeros), so that the LoRA path and both gradients are non-trivial.
Files, all float64:
    input.npy               x (2, 3, in)
    dy.npy                  a random upstream gradient; y.backward(dy)
    output.npy              y
    grad_input.npy          dL/dx for L = sum(y * dy)
    param.<name>.npy        base_layer.weight, base_layer.bias, lora_A.weight, lora_B.weight
    grad.lora_A.weight.npy  dL/dA
    grad.lora_B.weight.npy  dL/dB
    merged_weight.npy       W + (alpha/r) B A, what merge() leaves in base_layer.weight
    config.npy              [in, out, r, alpha]
"""

import os

import numpy as np
import torch

IN, OUT, R, ALPHA = 5, 4, 2, 6.0
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "tests", "fixtures", "llm", "lora")


def main():
    torch.manual_seed(42)
    dtype = torch.float64
    weight = torch.randn(OUT, IN, dtype=dtype)  # frozen: no requires_grad
    bias = torch.randn(OUT, dtype=dtype)
    lora_a = torch.randn(R, IN, dtype=dtype, requires_grad=True)
    lora_b = torch.randn(OUT, R, dtype=dtype, requires_grad=True)
    x = torch.randn(2, 3, IN, dtype=dtype, requires_grad=True)
    dy = torch.randn(2, 3, OUT, dtype=dtype)

    scaling = ALPHA / R
    y = torch.nn.functional.linear(x, weight, bias) + scaling * ((x @ lora_a.T) @ lora_b.T)
    y.backward(dy)
    merged = weight + scaling * (lora_b @ lora_a)

    os.makedirs(OUT_DIR, exist_ok=True)
    files = {
        "input": x, "dy": dy, "output": y, "grad_input": x.grad,
        "param.base_layer.weight": weight, "param.base_layer.bias": bias,
        "param.lora_A.weight": lora_a, "param.lora_B.weight": lora_b,
        "grad.lora_A.weight": lora_a.grad, "grad.lora_B.weight": lora_b.grad,
        "merged_weight": merged,
        "config": torch.tensor([IN, OUT, R, ALPHA], dtype=dtype),
    }
    for name, t in files.items():
        np.save(os.path.join(OUT_DIR, name + ".npy"), t.detach().numpy().astype(np.float64))
    with open(os.path.join(OUT_DIR, "README.md"), "w") as readme:
        readme.write(
            "# LoRA parity fixtures\n\n"
            "Written by `tools/llm_lora_fixtures.py` (PyTorch float64, seed 42); regenerate with\n\n"
            "    /usr/bin/python3 tools/llm_lora_fixtures.py\n\n"
            "(Debian's python3-torch). Read by `tests/nn/test_lora_linear.cpp`. The file list is in the\n"
            "script's docstring.\n")
    print("wrote", len(files), "files to", os.path.normpath(OUT_DIR))


if __name__ == "__main__":
    main()
