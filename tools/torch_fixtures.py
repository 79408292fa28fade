#!/usr/bin/python3
"""PyTorch reference fixtures for tests/parity/test_torch_parity.cpp.

Run by hand with Debian's python3-torch (1.13), from anywhere:
    /usr/bin/python3 tools/torch_fixtures.py
It rewrites tests/fixtures/layers/<case>/ (and nothing else). Tests and CI only
read the committed .npy files; they never need torch.

Everything is float64 with a fixed seed. Per case, the files are
    input.npy            x (features in the last axis, tapegrad's layout)
    dy.npy               a random upstream gradient; y.backward(dy). Random, not
                         ones: LayerNorm's input gradient for dy = 1 is zero, which
                         would hide errors
    output.npy           y
    grad_input.npy       dL/dx for L = sum(y * dy)
    param.<name>.npy     each parameter, <name> its state_dict key
    grad.<name>.npy      its gradient
    buffer.<name>.npy    each buffer before the forward pass (BatchNorm)
    buffer_after.<name>.npy  the same buffer after it (updated running stats)
The test copies param.* and buffer.* into the tapegrad module by name, so the
names double as a check that tapegrad's state_dict keys are PyTorch's.
"""
import os
import shutil

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

import torch_attention_fixtures

torch.set_default_dtype(torch.float64)
torch.manual_seed(20261129)

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "layers"))

B, S, D, H = 4, 3, 8, 32  # batch, sequence, features, FFN hidden width
LN_EPS = 1e-5
BN_EPS, BN_MOMENTUM = 1e-5, 0.1
RMS_EPS = torch.finfo(torch.float64).eps  # torch.nn.RMSNorm's default (eps=None)
DEEPNORM_BLOCKS = 6                       # N of DeepNet's formulas
REZERO_ALPHA = 0.3                        # non-zero, so dL/dα and the FFN's gradients are not all zero


class RMSNorm(nn.Module):
    """torch.nn.RMSNorm (added in torch 2.4), written out: autograd gives its backward."""

    def __init__(self, d, eps=RMS_EPS):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class FFN(nn.Module):
    """fc2(act(fc1(x))), named as tapegrad's nn::FFN."""

    def __init__(self, d, hidden, activation):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.activation = activation

    def forward(self, x):
        h = self.fc1(x)
        h = F.relu(h) if self.activation == "relu" else F.gelu(h)  # exact (erf) GELU
        return self.fc2(h)


class ResidualBlock(nn.Module):
    """tapegrad's nn::ResidualBlock, children "ffn", "norm", "norm_out", parameter "alpha"."""

    def __init__(self, placement, d, hidden, deepnorm_alpha=1.0):
        super().__init__()
        self.placement = placement
        self.deepnorm_alpha = deepnorm_alpha
        self.ffn = FFN(d, hidden, "relu")
        if placement in ("post", "pre", "deepnorm", "sandwich"):
            self.norm = nn.LayerNorm(d, eps=LN_EPS)
        if placement == "sandwich":
            self.norm_out = nn.LayerNorm(d, eps=LN_EPS)
        if placement == "rezero":
            self.alpha = nn.Parameter(torch.full((1,), REZERO_ALPHA))

    def forward(self, x):
        p = self.placement
        if p == "post":
            return self.norm(x + self.ffn(x))
        if p == "pre":
            return x + self.ffn(self.norm(x))
        if p == "deepnorm":
            return self.norm(self.deepnorm_alpha * x + self.ffn(x))
        if p == "rezero":
            return x + self.alpha * self.ffn(x)
        if p == "sandwich":
            return x + self.norm_out(self.ffn(self.norm(x)))
        if p == "none":
            return x + self.ffn(x)
        raise ValueError(p)


def randomize_norms(module):
    """γ around 1 and β around 0, but far enough from 1 and 0 that their gradients and effect show."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.LayerNorm, nn.BatchNorm1d, RMSNorm)):
                m.weight.copy_(1.0 + 0.5 * torch.randn_like(m.weight))
                if getattr(m, "bias", None) is not None:
                    m.bias.copy_(0.5 * torch.randn_like(m.bias))


def features_last_input(*shape):
    """randn with a per-feature offset and scale, so centring and scaling both matter."""
    d = shape[-1]
    return torch.randn(*shape) * (0.5 + torch.rand(d)) + torch.randn(d)


def to_numpy(t):
    """A float64 copy: .numpy() alone would share memory with buffers that the forward pass updates."""
    return t.detach().to(torch.float64).clone().numpy()


def write_case(name, module, x, forward=None):
    """Runs forward and backward(dy) through `module` and writes the case's files."""
    forward = forward or module
    directory = os.path.join(OUT, name)
    os.makedirs(directory)
    files = {}
    x = x.clone().requires_grad_(True)
    for key, p in module.named_parameters():
        files["param." + key] = to_numpy(p)
    for key, b in module.named_buffers():
        files["buffer." + key] = to_numpy(b)
    y = forward(x)
    dy = torch.randn_like(y)
    y.backward(dy)
    files["input"] = to_numpy(x)
    files["dy"] = to_numpy(dy)
    files["output"] = to_numpy(y)
    files["grad_input"] = to_numpy(x.grad)
    for key, p in module.named_parameters():
        files["grad." + key] = to_numpy(p.grad)
    for key, b in module.named_buffers():
        files["buffer_after." + key] = to_numpy(b)
    for key, value in files.items():
        # np.asarray, not np.ascontiguousarray: that makes 0-d (num_batches_tracked) 1-d.
        np.save(os.path.join(directory, key + ".npy"), np.asarray(value, dtype="<f8"))
    print(f"{name:24s} {len(files):3d} files, y {tuple(y.shape)}")


def batch_norm_case(name, x, training):
    bn = nn.BatchNorm1d(D, eps=BN_EPS, momentum=BN_MOMENTUM)
    randomize_norms(bn)
    with torch.no_grad():  # non-trivial running statistics: eval uses them, train updates them
        bn.running_mean.copy_(torch.randn(D))
        bn.running_var.copy_(0.5 + torch.rand(D))
    bn.train(training)
    if x.dim() == 3:
        # tapegrad keeps features last: (B, S, C); PyTorch's BatchNorm1d wants (B, C, S).
        write_case(name, bn, x, lambda t: bn(t.permute(0, 2, 1)).permute(0, 2, 1))
    else:
        write_case(name, bn, x)


def main():
    if os.path.isdir(OUT):
        for entry in os.listdir(OUT):
            if os.path.isdir(os.path.join(OUT, entry)):
                shutil.rmtree(os.path.join(OUT, entry))
    os.makedirs(OUT, exist_ok=True)

    for suffix, shape in (("2d", (B, D)), ("3d", (B, S, D))):
        ln = nn.LayerNorm(D, eps=LN_EPS)
        randomize_norms(ln)
        write_case("layer_norm_" + suffix, ln, features_last_input(*shape))

        rms = RMSNorm(D)
        randomize_norms(rms)
        write_case("rms_norm_" + suffix, rms, features_last_input(*shape))

        batch_norm_case("batch_norm_train_" + suffix, features_last_input(*shape), training=True)
        batch_norm_case("batch_norm_eval_" + suffix, features_last_input(*shape), training=False)

    write_case("linear", nn.Linear(D, 5), torch.randn(B, S, D))  # out ≠ in, so a transposed W shows
    write_case("ffn_relu", FFN(D, H, "relu"), torch.randn(B, S, D))
    write_case("ffn_gelu", FFN(D, H, "gelu"), torch.randn(B, S, D))

    deepnorm_alpha = (2 * DEEPNORM_BLOCKS) ** 0.25
    deepnorm_beta = (8 * DEEPNORM_BLOCKS) ** -0.25
    for placement in ("post", "pre", "deepnorm", "rezero", "sandwich", "none"):
        block = ResidualBlock(placement, D, H, deepnorm_alpha)
        randomize_norms(block)
        if placement == "deepnorm":  # DeepNet: the sublayer's weights (not biases) times β at init
            with torch.no_grad():
                block.ffn.fc1.weight.mul_(deepnorm_beta)
                block.ffn.fc2.weight.mul_(deepnorm_beta)
        write_case("residual_" + placement, block, torch.randn(B, S, D))

    # Attention, embeddings, Transformer blocks: after the cases above, so that theirs keep their random draws.
    torch_attention_fixtures.write_cases(write_case, OUT)


if __name__ == "__main__":
    main()
