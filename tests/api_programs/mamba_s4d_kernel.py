"""S4D convolution kernel: a complex diagonal state matrix (S4D-Lin init), ZOH discretisation with exp/expm1,
a Vandermonde kernel through einsum, FFT convolution with rfft/irfft and n=, and gradients through complex
parameters stored as real (view_as_complex)."""

import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class S4DKernel(nn.Module):
    def __init__(self, d_model, N=8, dt_min=1e-3, dt_max=1e-1):
        super().__init__()
        H = d_model
        log_dt = torch.rand(H) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min)
        C = torch.randn(H, N // 2, dtype=torch.cfloat)
        self.C = nn.Parameter(torch.view_as_real(C))
        self.register_buffer("log_dt", log_dt)
        log_A_real = torch.log(0.5 * torch.ones(H, N // 2))
        A_imag = math.pi * torch.arange(N // 2).repeat(H, 1)
        self.log_A_real = nn.Parameter(log_A_real)
        self.A_imag = nn.Parameter(A_imag)

    def forward(self, L):
        dt = torch.exp(self.log_dt)
        C = torch.view_as_complex(self.C)
        A = -torch.exp(self.log_A_real) + 1j * self.A_imag
        dtA = A * dt.unsqueeze(-1)
        K = dtA.unsqueeze(-1) * torch.arange(L, device=A.device)
        C = C * (torch.exp(dtA) - 1.0) / A
        K = 2 * torch.einsum("hn, hnl -> hl", C, torch.exp(K)).real
        return K


class S4D(nn.Module):
    def __init__(self, d_model, d_state=8):
        super().__init__()
        self.D = nn.Parameter(torch.randn(d_model))
        self.kernel = S4DKernel(d_model, N=d_state)
        self.output_linear = nn.Sequential(nn.Conv1d(d_model, 2 * d_model, kernel_size=1), nn.GLU(dim=-2))

    def forward(self, u):
        L = u.size(-1)
        k = self.kernel(L=L)
        k_f = torch.fft.rfft(k, n=2 * L)
        u_f = torch.fft.rfft(u, n=2 * L)
        y = torch.fft.irfft(u_f * k_f, n=2 * L)[..., :L]
        y = y + u * self.D.unsqueeze(-1)
        y = F.gelu(y)
        return self.output_linear(y)


m = S4D(4, d_state=8)
k = m.kernel(L=16)
print("kernel", tuple(k.shape), k.dtype, k.grad_fn.__class__.__name__)
print("kernel[0,:6]", k[0, :6].round(decimals=4).tolist())
Cc = torch.view_as_complex(m.kernel.C)
print("C complex", Cc.dtype, tuple(Cc.shape), Cc.is_complex(), Cc.real.stride())
A = -torch.exp(m.kernel.log_A_real) + 1j * m.kernel.A_imag
print("A", A.dtype, A[0].real.round(decimals=4).tolist(), A[0].imag.round(decimals=4).tolist())
print("expm1 vs exp-1", torch.allclose(torch.expm1(A * 0.01), torch.exp(A * 0.01) - 1, atol=1e-6))
print("abs/angle", torch.abs(A[0]).round(decimals=4).tolist(), torch.angle(A[0]).round(decimals=4).tolist())

u = torch.randn(2, 4, 16)
y = m(u)
print("y", tuple(y.shape), round(y.sum().item(), 4), round(y.abs().mean().item(), 4))

# direct causal convolution matches the FFT path
k = m.kernel(L=16).detach()
direct = torch.stack([F.conv1d(F.pad(u[:, h : h + 1], (15, 0)), k[h].flip(-1).view(1, 1, -1)) for h in range(4)], 1)
direct = direct.squeeze(2)
fft_y = torch.fft.irfft(torch.fft.rfft(u, n=32) * torch.fft.rfft(k, n=32), n=32)[..., :16]
print("fft==direct", torch.allclose(direct, fft_y, atol=1e-4), tuple(direct.shape))

loss = y.pow(2).mean()
loss.backward()
for n, p in m.named_parameters():
    print(n, tuple(p.shape), p.grad.dtype, round(p.grad.abs().sum().item(), 4))

# irfft length odd / default
spec = torch.fft.rfft(torch.arange(7.0))
print(
    "rfft",
    tuple(spec.shape),
    spec.dtype,
    torch.fft.irfft(spec).shape,
    torch.fft.irfft(spec, n=7).round(decimals=4).tolist(),
)
print(
    "rfft norm",
    torch.fft.rfft(torch.ones(4), norm="ortho").real.tolist(),
    torch.fft.rfft(torch.ones(4), norm="forward").real.tolist(),
)

try:
    torch.view_as_complex(torch.randn(3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.view_as_real(torch.randn(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.rfft(torch.randn(4, dtype=torch.cfloat))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.view_as_complex(torch.tensor(1.0))
except Exception as e:
    print(type(e).__name__, e)
