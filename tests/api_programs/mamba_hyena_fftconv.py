"""Hyena-style long convolutions: an implicit filter from a positional embedding MLP with sin activations and an
exponential decay window, FFT convolution with rfft/irfft (n=2L, norm forms), a bias skip, gating chains over
split projections, short depthwise convs, and checks against direct conv1d with flipped kernels."""

import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Sin(nn.Module):
    def __init__(self, dim, w=10):
        super().__init__()
        self.freq = nn.Parameter(w * torch.ones(1, dim))

    def forward(self, x):
        return torch.sin(self.freq * x)


class PositionalEmbedding(nn.Module):
    def __init__(self, emb_dim, seq_len):
        super().__init__()
        t = torch.linspace(0, 1, seq_len)[None, :, None]
        bands = (emb_dim - 1) // 2
        t_rescaled = torch.linspace(0, seq_len - 1, seq_len)[None, :, None]
        w = 2 * math.pi * t_rescaled / seq_len
        f = torch.linspace(1e-4, bands - 1, bands)[None, None]
        z = torch.exp(-1j * f * w)
        z = torch.cat([t, z.real, z.imag], dim=-1)
        self.register_buffer("z", z)
        self.register_buffer("t", t)

    def forward(self, L):
        return self.z[:, :L], self.t[:, :L]


class ExponentialModulation(nn.Module):
    def __init__(self, d_model, fast_decay_pct=0.3, slow_decay_pct=1.5, target=1e-2):
        super().__init__()
        max_decay = math.log(target) / fast_decay_pct
        min_decay = math.log(target) / slow_decay_pct
        self.register_buffer("deltas", torch.linspace(min_decay, max_decay, d_model)[None, None])

    def forward(self, t, x):
        return x * torch.exp(-t * self.deltas.abs())


def fftconv(u, k, D):
    L = u.shape[-1]
    fft_size = 2 * L
    k_f = torch.fft.rfft(k, n=fft_size) / fft_size
    u_f = torch.fft.rfft(u.to(dtype=k.dtype), n=fft_size)
    y = torch.fft.irfft(u_f * k_f, n=fft_size, norm="forward")[..., :L]
    return (y + u * D.unsqueeze(-1)).to(dtype=u.dtype)


d_model, L, emb = 4, 16, 5
pos = PositionalEmbedding(emb, L)
z, t = pos(L)
print("z", tuple(z.shape), z.dtype, z[0, 1].round(decimals=4).tolist())
mlp = nn.Sequential(nn.Linear(emb, 8), Sin(8), nn.Linear(8, 8), Sin(8), nn.Linear(8, d_model, bias=False))
mod = ExponentialModulation(d_model)
h = mod(t, mlp(z))
k = h.transpose(1, 2)[0]
print("filter", tuple(k.shape), round(k.abs().sum().item(), 4), k.grad_fn.__class__.__name__)

in_proj = nn.Linear(d_model, 3 * d_model)
short = nn.Conv1d(3 * d_model, 3 * d_model, 3, padding=2, groups=3 * d_model)
bias = nn.Parameter(torch.randn(d_model))
x = torch.randn(2, L, d_model, requires_grad=True)
uc = short(in_proj(x).transpose(1, 2))[..., :L]
x0, x1, v = uc.split(d_model, dim=1)
v = v * x1
y = fftconv(v, k, bias) * x0
print("y", tuple(y.shape), round(y.sum().item(), 4), y[0, 0, :4].round(decimals=4).tolist())

# the FFT path equals a causal direct convolution
direct = F.conv1d(F.pad(v, (L - 1, 0)), k.flip(-1).unsqueeze(1), groups=d_model) + v * bias.unsqueeze(-1)
print("fft==direct", torch.allclose(direct, fftconv(v, k, bias), atol=1e-4))

y.square().mean().backward()
print(
    "grads",
    round(x.grad.abs().sum().item(), 4),
    round(mlp[1].freq.grad.abs().sum().item(), 4),
    round(bias.grad.abs().sum().item(), 4),
)

# rfft/irfft options
s = torch.arange(8.0)
print("rfft n", torch.fft.rfft(s, n=4).shape, torch.fft.rfft(s, n=12).shape)
for norm in ("backward", "ortho", "forward"):
    r = torch.fft.irfft(torch.fft.rfft(s, norm=norm), n=8, norm=norm)
    print(norm, torch.allclose(r, s, atol=1e-5))
print(
    "rfft dim",
    torch.fft.rfft(torch.ones(3, 4), dim=0).shape,
    torch.fft.irfft(torch.ones(3, 4, dtype=torch.cfloat), dim=0).shape,
)
print("hfft", torch.fft.hfft(torch.tensor([1.0, 2j, 0.5])).round(decimals=4).tolist())
print("fft64", torch.fft.rfft(torch.ones(4, dtype=torch.float64)).dtype, torch.fft.fftfreq(5).tolist())
try:
    torch.fft.irfft(torch.ones(3, dtype=torch.cfloat), n=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.rfft(s, norm="bogus")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.rfft(s, dim=2)
except Exception as e:
    print(type(e).__name__, e)
