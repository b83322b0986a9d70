"""Framing with unfold/as_strided, and discrete calculus on signals: cumsum, diff, gradient, trapezoid, envelopes."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

x = torch.arange(10.0)
frames = x.unfold(0, 4, 2)
print("unfold", frames.shape, frames.stride(), frames.is_contiguous())
print(frames)
print("unfold step>size", x.unfold(0, 2, 3))
print("unfold size=len", x.unfold(0, 10, 1).shape, "size 0", x.unfold(0, 0, 4).shape)
print("unfold 2d dim=1", torch.arange(12.0).view(2, 6).unfold(1, 3, 3))
strided = x.as_strided((4, 4), (2, 1))
print("as_strided frames equal unfold", torch.equal(strided, frames))
frames[0, 0] = 100.0
print("unfold is a view", x[0].item())
x[0] = 0.0

sr = 400
t = torch.arange(800) / sr
sig = torch.sin(2 * math.pi * 5 * t) * (t < 1).float() + 0.2 * torch.randn(800) * (t >= 1).float()
fr = sig.unfold(-1, 80, 40)
print("frames", fr.shape)
energy = fr.pow(2).mean(-1)
zcr = (fr[:, 1:].sign() != fr[:, :-1].sign()).float().mean(-1)
print("energy", energy[::4])
print("zcr", zcr[::4])
print("voiced frames", (zcr < 0.2).nonzero().flatten().tolist())

# overlap-add with fold: the inverse of framing, normalised by the window sum
win = torch.hann_window(80, periodic=True)
wf = (fr * win).t().unsqueeze(0)
ola = F.fold(wf, output_size=(1, 800), kernel_size=(1, 80), stride=(1, 40))
wsum = F.fold((win.unsqueeze(1).expand(80, fr.shape[0])).unsqueeze(0), (1, 800), (1, 80), stride=(1, 40))
rec = (ola / wsum.clamp(min=1e-8)).flatten()
print("fold OLA", ola.shape, round((rec[40:-40] - sig[40:-40]).abs().max().item(), 4))
cols = F.unfold(sig.view(1, 1, 1, -1), kernel_size=(1, 80), stride=(1, 40))
print("F.unfold frames", cols.shape, torch.equal(cols[0].t(), fr))

# discrete calculus
y = torch.tensor([1.0, 4.0, 9.0, 16.0, 25.0])
print("cumsum", y.cumsum(0), torch.cumsum(y, 0, dtype=torch.float64).dtype)
print("cumprod", torch.cumprod(y, 0), "logcumsumexp", torch.logcumsumexp(y / 10, 0))
print("cummax", torch.cummax(torch.tensor([1, 3, 2, 5, 4]), 0))
print("diff", torch.diff(y), torch.diff(y, n=2), torch.diff(y, prepend=torch.tensor([0.0])),
      torch.diff(y, append=torch.tensor([36.0, 49.0]), n=3))
print("diff 2d", torch.diff(torch.arange(6).view(2, 3), dim=0), torch.diff(torch.tensor([True, False, False])))
print("gradient", torch.gradient(y))
print("gradient spacing", torch.gradient(y, spacing=2.0), torch.gradient(y, spacing=0.5, edge_order=2))
coords = torch.tensor([0.0, 1.0, 1.5, 3.5, 4.0])
print("gradient coords", torch.gradient(y, spacing=(coords,)))
g2 = torch.gradient(torch.arange(12.0).view(3, 4) ** 2)
print("gradient 2d", [v.shape for v in g2], g2[1][1])
print("gradient dim", torch.gradient(torch.arange(12.0).view(3, 4) ** 2, dim=1, spacing=[2.0])[0][0])
print("trapezoid", torch.trapezoid(y), torch.trapezoid(y, dx=0.5), torch.trapezoid(y, x=coords))
print("trapz alias", torch.trapz(y, coords), torch.trapezoid(torch.arange(6.0).view(2, 3), dim=0))
print("cumulative_trapezoid", torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y, x=coords))
print("integrate sin 0..pi", round(torch.trapezoid(torch.sin(torch.linspace(0, math.pi, 101)),
                                                   torch.linspace(0, math.pi, 101)).item(), 4))

# derivative of a sampled signal and integration back
tt = torch.linspace(0, 2 * math.pi, 200, dtype=torch.float64)
f = torch.sin(tt)
df = torch.gradient(f, spacing=(tt,))[0]
print("d/dt sin ~ cos", round((df - torch.cos(tt)).abs().max().item(), 4))
F_int = torch.cumulative_trapezoid(torch.cos(tt), tt)
print("int cos ~ sin", round((F_int - torch.sin(tt[1:])).abs().max().item(), 5))

# envelope with a moving RMS, a peak picker, hysteresis counting
rms = F.avg_pool1d(sig.pow(2).view(1, 1, -1), 41, stride=1, padding=20).sqrt().flatten()
print("rms", rms.shape, rms[::100])
mp = F.max_pool1d(sig.view(1, 1, -1), 21, stride=1, padding=10).flatten()
peaks = ((sig == mp) & (sig > 0.5)).nonzero().flatten()
print("peaks", peaks.tolist()[:8], "intervals", torch.diff(peaks)[:5].tolist())
crossings = torch.diff((sig[:400] > 0).int()).abs().sum()
print("zero crossings in first second", crossings.item())
print("searchsorted onsets", torch.searchsorted(torch.cumsum(energy, 0), torch.tensor([0.1, 1.0, 5.0])))
print("cumsum reverse", y.flip(0).cumsum(0).flip(0))

try:
    torch.gradient(torch.tensor([1.0]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    x.unfold(0, 11, 1)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.diff(y, n=-1)
except RuntimeError as e:
    print("RuntimeError", e)
