"""Rotary position embeddings as LLM repos write them: GPT-NeoX/LLaMA-HF half-rotate, GPT-J/Meta interleaved pairs,
the complex form through torch.polar/view_as_complex, linear and dynamic-NTK scaling, partial rotary, cached cos/sin
buffers in bfloat16, and the relative-position property checked numerically."""

import math

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position=64, base=10000.0, scaling_factor=1.0, kind="default"):
        super().__init__()
        self.dim, self.base, self.scaling_factor, self.kind = dim, base, scaling_factor, kind
        self.max_position = max_position
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cache(max_position)

    def _set_cache(self, seq_len):
        self.cached_len = seq_len
        inv_freq = self.inv_freq
        if self.kind == "dynamic" and seq_len > self.max_position:
            base = self.base * ((self.scaling_factor * seq_len / self.max_position) - (self.scaling_factor - 1)) ** (
                self.dim / (self.dim - 2))
            inv_freq = 1.0 / (base ** (torch.arange(0, self.dim, 2).float() / self.dim))
        t = torch.arange(seq_len, dtype=torch.float32)
        if self.kind == "linear":
            t = t / self.scaling_factor
        freqs = torch.einsum("i,j->ij", t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, x, position_ids):
        seq_len = int(position_ids.max()) + 1
        if seq_len > self.cached_len:
            self._set_cache(seq_len)
        cos = self.cos_cached[position_ids].unsqueeze(1).to(x.dtype)
        sin = self.sin_cached[position_ids].unsqueeze(1).to(x.dtype)
        return cos, sin


def apply_rotary_pos_emb(q, k, cos, sin):
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


B, H, S, D = 2, 3, 8, 16
q = torch.sin(torch.arange(B * H * S * D, dtype=torch.float32).reshape(B, H, S, D) * 0.37)
k = torch.cos(torch.arange(B * H * S * D, dtype=torch.float32).reshape(B, H, S, D) * 0.23)
position_ids = torch.arange(S).unsqueeze(0).expand(B, -1)

rope = RotaryEmbedding(D)
print("buffers:", [n for n, _ in rope.named_buffers()], "state_dict:", list(rope.state_dict().keys()))
print("inv_freq:", rope.inv_freq[:4])
cos, sin = rope(q, position_ids)
print("cos/sin shapes:", tuple(cos.shape), tuple(sin.shape), cos.dtype)
qr, kr = apply_rotary_pos_emb(q, k, cos, sin)
print("q_rot[0,0,3,:6]:", qr[0, 0, 3, :6])
print("norm preserved:", torch.allclose(qr.norm(dim=-1), q.norm(dim=-1), atol=1e-5))

# relative-position property: <R(m)q, R(n)k> depends only on m - n
qv, kv = q[0, 0, 0], k[0, 0, 0]
def rot_at(v, p):
    c, s = rope.cos_cached[p], rope.sin_cached[p]
    return v * c + rotate_half(v) * s
d1 = torch.dot(rot_at(qv, 5), rot_at(kv, 2)).item()
d2 = torch.dot(rot_at(qv, 7), rot_at(kv, 4)).item()
print(f"relative dots: {d1:.4f} {d2:.4f} same={abs(d1 - d2) < 1e-4}")

# Meta-style complex form, interleaved pairs
def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)

freqs_cis = precompute_freqs_cis(D, S)
print("freqs_cis:", freqs_cis.dtype, tuple(freqs_cis.shape), freqs_cis[1, :3])
xq = q.transpose(1, 2)  # (B, S, H, D)
xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
print("complex view:", xq_.dtype, tuple(xq_.shape), xq_.is_complex())
out_complex = torch.view_as_real(xq_ * freqs_cis.view(1, S, 1, D // 2)).flatten(3)

# the same rotation with real arithmetic on interleaved pairs (GPT-J)
ang = torch.outer(torch.arange(S).float(), rope.inv_freq)
cos_i = ang.cos().repeat_interleave(2, dim=-1)[None, :, None, :]
sin_i = ang.sin().repeat_interleave(2, dim=-1)[None, :, None, :]
out_gptj = xq * cos_i + rotate_every_two(xq) * sin_i
print("complex == gptj:", torch.allclose(out_complex, out_gptj, atol=1e-5))
print("angle/abs:", freqs_cis[3, :2].angle(), freqs_cis[3, :2].abs())

# permuting interleaved weights to half-rotate layout (HF conversion script)
def permute(w, n_heads, dim1, dim2):
    return w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)

wq = torch.linspace(-1, 1, 2 * D * D).reshape(2 * D, D)
x = torch.linspace(-0.5, 0.7, 5 * D).reshape(5, D)
heads_meta = (x @ wq.T).view(5, 2, D)
heads_hf = (x @ permute(wq, 2, 2 * D, D).T).view(5, 2, D)
ang5 = torch.outer(torch.arange(5).float(), rope.inv_freq)
meta_rot = torch.view_as_real(torch.view_as_complex(heads_meta.reshape(5, 2, D // 2, 2))
                              * torch.polar(torch.ones_like(ang5), ang5)[:, None]).flatten(2)
emb5 = torch.cat((ang5, ang5), -1)[:, None]
hf_rot = heads_hf * emb5.cos() + rotate_half(heads_hf) * emb5.sin()
scores_meta = torch.einsum("shd,thd->hst", meta_rot, meta_rot)
scores_hf = torch.einsum("shd,thd->hst", hf_rot, hf_rot)
print("permuted layouts give same scores:", torch.allclose(scores_meta, scores_hf, atol=1e-4))
print("scores[1,:3,:3]:\n", scores_hf[1, :3, :3])

# scaling: linear (position interpolation) and dynamic NTK
lin = RotaryEmbedding(D, max_position=16, scaling_factor=4.0, kind="linear")
cos_l, _ = lin(q, torch.tensor([[12]]))
print("linear-scaled cos@12 == default cos@3:", torch.allclose(cos_l[0, 0, 0], rope.cos_cached[3], atol=1e-6))
dyn = RotaryEmbedding(D, max_position=16, scaling_factor=2.0, kind="dynamic")
print("dynamic cache before:", dyn.cos_cached.shape[0])
_ = dyn(q, torch.arange(40).unsqueeze(0))
print("dynamic cache after:", dyn.cos_cached.shape[0], "cos[39,:4]:", dyn.cos_cached[39, :4])
ntk_base = 10000.0 * 8.0 ** (D / (D - 2))
print(f"NTK-aware base for alpha=8: {ntk_base:.1f}, lowest freq {1 / ntk_base ** ((D - 2) / D):.3e}")
print("wavelengths:", (2 * math.pi / rope.inv_freq).round(decimals=2))

# partial rotary (GPT-NeoX rotary_pct=0.25) and bfloat16 caches
rot_dim = D // 4
pr = RotaryEmbedding(rot_dim)
c4, s4 = pr(q, position_ids)
q_rot, q_pass = q[..., :rot_dim], q[..., rot_dim:]
q_partial = torch.cat((q_rot * c4 + rotate_half(q_rot) * s4, q_pass), dim=-1)
print("partial rotary unchanged tail:", torch.equal(q_partial[..., rot_dim:], q[..., rot_dim:]),
      tuple(q_partial.shape))
qb = q.to(torch.bfloat16)
cb, sb = rope(qb, position_ids)
qrb = qb * cb + rotate_half(qb) * sb
print("bf16:", cb.dtype, qrb.dtype, f"max err vs fp32 {(qrb.float() - qr).abs().max().item():.2f}")
print("rope has params:", sum(p.numel() for p in rope.parameters()), "repr:", rope)
