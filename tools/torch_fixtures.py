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
import math
import os
import shutil

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

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
    """tapegrad's nn::ResidualBlock, children <sublayer_name>, "norm", "norm_out", parameter "alpha".

    The sublayer is an FFN(d, hidden, "relu") unless given; it is built before anything else, so the
    random draws stay in the same order."""

    def __init__(self, placement, d, hidden, deepnorm_alpha=1.0, sublayer=None, sublayer_name="ffn"):
        super().__init__()
        self.placement = placement
        self.deepnorm_alpha = deepnorm_alpha
        sublayer = sublayer if sublayer is not None else FFN(d, hidden, "relu")
        self.sublayer_name = sublayer_name  # ResidualBlockOptions::sublayer_name
        setattr(self, self.sublayer_name, sublayer)
        if placement in ("post", "pre", "deepnorm", "sandwich"):
            self.norm = nn.LayerNorm(d, eps=LN_EPS)
        if placement == "sandwich":
            self.norm_out = nn.LayerNorm(d, eps=LN_EPS)
        if placement == "rezero":
            self.alpha = nn.Parameter(torch.full((1,), REZERO_ALPHA))

    def forward(self, x):
        p, f = self.placement, getattr(self, self.sublayer_name)
        if p == "post":
            return self.norm(x + f(x))
        if p == "pre":
            return x + f(self.norm(x))
        if p == "deepnorm":
            return self.norm(self.deepnorm_alpha * x + f(x))
        if p == "rezero":
            return x + self.alpha * f(x)
        if p == "sandwich":
            return x + self.norm_out(f(self.norm(x)))
        if p == "none":
            return x + f(x)
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

    # After the cases above, so that theirs keep their random draws.
    attention_cases()


# ---- attention, embeddings, Transformer blocks (tests/parity: [attention], [embedding], [transformer]) ----
#   sdpa, sdpa_causal        the formula written out (torch 1.13 has no F.scaled_dot_product_attention):
#                            input = q (2, 3, 5, 4); k, v saved as "parameters" k (2, 3, 5, 4), v (2, 3, 5, 6)
#   sdpa_causal_rect         3-D, 3 queries and 5 keys, the mask aligned top left as PyTorch's is_causal
#   self_attention[_causal]  nn.MultiheadAttention(8, 2, batch_first=True) on (x, x, x)
#   embedding                nn.Embedding(10, 8); the input is the indices (as float64), no grad_input
#   transformer_<placement>  attention then FFN, each in the placement (nn::TransformerBlock)

ATTENTION_B, ATTENTION_S, HEADS = 2, 5, 2
NUM_EMBEDDINGS = 10


def sdpa(q, k, v, causal):
    """softmax(q kᵀ / √Dh + mask) v, the masked scores at −∞."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        allowed = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


class AttentionOp(nn.Module):
    """The op with k and v as 'parameters', so that write_case saves them and their gradients."""

    def __init__(self, k, v, causal):
        super().__init__()
        self.k = nn.Parameter(k)
        self.v = nn.Parameter(v)
        self.causal = causal

    def forward(self, q):
        return sdpa(q, self.k, self.v, self.causal)


class SelfAttention(nn.MultiheadAttention):
    """mha(x, x, x) with PyTorch's parameter names: tapegrad's nn::SelfAttention."""

    def __init__(self, d, heads, causal):
        super().__init__(d, heads, batch_first=True)
        self.causal = causal

    def forward(self, x):
        mask = None
        if self.causal:  # True = may not attend: keys after the query
            mask = torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).triu(1)
        return super().forward(x, x, x, need_weights=False, attn_mask=mask)[0]


class TransformerBlock(nn.Module):
    """tapegrad's nn::TransformerBlock: children "attn" and "ffn", each a ResidualBlock."""

    def __init__(self, placement, causal=False):
        super().__init__()
        alpha = (2 * DEEPNORM_BLOCKS) ** 0.25
        attention, ffn = SelfAttention(D, HEADS, causal), FFN(D, H, "relu")
        self.attn = ResidualBlock(placement, D, H, alpha, sublayer=attention, sublayer_name="self_attn")
        self.ffn = ResidualBlock(placement, D, H, alpha, sublayer=ffn)
        if placement == "deepnorm":  # DeepNet: β on W_v, W_out and the FFN's weights, not on W_q, W_k
            beta = (8 * DEEPNORM_BLOCKS) ** -0.25
            with torch.no_grad():
                attention.in_proj_weight[2 * D:].mul_(beta)
                attention.out_proj.weight.mul_(beta)
                ffn.fc1.weight.mul_(beta)
                ffn.fc2.weight.mul_(beta)

    def forward(self, x):
        return self.ffn(self.attn(x))


def randomize_attention(module):
    """randomize_norms, and attention biases away from MultiheadAttention's zeros, so that a misplaced one shows."""
    randomize_norms(module)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.MultiheadAttention):
                m.in_proj_bias.copy_(0.5 * torch.randn_like(m.in_proj_bias))
                m.out_proj.bias.copy_(0.5 * torch.randn_like(m.out_proj.bias))
    return module


def write_embedding_case():
    """Indices are not differentiable, so this case has no grad_input (write_case's x requires grad)."""
    emb = nn.Embedding(NUM_EMBEDDINGS, D)
    indices = torch.tensor([[0, 3, 3, 9, 1], [9, 3, 2, 0, 0]])  # repeats: their gradients must add up
    y = emb(indices)
    dy = torch.randn_like(y)
    y.backward(dy)
    directory = os.path.join(OUT, "embedding")
    os.makedirs(directory)
    files = {"input": indices.to(torch.float64), "dy": dy, "output": y, "param.weight": emb.weight,
             "grad.weight": emb.weight.grad}
    for key, value in files.items():
        np.save(os.path.join(directory, key + ".npy"), np.asarray(value.detach().numpy(), dtype="<f8"))
    print(f"{'embedding':24s} {len(files):3d} files, y {tuple(y.shape)}")


def attention_cases():
    """The attention, embedding and Transformer-block cases (B, S, D, heads = 2, 5, 8, 2)."""
    B, S = ATTENTION_B, ATTENTION_S
    for name, causal in (("sdpa", False), ("sdpa_causal", True)):
        op = AttentionOp(torch.randn(B, 3, S, 4), torch.randn(B, 3, S, 6), causal)
        write_case(name, op, torch.randn(B, 3, S, 4))
    write_case("sdpa_causal_rect", AttentionOp(torch.randn(B, 5, 4), torch.randn(B, 5, 4), True), torch.randn(B, 3, 4))

    for name, causal in (("self_attention", False), ("self_attention_causal", True)):
        write_case(name, randomize_attention(SelfAttention(D, HEADS, causal)), torch.randn(B, S, D))

    write_embedding_case()

    for placement in ("post", "pre", "deepnorm", "rezero", "sandwich", "none"):
        write_case("transformer_" + placement, randomize_attention(TransformerBlock(placement)), torch.randn(B, S, D))
    write_case("transformer_pre_causal", randomize_attention(TransformerBlock("pre", causal=True)), torch.randn(B, S, D))


if __name__ == "__main__":
    main()
