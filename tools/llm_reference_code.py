"""PyTorch reference code that the tools/llm_*_fixtures.py scripts copy from Hugging Face transformers
(modeling_llama.py) and Meta's LLaMA (llama/model.py): RoPE both ways and repeat_kv, in float64."""
import torch


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


def repeat_kv(hidden_states, n_rep):
    """transformers' repeat_kv: (B, Hkv, S, D) -> (B, Hkv * n_rep, S, D), expand + reshape."""
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)
