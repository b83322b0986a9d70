"""Timestep and noise-level conditioning as diffusion UNets build it: diffusers' get_timestep_embedding with
flip_sin_to_cos and downscale_freq_shift, Gaussian Fourier features for continuous sigmas (NCSN++), EDM's
positional embedding of c_noise, class embeddings with a null token, and the MLP that merges them."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def get_timestep_embedding(
    timesteps, dim, flip_sin_to_cos=False, downscale_freq_shift=1.0, scale=1.0, max_period=10000
):
    assert timesteps.dim() == 1, "Timesteps should be a 1d-array"
    half = dim // 2
    exponent = -math.log(max_period) * torch.arange(0, half, dtype=torch.float32)
    exponent = exponent / (half - downscale_freq_shift)
    emb = timesteps[:, None].float() * torch.exp(exponent)[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half:], emb[:, :half]], dim=-1)
    if dim % 2 == 1:
        emb = F.pad(emb, (0, 1, 0, 0))
    return emb


class GaussianFourierProjection(nn.Module):
    def __init__(self, embedding_size=8, scale=16.0):
        super().__init__()
        w = torch.linspace(-1, 1, embedding_size) * scale
        self.register_buffer("W", w, persistent=False)

    def forward(self, x):
        x_proj = torch.log(x)[:, None] * self.W[None, :] * 2 * math.pi
        return torch.cat([torch.sin(x_proj), torch.cos(x_proj)], dim=-1)


class PositionalEmbedding(nn.Module):
    """EDM's: outer product, then stack cos/sin."""

    def __init__(self, num_channels, max_positions=10000, endpoint=False):
        super().__init__()
        self.num_channels, self.max_positions, self.endpoint = num_channels, max_positions, endpoint

    def forward(self, x):
        freqs = torch.arange(start=0, end=self.num_channels // 2, dtype=torch.float32, device=x.device)
        freqs = freqs / (self.num_channels // 2 - (1 if self.endpoint else 0))
        freqs = (1 / self.max_positions) ** freqs
        x = x.ger(freqs.to(x.dtype))
        return torch.cat([x.cos(), x.sin()], dim=1)


t = torch.tensor([0, 1, 250, 999])
for kw in [{}, {"flip_sin_to_cos": True, "downscale_freq_shift": 0}, {"scale": 10.0}]:
    e = get_timestep_embedding(t, 8, **kw)
    print(kw, tuple(e.shape), r(e[1], 8), r(e[3], 8))
odd = get_timestep_embedding(t, 7)
print("odd dim:", tuple(odd.shape), r(odd[2], 7))
print("float t:", r(get_timestep_embedding(torch.tensor([0.5, 999.5]), 4), 8))
try:
    get_timestep_embedding(t[:, None], 8)
except AssertionError as e:
    print("AssertionError", e)

gfp = GaussianFourierProjection(4)
print("fourier:", r(gfp(torch.tensor([0.01, 1.0, 50.0])), 8), list(dict(gfp.named_buffers())), list(gfp.state_dict()))
pe = PositionalEmbedding(6, endpoint=True)
c_noise = torch.log(torch.tensor([0.002, 1.0, 80.0])) / 4
print("edm pos:", r(pe(c_noise), 12))
print("outer==ger:", torch.equal(torch.outer(c_noise, c_noise), c_noise.ger(c_noise)))


class CondEmbed(nn.Module):
    def __init__(self, dim, num_classes):
        super().__init__()
        self.dim = dim
        self.time_mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.SiLU(), nn.Linear(4 * dim, 4 * dim))
        self.class_emb = nn.Embedding(num_classes + 1, 4 * dim, padding_idx=num_classes)

    def forward(self, t, y):
        return self.time_mlp(get_timestep_embedding(t, self.dim, True, 0)) + self.class_emb(y)


m = CondEmbed(8, 10)
y = torch.tensor([3, 10, 7, 10])
out = m(t, y)
print(m.class_emb, tuple(out.shape), out.grad_fn.name())
print("null row zero:", m.class_emb.weight[10].abs().sum().item())
out.pow(2).mean().backward()
print(
    "null grad:",
    m.class_emb.weight.grad[10].abs().sum().item(),
    "row3 grad",
    round(m.class_emb.weight.grad[3].abs().sum().item(), 4),
)
print("time grad norm:", round(m.time_mlp[0].weight.grad.norm().item(), 4))
try:
    m.class_emb(torch.tensor([11]))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Embedding(5, 3, padding_idx=5)
except Exception as e:
    print(type(e).__name__, e)
emb_neg = nn.Embedding(5, 3, padding_idx=-1)
print("neg padding_idx ->", emb_neg.padding_idx, emb_neg)
