"""Attention inside diffusion UNets and DiTs: a spatial self-attention block (GroupNorm, 1x1 qkv conv, SDPA over
h*w tokens, zero-initialised projection), cross-attention to text tokens with a key padding mask as a bool and as
an additive float mask, SDPA's scale= and is_causal, head split with unflatten, nn.MultiheadAttention with kdim/vdim,
and the shape errors users meet."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def s(t):
    return round(t.detach().double().sum().item(), 4)


def det_init_(module, scale=0.2):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.cos(torch.arange(p.numel(), dtype=p.dtype) * (0.37 + 0.03 * k) + k).view_as(p))


class SpatialSelfAttention(nn.Module):
    def __init__(self, ch, heads=2):
        super().__init__()
        self.heads = heads
        self.norm = nn.GroupNorm(2, ch, eps=1e-6)
        self.qkv = nn.Conv2d(ch, 3 * ch, 1)
        self.proj = nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.qkv(self.norm(x)).flatten(2).transpose(1, 2)  # b, hw, 3c
        q, k, v = qkv.unflatten(-1, (3, self.heads, c // self.heads)).permute(2, 0, 3, 1, 4).unbind(0)
        o = F.scaled_dot_product_attention(q, k, v)
        o = o.transpose(1, 2).reshape(b, h * w, c).transpose(1, 2).reshape(b, c, h, w)
        return x + self.proj(o)


class CrossAttention(nn.Module):
    def __init__(self, dim, ctx_dim, heads=2):
        super().__init__()
        self.h = heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(ctx_dim, 2 * dim, bias=False)
        self.to_out = nn.Sequential(nn.Linear(dim, dim), nn.Dropout(0.0))

    def forward(self, x, ctx, mask=None, scale=None):
        q = self.to_q(x).unflatten(-1, (self.h, -1)).transpose(1, 2)
        k, v = self.to_kv(ctx).chunk(2, dim=-1)
        k, v = (t.unflatten(-1, (self.h, -1)).transpose(1, 2) for t in (k, v))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
        return self.to_out(o.transpose(1, 2).flatten(2))


blk = SpatialSelfAttention(4)
det_init_(blk)
x = torch.randn(2, 4, 3, 5)
y = blk(x)
print("self-attn:", tuple(y.shape), s(y), r(y[1, 3]), y.grad_fn.name())
nn.init.zeros_(blk.proj.weight)
nn.init.zeros_(blk.proj.bias)
print("zero-init proj is identity:", torch.equal(blk(x), x))

ca = CrossAttention(8, 6)
det_init_(ca)
tokens = torch.randn(2, 5, 8)
ctx = torch.randn(2, 4, 6)
lengths = torch.tensor([4, 2])
keep = torch.arange(4)[None, :] < lengths[:, None]  # b, n_ctx
bool_mask = keep[:, None, None, :]
float_mask = torch.zeros(2, 1, 1, 4).masked_fill(~bool_mask, float("-inf"))
o1, o2 = ca(tokens, ctx, bool_mask), ca(tokens, ctx, float_mask)
print("cross-attn:", tuple(o1.shape), s(o1), "bool==float:", torch.allclose(o1, o2, atol=1e-6))
o3 = ca(tokens, ctx[:, :2], None)
print(
    "masked == truncated for item 1:",
    torch.allclose(o1[1], o3[1], atol=1e-6),
    "item 0 differs:",
    not torch.allclose(o1[0], o3[0], atol=1e-4),
)
print("scale arg:", s(ca(tokens, ctx, bool_mask, scale=0.1)), s(ca(tokens, ctx, bool_mask, scale=1 / math.sqrt(4))))

q = torch.randn(1, 2, 4, 3)
k = torch.randn(1, 2, 4, 3)
v = torch.randn(1, 2, 4, 3)
causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
manual = torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(3) + torch.full((4, 4), float("-inf")).triu(1), -1) @ v
print("causal:", r(causal[0, 1], 6), torch.allclose(causal, manual, atol=1e-6))
print("first row is v0:", torch.allclose(causal[..., 0, :], v[..., 0, :]))
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(4, 4, dtype=torch.bool), is_causal=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.scaled_dot_product_attention(q, k[..., :2], v)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(3, 4, dtype=torch.bool))
except Exception as e:
    print(type(e).__name__, e)

mha = nn.MultiheadAttention(8, 2, kdim=6, vdim=6, batch_first=True)
det_init_(mha)
print(mha, [n for n, _ in mha.named_parameters()])
out, w = mha(tokens, ctx, ctx, key_padding_mask=~keep)
print("mha:", tuple(out.shape), tuple(w.shape), s(out), r(w[1, 0], 4))
out2, w2 = mha(tokens, ctx, ctx, key_padding_mask=~keep, average_attn_weights=False)
print("per-head weights:", tuple(w2.shape), torch.allclose(w2.mean(1), w, atol=1e-6))
_, none_w = mha(tokens, ctx, ctx, need_weights=False)
print("need_weights=False:", none_w)
try:
    mha(tokens, ctx, ctx, key_padding_mask=~keep[:, :3])
except Exception as e:
    print(type(e).__name__, e)

# gradient through masked cross attention: padded context gets no gradient
ctx_g = ctx.clone().requires_grad_()
ca(tokens, ctx_g, bool_mask).sum().backward()
print(
    "ctx grad on padding:",
    ctx_g.grad[1, 2:].abs().sum().item(),
    "on tokens:",
    round(ctx_g.grad[1, :2].abs().sum().item(), 4),
)
