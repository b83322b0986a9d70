"""Resolution invariance of spectral layers as operator-learning papers test it: spectral interpolation by
zero-padded irfft(n=), the same SpectralConv1d on 16/32/64-point grids, Fourier continuation of a non-periodic
signal, torch.func over spectral layers (vmap of an ensemble via functional_call and stack_module_state, jacrev of
the layer, jvp through rfft), and the errors of mismatched modes."""

import copy
import math

import torch
import torch.nn as nn
from torch.func import functional_call, jacrev, jvp, stack_module_state, vmap

torch.manual_seed(0)


class SpectralConv1d(nn.Module):
    def __init__(self, ch, modes):
        super().__init__()
        self.modes = modes
        self.w = nn.Parameter(torch.randn(ch, ch, modes, dtype=torch.cfloat) / ch)

    def forward(self, x):
        n = x.shape[-1]
        xf = torch.fft.rfft(x, norm="forward")
        if self.modes > xf.shape[-1]:
            raise ValueError(f"{self.modes} modes but only {xf.shape[-1]} frequencies")
        out = torch.einsum("...ik,iok->...ok", xf[..., :self.modes], self.w)
        out = nn.functional.pad(out, (0, n // 2 + 1 - self.modes))  # functional: vmap-safe, unlike out[...] = ...
        return torch.fft.irfft(out, n=n, norm="forward")


def f(x):
    return torch.sin(2 * math.pi * x) + 0.3 * torch.cos(6 * math.pi * x)


layer = SpectralConv1d(2, 4)
outs = {}
for n in (16, 32, 64):
    grid = torch.arange(n) / n
    x = torch.stack([f(grid), f(grid + 0.25)]).unsqueeze(0)
    outs[n] = layer(x)
    print("grid", n, tuple(outs[n].shape), [round(v, 4) for v in outs[n][0, :, 0].tolist()])
print("invariant", torch.allclose(outs[16][..., ::1], outs[32][..., ::2], atol=1e-5),
      torch.allclose(outs[32], outs[64][..., ::2], atol=1e-5))

coarse = f(torch.arange(16) / 16)
fine = torch.fft.irfft(torch.fft.rfft(coarse), n=64) * 4
print("spectral interp", round((fine - f(torch.arange(64) / 64)).abs().max().item(), 5))
fine_fwd = torch.fft.irfft(torch.fft.rfft(coarse, norm="forward"), n=64, norm="forward")
print("norm=forward interp", torch.allclose(fine, fine_fwd, atol=1e-5))
down = torch.fft.irfft(torch.fft.rfft(fine)[:5], n=8) / 8
print("downsample", down.round(decimals=4).tolist())

t = torch.linspace(0, 1, 20)
y = t ** 2
ext = torch.cat([y, y.flip(0)[1:-1]])
yf = torch.fft.rfft(ext)
yf[6:] = 0
cont = torch.fft.irfft(yf, n=ext.numel())[:20]
print("even extension", round((cont - y).abs().max().item(), 3), ext.numel())

ensemble = [SpectralConv1d(2, 4) for _ in range(3)]
params, buffers = stack_module_state(ensemble)
base = copy.deepcopy(ensemble[0]).to("meta")
print("stacked", {k: (tuple(v.shape), v.dtype) for k, v in params.items()})
x32 = torch.stack([f(torch.arange(32) / 32), f(torch.arange(32) / 32 + 0.1)]).unsqueeze(0)


def run(p, b, x):
    return functional_call(base, (p, b), (x,))


ens = vmap(run, in_dims=(0, 0, None))(params, buffers, x32)
print("ensemble", tuple(ens.shape), torch.allclose(ens[1], ensemble[1](x32), atol=1e-5))

small = SpectralConv1d(1, 2)
xs = torch.randn(1, 1, 8)
J = jacrev(lambda v: small(v).flatten())(xs)
print("jacrev", tuple(J.shape), round(J.abs().sum().item(), 4))
print("circulant", torch.allclose(J[1, 0, 0, 1:], J[0, 0, 0, :-1], atol=1e-6))
out, tangent = jvp(lambda v: torch.fft.rfft(v).abs().pow(2).sum(), (xs,), (torch.ones_like(xs),))
print("jvp", round(out.item(), 4), round(tangent.item(), 4))
g = torch.func.grad(lambda w: functional_call(small, {"w": w}, (xs,)).pow(2).sum())(small.w)
print("func.grad complex", g.dtype, tuple(g.shape), round(g.abs().sum().item(), 4))
batched = vmap(torch.fft.rfft)(torch.randn(5, 16))
print("vmap rfft", tuple(batched.shape), batched.dtype)
try:
    SpectralConv1d(2, 12)(x32[..., :16])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.irfft(torch.fft.rfft(coarse), n=0)
except Exception as e:
    print(type(e).__name__, e)
