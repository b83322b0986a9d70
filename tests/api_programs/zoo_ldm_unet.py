"""A latent-diffusion UNet as its reference implementation writes it: timestep_embedding, GroupNorm32 computing in
float32, zero_module output layers, ResBlocks with scale-shift norm, a SpatialTransformer whose cross-attention
reads a text context through GEGLU feed-forwards, Downsample/Upsample by strided conv and nearest interpolation,
gradient checkpointing, classifier-free guidance at sampling, and a few v-prediction training steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

rng = np.random.default_rng(14)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def timestep_embedding(timesteps, dim, max_period=10000, repeat_only=False):
    if repeat_only:
        return timesteps[:, None].repeat(1, dim).float()
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        embedding = torch.cat([embedding, torch.zeros_like(embedding[:, :1])], dim=-1)
    return embedding


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


def normalization(channels):
    return GroupNorm32(4, channels)


def zero_module(module):
    for p in module.parameters():
        p.detach().zero_()
    return module


class ResBlock(nn.Module):
    def __init__(self, channels, emb_channels, out_channels=None, use_scale_shift_norm=True):
        super().__init__()
        self.out_channels = out_channels or channels
        self.use_scale_shift_norm = use_scale_shift_norm
        self.in_layers = nn.Sequential(normalization(channels), nn.SiLU(),
                                       nn.Conv2d(channels, self.out_channels, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_channels, 2 * self.out_channels if use_scale_shift_norm
                                                             else self.out_channels))
        self.out_layers = nn.Sequential(normalization(self.out_channels), nn.SiLU(), nn.Dropout(p=0.0),
                                        zero_module(nn.Conv2d(self.out_channels, self.out_channels, 3, padding=1)))
        self.skip_connection = nn.Identity() if self.out_channels == channels else \
            nn.Conv2d(channels, self.out_channels, 1)

    def forward(self, x, emb):
        h = self.in_layers(x)
        emb_out = self.emb_layers(emb).type(h.dtype)
        while len(emb_out.shape) < len(h.shape):
            emb_out = emb_out[..., None]
        if self.use_scale_shift_norm:
            out_norm, out_rest = self.out_layers[0], self.out_layers[1:]
            scale, shift = torch.chunk(emb_out, 2, dim=1)
            h = out_rest(out_norm(h) * (1 + scale) + shift)
        else:
            h = self.out_layers(h + emb_out)
        return self.skip_connection(x) + h


class GEGLU(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)

    def forward(self, x):
        x, gate = self.proj(x).chunk(2, dim=-1)
        return x * F.gelu(gate)


class CrossAttention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=2, dim_head=4):
        super().__init__()
        inner = heads * dim_head
        context_dim = context_dim or query_dim
        self.heads, self.scale = heads, dim_head ** -0.5
        self.to_q = nn.Linear(query_dim, inner, bias=False)
        self.to_k = nn.Linear(context_dim, inner, bias=False)
        self.to_v = nn.Linear(context_dim, inner, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner, query_dim), nn.Dropout(0.0))

    def forward(self, x, context=None, mask=None):
        h = self.heads
        context = x if context is None else context
        q, k, v = self.to_q(x), self.to_k(context), self.to_v(context)
        q, k, v = (t.reshape(t.shape[0], t.shape[1], h, -1).permute(0, 2, 1, 3).reshape(t.shape[0] * h, t.shape[1], -1)
                   for t in (q, k, v))
        sim = torch.einsum("b i d, b j d -> b i j", q, k) * self.scale
        if mask is not None:
            mask = mask.reshape(mask.shape[0], -1).repeat_interleave(h, dim=0)[:, None, :]
            sim.masked_fill_(~mask, -torch.finfo(sim.dtype).max)
        out = torch.einsum("b i j, b j d -> b i d", sim.softmax(dim=-1), v)
        out = out.reshape(-1, h, out.shape[1], out.shape[2]).permute(0, 2, 1, 3).flatten(2)
        return self.to_out(out)


class SpatialTransformer(nn.Module):
    def __init__(self, in_channels, context_dim):
        super().__init__()
        self.norm = normalization(in_channels)
        self.proj_in = nn.Conv2d(in_channels, in_channels, 1)
        self.attn1 = CrossAttention(in_channels)
        self.attn2 = CrossAttention(in_channels, context_dim)
        self.ff = nn.Sequential(GEGLU(in_channels, 2 * in_channels), nn.Linear(2 * in_channels, in_channels))
        self.norms = nn.ModuleList(nn.LayerNorm(in_channels) for _ in range(3))
        self.proj_out = zero_module(nn.Conv2d(in_channels, in_channels, 1))

    def forward(self, x, context=None, mask=None):
        b, c, h, w = x.shape
        x_in = x
        x = self.proj_in(self.norm(x)).flatten(2).transpose(1, 2)
        x = self.attn1(self.norms[0](x)) + x
        x = self.attn2(self.norms[1](x), context=context, mask=mask) + x
        x = self.ff(self.norms[2](x)) + x
        return self.proj_out(x.transpose(1, 2).reshape(b, c, h, w)) + x_in


class TinyUNet(nn.Module):
    def __init__(self, ch=8, context_dim=6, use_checkpoint=False):
        super().__init__()
        self.time_embed = nn.Sequential(nn.Linear(ch, 4 * ch), nn.SiLU(), nn.Linear(4 * ch, 4 * ch))
        self.inp = nn.Conv2d(4, ch, 3, padding=1)
        self.down_res = ResBlock(ch, 4 * ch)
        self.down = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid_res = ResBlock(ch, 4 * ch, 2 * ch)
        self.mid_attn = SpatialTransformer(2 * ch, context_dim)
        self.up_res = ResBlock(3 * ch, 4 * ch, ch, use_scale_shift_norm=False)
        self.up_conv = nn.Conv2d(ch, ch, 3, padding=1)
        self.out = nn.Sequential(normalization(ch), nn.SiLU(), nn.Conv2d(ch, 4, 3, padding=1))
        self.ch, self.use_checkpoint = ch, use_checkpoint

    def forward(self, x, timesteps, context=None, mask=None):
        emb = self.time_embed(timestep_embedding(timesteps, self.ch))
        h0 = self.down_res(self.inp(x), emb)
        h = self.mid_res(self.down(h0), emb)
        if self.use_checkpoint:
            h = checkpoint(self.mid_attn, h, context, mask, use_reentrant=False)
        else:
            h = self.mid_attn(h, context, mask)
        h = self.up_conv(F.interpolate(h, scale_factor=2, mode="nearest")[:, : self.ch])
        h = self.up_res(torch.cat([h, F.interpolate(h0, size=h.shape[-2:]), h0], dim=1), emb)
        return self.out(h)


t = torch.tensor([0, 10, 999])
print("timestep emb", tuple(timestep_embedding(t, 7).shape), r(timestep_embedding(t, 8)[1], 8),
      timestep_embedding(t, 3, repeat_only=True)[2].tolist())
net = TinyUNet()
print("zero-init out", net.mid_attn.proj_out.weight.abs().sum().item(),
      net.down_res.out_layers[3].bias.abs().sum().item())
print(net.down_res.in_layers[0], "params", sum(p.numel() for p in net.parameters()))
with torch.no_grad():
    for name, p in net.named_parameters():
        base = 1.0 if p.ndim == 1 and ("norm" in name or ".0.weight" in name) else 0.0
        p.copy_(torch.from_numpy((base + 0.2 * rng.standard_normal(p.shape)).astype(np.float32)))
x0 = torch.from_numpy(rng.standard_normal((3, 4, 8, 8)).astype(np.float32))
context = torch.from_numpy(rng.standard_normal((3, 5, 6)).astype(np.float32))
mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True, False, False, False, False]])
out = net(x0, t, context, mask)
print("unet", tuple(out.shape), r(out, 6))
print("gn32 half in, half out", GroupNorm32(2, 4)(torch.ones(1, 4, 2, 2).half()).dtype)
ck = TinyUNet(use_checkpoint=True)
ck.load_state_dict(net.state_dict())
print("checkpoint same", torch.allclose(ck(x0, t, context, mask), out, atol=1e-5))

betas = torch.linspace(0.00085 ** 0.5, 0.012 ** 0.5, 1000, dtype=torch.float64) ** 2
alphas_cumprod = torch.cumprod(1.0 - betas, dim=0).float()
print("schedule", r(alphas_cumprod[[0, 499, 999]], 3))
opt = torch.optim.AdamW(ck.parameters(), lr=1e-3)
tt = torch.tensor([100, 400, 900])
noise = torch.from_numpy(rng.standard_normal(x0.shape).astype(np.float32))
a = alphas_cumprod[tt].sqrt().view(-1, 1, 1, 1)
s = (1 - alphas_cumprod[tt]).sqrt().view(-1, 1, 1, 1)
x_t = a * x0 + s * noise
v_target = a * noise - s * x0
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(ck(x_t, tt, context, mask).float(), v_target.float(), reduction="mean")
    loss.backward()
    if step == 0:
        print("grads", round(ck.mid_attn.attn2.to_k.weight.grad.norm().item(), 4),
              round(ck.time_embed[0].weight.grad.norm().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4))
with torch.no_grad():
    uncond = torch.zeros_like(context)
    both = ck(torch.cat([x_t] * 2), torch.cat([tt] * 2), torch.cat([uncond, context]), torch.cat([mask] * 2))
    e_uncond, e_cond = both.chunk(2)
    guided = e_uncond + 7.5 * (e_cond - e_uncond)
print("cfg", tuple(guided.shape), r(guided, 4))
