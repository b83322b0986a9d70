"""Long-convolution sequence models as their reference implementations write them: S4D's diagonal state-space
kernel from complex parameters (log_A_real, A_imag, complex C via view_as_complex, a Vandermonde product with
torch.exp of complex tensors, 2 * .real), FFT convolution by rfft/irfft with n=2L, and the Hyena operator (a short
depthwise Conv1d, an implicit filter MLP with sine activations and exponential decay modulation, gated
recurrence of long convolutions); each checked against direct convolution, with complex gradients and a few steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(16)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fftconv(u, k, D):
    seqlen = u.shape[-1]
    fft_size = 2 * seqlen
    k_f = torch.fft.rfft(k, n=fft_size) / fft_size
    u_f = torch.fft.rfft(u.to(dtype=k.dtype), n=fft_size)
    y = torch.fft.irfft(u_f * k_f, n=fft_size, norm="forward")[..., :seqlen]
    return (y + u * D.unsqueeze(-1)).to(dtype=u.dtype)


class S4DKernel(nn.Module):
    def __init__(self, d_model, N=4, dt_min=0.001, dt_max=0.1):
        super().__init__()
        H = d_model
        log_dt = torch.from_numpy(rng.random(H).astype(np.float32)) * (math.log(dt_max) - math.log(dt_min)) + \
            math.log(dt_min)
        C = torch.from_numpy((rng.standard_normal((H, N // 2)) + 1j * rng.standard_normal((H, N // 2)))
                             .astype(np.complex64))
        self.C = nn.Parameter(torch.view_as_real(C))
        self.register_buffer("log_dt", log_dt)
        self.log_A_real = nn.Parameter(torch.log(0.5 * torch.ones(H, N // 2)))
        self.A_imag = nn.Parameter(math.pi * torch.arange(N // 2).repeat(H, 1).float())

    def forward(self, L):
        dt = torch.exp(self.log_dt)
        C = torch.view_as_complex(self.C)
        A = -torch.exp(self.log_A_real) + 1j * self.A_imag
        dtA = A * dt.unsqueeze(-1)
        K = dtA.unsqueeze(-1) * torch.arange(L, device=A.device)
        C = C * (torch.exp(dtA) - 1.0) / A
        return 2 * torch.einsum("hn, hnl -> hl", C, torch.exp(K)).real


kern = S4DKernel(3)
print("params", [(n, tuple(p.shape), p.dtype) for n, p in kern.named_parameters()], "buffers",
      [n for n, _ in kern.named_buffers()])
K = kern(6)
print("kernel", tuple(K.shape), K.dtype, r(K, 6))
A = -torch.exp(kern.log_A_real) + 1j * kern.A_imag
print("A", A.dtype, r(A.real, 2), r(A.imag, 2), "complex C", torch.view_as_complex(kern.C).shape)
u = torch.from_numpy(rng.standard_normal((2, 3, 6)).astype(np.float32))
D = torch.from_numpy(rng.standard_normal(3).astype(np.float32))
y = fftconv(u, K, D)
direct = torch.stack([F.conv1d(F.pad(u[:, h:h + 1], (5, 0)), K[h].flip(-1).view(1, 1, -1)).squeeze(1)
                      for h in range(3)], 1) + u * D[:, None]
print("fft conv", tuple(y.shape), torch.allclose(y, direct, atol=1e-4), r(y, 4))
y.pow(2).sum().backward()
print("complex grads", kern.C.grad.shape, round(kern.C.grad.norm().item(), 4),
      round(kern.log_A_real.grad.norm().item(), 4), round(kern.A_imag.grad.norm().item(), 4))

z = torch.tensor([1 + 2j, -0.5 + 0.25j], requires_grad=True)
w = (torch.exp(z) * z.conj()).real.sum() + z.abs().sum()
w.backward()
print("wirtinger grad", r(torch.view_as_real(z.grad), 4), torch.exp(z).dtype, torch.polar(z.abs(), z.angle()).dtype)


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


class HyenaFilter(nn.Module):
    def __init__(self, d_model, emb_dim=5, order=8, seq_len=8):
        super().__init__()
        self.pos_emb = PositionalEmbedding(emb_dim, seq_len)
        self.implicit_filter = nn.Sequential(nn.Linear(emb_dim, order), Sin(order), nn.Linear(order, order),
                                             Sin(order), nn.Linear(order, d_model, bias=False))
        self.modulation = ExponentialModulation(d_model)
        self.bias = nn.Parameter(torch.zeros(d_model))

    def filter(self, L):
        z, t = self.pos_emb(L)
        return self.modulation(t, self.implicit_filter(z))


class HyenaOperator(nn.Module):
    def __init__(self, d_model, l_max=8, order=2):
        super().__init__()
        self.order = order
        self.in_proj = nn.Linear(d_model, (order + 1) * d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.short_filter = nn.Conv1d((order + 1) * d_model, (order + 1) * d_model, 3, padding=2,
                                      groups=(order + 1) * d_model)
        self.filter_fn = HyenaFilter(d_model * (order - 1), seq_len=l_max)

    def forward(self, u):
        L = u.size(-2)
        u = self.in_proj(u).transpose(1, 2)
        uc = self.short_filter(u)[..., :L]
        *x, v = uc.split(u.shape[1] // (self.order + 1), dim=1)
        k = self.filter_fn.filter(L)[0].transpose(0, 1)
        for o, x_i in enumerate(reversed(x[1:])):
            v = fftconv(v * x_i, k, self.filter_fn.bias)
        return self.out_proj((v * x[0]).transpose(1, 2))


hy = HyenaOperator(4)
with torch.no_grad():
    for name, p in hy.named_parameters():
        if "freq" not in name:
            p.copy_(torch.from_numpy((0.4 * rng.standard_normal(p.shape)).astype(np.float32)))
z, t = hy.filter_fn.pos_emb(8)
print("pos emb", tuple(z.shape), r(z[0, 3], 5), "decay", r(hy.filter_fn.modulation.deltas, 4))
print("filter", tuple(hy.filter_fn.filter(8).shape), r(hy.filter_fn.filter(8)[0, :, 0], 4))
x = torch.from_numpy(rng.standard_normal((2, 8, 4)).astype(np.float32))
out = hy(x)
print("hyena", tuple(out.shape), r(out, 6))
print("causal", torch.allclose(hy(x[:, :5]), out[:, :5], atol=1e-5))
opt = torch.optim.Adam(hy.parameters(), lr=5e-3)
target = torch.roll(x, 1, dims=1)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(hy(x), target)
    loss.backward()
    if step == 0:
        print("grads freq", round(hy.filter_fn.implicit_filter[1].freq.grad.norm().item(), 4),
              "short", round(hy.short_filter.weight.grad.norm().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4))
