"""PyTorch reference fixtures for attention, embeddings and Transformer blocks.

Called by tools/torch_fixtures.py (run that one: it owns the seed, float64 and the output
directory, and calls write_cases after its own cases, so theirs stay as they were).
Read by tests/parity/test_torch_attention_parity.cpp. Cases, each a directory of .npy files
in the layout torch_fixtures.py describes:

  sdpa, sdpa_causal                  scaled dot-product attention written out (torch 1.13 has no
  sdpa_causal_rect                   F.scaled_dot_product_attention): input = q, param.k, param.v;
                                     (B, H, S, Dh) = (2, 3, 5, 4), Dv = 6; rect: q (2, 3, 4), k (2, 5, 4),
                                     causal mask aligned top left as PyTorch's is_causal
  self_attention[_causal]            nn.MultiheadAttention(8, 2, batch_first=True), mha(x, x, x)
  embedding                          nn.Embedding(10, 8): input = the indices (float64), no grad_input
  transformer_<placement>            attention then FFN, each in the placement (tapegrad's
  transformer_pre_causal             nn::TransformerBlock; its children "attn" and "ffn")
"""
import math
import os

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

B, S, D, HEADS, HIDDEN = 2, 5, 8, 2, 32
LN_EPS = 1e-5
DEEPNORM_BLOCKS = 6
REZERO_ALPHA = 0.3
NUM_EMBEDDINGS = 10

# The name nn::ResidualBlock gives its sublayer child (today "ffn" for an FFN, "sublayer" otherwise).
SUBLAYER_NAME = {"attention": "sublayer", "ffn": "ffn"}


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


class FFN(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Residual(nn.Module):
    """tapegrad's nn::ResidualBlock around any sublayer."""

    def __init__(self, placement, sublayer, sublayer_name, deepnorm_alpha):
        super().__init__()
        self.placement = placement
        self.deepnorm_alpha = deepnorm_alpha
        self.sublayer_name = sublayer_name
        setattr(self, sublayer_name, sublayer)
        if placement in ("post", "pre", "deepnorm", "sandwich"):
            self.norm = nn.LayerNorm(D, eps=LN_EPS)
        if placement == "sandwich":
            self.norm_out = nn.LayerNorm(D, eps=LN_EPS)
        if placement == "rezero":
            self.alpha = nn.Parameter(torch.full((1,), REZERO_ALPHA))

    def forward(self, x):
        f, p = getattr(self, self.sublayer_name), self.placement
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


class TransformerBlock(nn.Module):
    def __init__(self, placement, causal=False):
        super().__init__()
        alpha = (2 * DEEPNORM_BLOCKS) ** 0.25
        attention, ffn = SelfAttention(D, HEADS, causal), FFN(D, HIDDEN)
        self.attn = Residual(placement, attention, SUBLAYER_NAME["attention"], alpha)
        self.ffn = Residual(placement, ffn, SUBLAYER_NAME["ffn"], alpha)
        if placement == "deepnorm":  # DeepNet: β on W_v, W_out and the FFN's weights, not on W_q, W_k
            beta = (8 * DEEPNORM_BLOCKS) ** -0.25
            with torch.no_grad():
                attention.in_proj_weight[2 * D:].mul_(beta)
                attention.out_proj.weight.mul_(beta)
                ffn.fc1.weight.mul_(beta)
                ffn.fc2.weight.mul_(beta)

    def forward(self, x):
        return self.ffn(self.attn(x))


def randomize(module):
    """Non-trivial LayerNorm γ, β and attention biases (MultiheadAttention starts them at 0)."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1.0 + 0.5 * torch.randn_like(m.weight))
                m.bias.copy_(0.5 * torch.randn_like(m.bias))
            if isinstance(m, nn.MultiheadAttention):
                m.in_proj_bias.copy_(0.5 * torch.randn_like(m.in_proj_bias))
                m.out_proj.bias.copy_(0.5 * torch.randn_like(m.out_proj.bias))
    return module


def write_embedding_case(out_dir):
    """Indices are not differentiable, so this case has no grad_input (write_case's x requires grad)."""
    emb = nn.Embedding(NUM_EMBEDDINGS, D)
    indices = torch.tensor([[0, 3, 3, 9, 1], [9, 3, 2, 0, 0]])  # repeats: their gradients must add up
    y = emb(indices)
    dy = torch.randn_like(y)
    y.backward(dy)
    directory = os.path.join(out_dir, "embedding")
    os.makedirs(directory)
    files = {"input": indices.to(torch.float64), "dy": dy, "output": y, "param.weight": emb.weight,
             "grad.weight": emb.weight.grad}
    for key, value in files.items():
        np.save(os.path.join(directory, key + ".npy"), np.asarray(value.detach().numpy(), dtype="<f8"))
    print(f"{'embedding':24s} {len(files):3d} files, y {tuple(y.shape)}")


def write_cases(write_case, out_dir):
    for name, causal in (("sdpa", False), ("sdpa_causal", True)):
        op = AttentionOp(torch.randn(B, 3, S, 4), torch.randn(B, 3, S, 6), causal)
        write_case(name, op, torch.randn(B, 3, S, 4))
    write_case("sdpa_causal_rect", AttentionOp(torch.randn(B, 5, 4), torch.randn(B, 5, 4), True), torch.randn(B, 3, 4))

    for name, causal in (("self_attention", False), ("self_attention_causal", True)):
        write_case(name, randomize(SelfAttention(D, HEADS, causal)), torch.randn(B, S, D))

    write_embedding_case(out_dir)

    for placement in ("post", "pre", "deepnorm", "rezero", "sandwich", "none"):
        write_case("transformer_" + placement, randomize(TransformerBlock(placement)), torch.randn(B, S, D))
    write_case("transformer_pre_causal", randomize(TransformerBlock("pre", causal=True)), torch.randn(B, S, D))
