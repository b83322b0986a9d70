"""Attention variants written out by hand, as research code does: rotary embeddings (rotate-half), causal linear
attention with cumsum, sliding-window attention through unfold, grouped-query attention against SDPA's enable_gqa,
a KV cache checked against full recomputation, finfo.min masks, einsum with ellipses, baddbmm scores, the
sdpa_kernel context, and gradients through it all."""

import math
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

rng = np.random.default_rng(29)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


B, H, L, D = 2, 4, 6, 8
q, k, v = T(B, H, L, D), T(B, H, L, D), T(B, H, L, D)


# rotary position embeddings, rotate-half convention
def rope_cache(seq, dim, base=10000.0):
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    ang = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
    emb = torch.cat([ang, ang], dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


cos, sin = rope_cache(L, D)
qr, kr = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
print("rope", cos.shape, r(qr[0, 0, 1]), round(qr.norm().item(), 4), round(q.norm().item(), 4))
# relative property: the score of (i, j) depends on i - j only
s1 = (qr[0, 0, 3] * kr[0, 0, 1]).sum()
q_sh = torch.cat([q[:, :, 1:], q[:, :, :1]], 2)
k_sh = torch.cat([k[:, :, 1:], k[:, :, :1]], 2)
print("rope_scores", r(torch.einsum("bhld,bhmd->bhlm", qr, kr)[0, 0, 2], 4), round(s1.item(), 4))

# causal softmax attention three ways
mask = torch.ones(L, L, dtype=torch.bool).tril()
scores = torch.baddbmm(torch.zeros(B * H, L, L), q.flatten(0, 1), k.flatten(0, 1).transpose(1, 2),
                       beta=0.0, alpha=1 / math.sqrt(D)).unflatten(0, (B, H))
manual = scores.masked_fill(~mask, torch.finfo(scores.dtype).min).softmax(-1) @ v
sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=True)
sdpa_mask = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print("causal", torch.allclose(manual, sdpa, atol=1e-5), torch.allclose(sdpa, sdpa_mask, atol=1e-5), r(sdpa[1, 2, 3]))
print("finfo", torch.finfo(torch.float32).min, torch.finfo(torch.float16).min, torch.finfo(torch.bfloat16).min)
with sdpa_kernel(SDPBackend.MATH):
    math_out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
    both = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("sdpa_kernel", torch.allclose(math_out, sdpa, atol=1e-6), torch.allclose(both, sdpa, atol=1e-6),
      SDPBackend.MATH.name)


# causal linear attention (phi = elu + 1) with running sums
def linear_attention(q, k, v):
    qf, kf = F.elu(q) + 1, F.elu(k) + 1
    kv = torch.einsum("...ld,...le->...lde", kf, v).cumsum(-3)
    num = torch.einsum("...ld,...lde->...le", qf, kv)
    den = torch.einsum("...ld,...ld->...l", qf, kf.cumsum(-2)).unsqueeze(-1)
    return num / den


lin = linear_attention(q, k, v)
ref = []
for t in range(L):
    qf, kf = F.elu(q[..., t, :]) + 1, F.elu(k[..., : t + 1, :]) + 1
    w = torch.einsum("...d,...ld->...l", qf, kf)
    ref.append((w.unsqueeze(-1) * v[..., : t + 1, :]).sum(-2) / w.sum(-1, keepdim=True))
print("linear_attn", lin.shape, torch.allclose(lin, torch.stack(ref, -2), atol=1e-5), r(lin[0, 1, -1]))

# sliding-window attention (window 3, causal) through unfold on padded keys
W = 3
kp = F.pad(k, (0, 0, W - 1, 0))
vp = F.pad(v, (0, 0, W - 1, 0))
kw = kp.unfold(2, W, 1).transpose(-1, -2)  # (B, H, L, W, D)
vw = vp.unfold(2, W, 1).transpose(-1, -2)
sw = torch.einsum("bhld,bhlwd->bhlw", q, kw) / math.sqrt(D)
valid = (torch.arange(L)[:, None] + torch.arange(W)[None, :]) >= W - 1
sw = sw.masked_fill(~valid, float("-inf"))
local = torch.einsum("bhlw,bhlwd->bhld", sw.softmax(-1), vw)
band = mask & ~torch.ones(L, L, dtype=torch.bool).tril(-W)
print("window", kw.shape, torch.allclose(local, F.scaled_dot_product_attention(q, k, v, attn_mask=band), atol=1e-5),
      band.sum().item())

# grouped-query attention: 4 query heads sharing 2 kv heads
k2, v2 = T(B, 2, L, D), T(B, 2, L, D)
gqa = F.scaled_dot_product_attention(q, k2, v2, is_causal=True, enable_gqa=True)
rep = F.scaled_dot_product_attention(q, k2.repeat_interleave(2, 1), v2.repeat_interleave(2, 1), is_causal=True)
print("gqa", gqa.shape, torch.allclose(gqa, rep, atol=1e-6), r(gqa[0, 3, 0]))
try:
    F.scaled_dot_product_attention(q, k2, v2)
except RuntimeError:
    print("gqa_err RuntimeError")


# a KV cache in a tiny decoder block, checked against recomputing the whole prefix
class CachedAttn(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, cache=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4).unbind(0)
        if cache is not None:
            k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
        causal = cache is None and t > 1
        y = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return self.out(y.transpose(1, 2).reshape(b, t, d)), (k, v)


attn = CachedAttn()
with torch.no_grad():
    for p in attn.parameters():
        p.copy_(T(*p.shape) * 0.3)
seq = T(2, 5, 16)
full, _ = attn(seq)
with torch.no_grad():
    out, cache = attn(seq[:, :2])
    steps = [out]
    for t in range(2, 5):
        o, cache = attn(seq[:, t : t + 1], cache)
        steps.append(o)
inc = torch.cat(steps, 1)
print("kv_cache", cache[0].shape, torch.allclose(inc, full, atol=1e-5), r(inc[1, -1]))

# gradients through the hand-written pieces
qg = q.clone().requires_grad_(True)
loss = linear_attention(qg, k, v).pow(2).mean() + F.scaled_dot_product_attention(qg, k, v, is_causal=True).sum()
loss.backward()
print("grads", round(loss.item(), 4), r(qg.grad[0, 0, 3]))
x = T(3, 2, 5).requires_grad_(True)
e = torch.einsum("...ij,...jk->...ik", x, x.transpose(-1, -2))
e.diagonal(dim1=-2, dim2=-1).sum().backward()
print("einsum_ellipsis", e.shape, r(x.grad, 4), torch.allclose(x.grad, 2 * x))
print("unflatten", torch.arange(24).unflatten(0, (2, -1, 3)).shape, torch.arange(6).view(2, 3).flatten(-2).shape)
print("OK")
