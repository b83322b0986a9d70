"""Perceiver and DeiT as their reference implementations write them: Fourier position encodings over a meshgrid,
latent arrays cross-attending to inputs through nn.MultiheadAttention with kdim/vdim and key padding masks, latent
self-attention through F.scaled_dot_product_attention, and DeiT's class plus distillation tokens with the hard
distillation loss, trained for a few steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(4)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill(model, scale=0.3):
    with torch.no_grad():
        for name, p in model.named_parameters():
            base = 1.0 if (p.ndim == 1 and "norm" in name and name.endswith("weight")) else 0.0
            p.copy_(torch.from_numpy((base + scale * rng.standard_normal(p.shape)).astype(np.float32)))


def fourier_encode(x, max_freq, num_bands):
    x = x.unsqueeze(-1)
    scales = torch.linspace(1.0, max_freq / 2, num_bands, dtype=x.dtype)
    scales = scales[(*((None,) * (len(x.shape) - 1)), Ellipsis)]
    x = x * scales * math.pi
    return torch.cat([x.sin(), x.cos(), x[..., :1] / math.pi], dim=-1)


axis = [torch.linspace(-1.0, 1.0, steps=s) for s in (3, 4)]
pos = torch.stack(torch.meshgrid(*axis, indexing="ij"), dim=-1)
enc = fourier_encode(pos, max_freq=4.0, num_bands=3)
print("pos", tuple(pos.shape), "enc", tuple(enc.shape), r(enc[1, 2], 7))
enc = enc.flatten(-2).flatten(0, 1)


class PreNorm(nn.Module):
    def __init__(self, dim, fn, context_dim=None):
        super().__init__()
        self.fn = fn
        self.norm = nn.LayerNorm(dim)
        self.norm_context = nn.LayerNorm(context_dim) if context_dim is not None else None

    def forward(self, x, **kwargs):
        x = self.norm(x)
        if self.norm_context is not None:
            kwargs["context"] = self.norm_context(kwargs["context"])
        return self.fn(x, **kwargs)


class CrossAttention(nn.Module):
    def __init__(self, dim, context_dim, heads=2):
        super().__init__()
        self.mha = nn.MultiheadAttention(dim, heads, kdim=context_dim, vdim=context_dim, batch_first=True)

    def forward(self, x, context, mask=None):
        out, w = self.mha(x, context, context, key_padding_mask=mask, need_weights=True, average_attn_weights=False)
        self.last_weights = w
        return out


class SelfAttention(nn.Module):
    def __init__(self, dim, heads=2):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


class FeedForward(nn.Module):
    def __init__(self, dim, mult=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim * mult * 2), GEGLU(), nn.Linear(dim * mult, dim))

    def forward(self, x):
        return self.net(x)


class GEGLU(nn.Module):
    def forward(self, x):
        x, gates = x.chunk(2, dim=-1)
        return x * F.gelu(gates)


class Perceiver(nn.Module):
    def __init__(self, input_dim, num_latents=4, latent_dim=8, num_classes=3):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(num_latents, latent_dim))
        self.cross = PreNorm(latent_dim, CrossAttention(latent_dim, input_dim), context_dim=input_dim)
        self.cross_ff = PreNorm(latent_dim, FeedForward(latent_dim))
        self.self_attn = PreNorm(latent_dim, SelfAttention(latent_dim))
        self.self_ff = PreNorm(latent_dim, FeedForward(latent_dim))
        self.to_logits = nn.Sequential(nn.LayerNorm(latent_dim), nn.Linear(latent_dim, num_classes))

    def forward(self, data, mask=None):
        b = data.shape[0]
        x = self.latents.unsqueeze(0).expand(b, -1, -1)
        x = self.cross(x, context=data, mask=mask) + x
        x = self.cross_ff(x) + x
        x = self.self_attn(x) + x
        x = self.self_ff(x) + x
        return self.to_logits(x.mean(dim=-2))


data = torch.from_numpy(rng.standard_normal((2, 12, 2)).astype(np.float32))
data = torch.cat([data, enc.unsqueeze(0).expand(2, -1, -1)], dim=-1)
model = Perceiver(data.shape[-1])
fill(model)
print("input", tuple(data.shape), "params", sum(p.numel() for p in model.parameters()))
print(model.cross.fn.mha)
print("mha params", sorted(n for n, _ in model.cross.fn.mha.named_parameters()))
mask = torch.zeros(2, 12, dtype=torch.bool)
mask[1, 9:] = True
out = model(data, mask=mask)
w = model.cross.fn.last_weights
print("logits", r(out, 6), "weights", tuple(w.shape), r(w[1, 0, 0], 12))
print("masked keys get zero weight", bool((w[1, :, :, 9:] == 0).all()), r(w.sum(-1), 3))
q = torch.from_numpy(rng.standard_normal((2, 2, 5, 4)).astype(np.float32))
k = torch.from_numpy(rng.standard_normal((2, 2, 5, 4)).astype(np.float32))
v = torch.from_numpy(rng.standard_normal((2, 2, 5, 4)).astype(np.float32))
manual = torch.softmax(q @ k.transpose(-2, -1) / 2.0 + torch.triu(torch.full((5, 5), float("-inf")), 1), -1) @ v
print("sdpa causal == manual", torch.allclose(F.scaled_dot_product_attention(q, k, v, is_causal=True), manual,
                                               atol=1e-5))
bmask = torch.ones(5, 5, dtype=torch.bool).tril()
print("bool mask == causal", torch.allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
                                            F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6),
      r(F.scaled_dot_product_attention(q, k, v, scale=0.3)[0, 1], 4))


class DeiT(nn.Module):
    def __init__(self, dim=8, num_classes=3, patch=4, img=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        n = (img // patch) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.dist_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 2, dim))
        self.block = nn.TransformerEncoderLayer(dim, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)
        self.head_dist = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        b = x.shape[0]
        x = torch.cat((self.cls_token.expand(b, -1, -1), self.dist_token.expand(b, -1, -1), x), dim=1)
        x = self.norm(self.block(x + self.pos_embed))
        x, x_dist = self.head(x[:, 0]), self.head_dist(x[:, 1])
        if self.training:
            return x, x_dist
        return (x + x_dist) / 2


deit = DeiT()
fill(deit)
teacher = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 3))
fill(teacher, 0.1)
teacher.eval().requires_grad_(False)
imgs = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
labels = torch.tensor([0, 1, 2, 1])
deit.eval()
with torch.no_grad():
    print("deit eval", r(deit(imgs), 6))
deit.train()
opt = torch.optim.AdamW(deit.parameters(), lr=5e-3, weight_decay=0.05)
for step in range(3):
    opt.zero_grad()
    outputs, outputs_kd = deit(imgs)
    with torch.no_grad():
        teacher_out = teacher(imgs)
    base = F.cross_entropy(outputs, labels)
    dist = F.cross_entropy(outputs_kd, teacher_out.argmax(dim=1))
    loss = 0.5 * base + 0.5 * dist
    loss.backward()
    print("step", step, round(base.item(), 4), round(dist.item(), 4), "tokens grad",
          round(deit.cls_token.grad.norm().item(), 4), round(deit.dist_token.grad.norm().item(), 4))
    opt.step()
print("teacher labels", teacher_out.argmax(dim=1).tolist(), "teacher grad", teacher[1].weight.grad)
