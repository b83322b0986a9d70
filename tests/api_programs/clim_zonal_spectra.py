"""Spectral diagnostics of forecasts: zonal power spectra by rfft along longitude with rfftfreq wavenumbers, Hann
windows, spectral blurring ratios, fftshift for 2-D spectra, a spectral loss with autograd, and radial binning."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)
H, W = 8, 32
lon = torch.arange(W, dtype=torch.float64) * 2 * math.pi / W
truth = torch.stack([torch.cos(k * lon) / k for k in range(1, 9)]).sum(0).expand(H, W).clone()
truth = truth + 0.05 * torch.randn(H, W, dtype=torch.float64)
blurry = F.avg_pool1d(F.pad(truth.unsqueeze(1), (2, 2), mode="circular"), 5, stride=1).squeeze(1)
print("fields", truth.shape, blurry.shape, blurry.dtype)
k = torch.fft.rfftfreq(W, d=1.0 / W)
print("wavenumbers", k[:6], k.dtype, torch.fft.rfftfreq(W, dtype=torch.float64).dtype)
Pt = torch.fft.rfft(truth, dim=-1, norm="ortho").abs().pow(2).mean(0)
Pb = torch.fft.rfft(blurry, dim=-1, norm="ortho").abs().pow(2).mean(0)
print(
    "power",
    Pt.shape,
    Pt[1:5],
    "parseval",
    torch.allclose(truth.pow(2).sum(-1).mean(), Pt[0] + 2 * Pt[1:-1].sum() + Pt[-1]),
)
ratio = Pb / Pt
print("blurring ratio", ratio[[1, 4, 8, 12]])
print("energy >k8", round(Pt[9:].sum().item() / Pt.sum().item(), 4), round(Pb[9:].sum().item() / Pb.sum().item(), 4))
win = torch.hann_window(W, periodic=True, dtype=torch.float64)
print("hann", win[:4], torch.hann_window(5, periodic=False), torch.hamming_window(4))
Pw = torch.fft.rfft(truth * win, dim=-1).abs().pow(2).mean(0) / win.pow(2).sum()
print("windowed", Pw[1:4])
print("blackman/kaiser", torch.blackman_window(4), torch.kaiser_window(4, True, 8.0).dtype)

f2 = truth[:, :16].float()
S = torch.fft.fft2(f2)
Ss = torch.fft.fftshift(S)
print("fft2", S.shape, S.dtype, torch.allclose(torch.fft.ifftshift(Ss), S))
print("shift dims", torch.fft.fftshift(torch.arange(6), dim=0), torch.fft.ifftshift(torch.arange(5)))
ky = torch.fft.fftshift(torch.fft.fftfreq(H, d=1.0 / H))
kx = torch.fft.fftshift(torch.fft.fftfreq(16, d=1.0 / 16))
KY, KX = torch.meshgrid(ky, kx, indexing="ij")
kr = torch.sqrt(KX**2 + KY**2).round().long()
radial = torch.zeros(int(kr.max()) + 1).index_add_(0, kr.flatten(), Ss.abs().pow(2).flatten())
counts = torch.bincount(kr.flatten(), minlength=radial.shape[0])
print("radial", radial.shape, counts[:5].tolist(), (radial / counts.clamp(min=1))[:4])
print("fftfreq", torch.fft.fftfreq(5), torch.fft.fftfreq(4, d=0.25))

pred = blurry.clone().float().requires_grad_()
tgt = truth.float()
spec_loss = (torch.fft.rfft(pred, dim=-1).abs() - torch.fft.rfft(tgt, dim=-1).abs()).pow(2).mean()
amp_loss = F.l1_loss(torch.log1p(torch.fft.rfft(pred, dim=-1).abs()), torch.log1p(torch.fft.rfft(tgt, dim=-1).abs()))
(spec_loss + amp_loss).backward()
print(
    "spectral loss",
    round(spec_loss.item(), 4),
    round(amp_loss.item(), 4),
    pred.grad.shape,
    round(pred.grad.norm().item(), 4),
)
zc = torch.zeros(3, dtype=torch.complex64, requires_grad=True)
zc.abs().sum().backward()
print("abs grad at 0", zc.grad)
cx = torch.fft.rfft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
print("complex ops", cx.real, cx.imag, cx.conj().imag, cx.angle(), torch.view_as_real(cx).shape)
print("irfft n", torch.fft.irfft(cx, n=4), torch.fft.irfft(cx).shape, torch.fft.irfft(cx, n=5).shape)
print("norms", torch.fft.rfft(torch.ones(4), norm="forward"), torch.fft.rfft(torch.ones(4), norm="backward")[0].item())
try:
    torch.fft.rfft(cx)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.fft.rfft(torch.ones(4), norm="unitary")
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)
try:
    torch.hann_window(4, dtype=torch.int64)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.fft.fftfreq(0.5)
except TypeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
