"""Parallel WaveGAN's multi-resolution STFT loss: magnitudes clamped before the sqrt, spectral convergence as a
Frobenius-norm ratio, log-magnitude L1, windows of several kinds registered as buffers, mixed float64 inputs and
half windows, gradients through complex abs, and the loss on silence (where the clamp decides everything)."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(9)
torch.set_printoptions(precision=4, sci_mode=False)


def stft(x, fft_size, hop_size, win_length, window):
    x_stft = torch.stft(x, fft_size, hop_size, win_length, window, return_complex=True)
    real, imag = x_stft.real, x_stft.imag
    return torch.sqrt(torch.clamp(real**2 + imag**2, min=1e-7)).transpose(2, 1)


class SpectralConvergenceLoss(nn.Module):
    def forward(self, x_mag, y_mag):
        return torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")


class LogSTFTMagnitudeLoss(nn.Module):
    def forward(self, x_mag, y_mag):
        return F.l1_loss(torch.log(y_mag), torch.log(x_mag))


class STFTLoss(nn.Module):
    def __init__(self, fft_size=32, shift_size=8, win_length=24, window="hann_window"):
        super().__init__()
        self.fft_size, self.shift_size, self.win_length = fft_size, shift_size, win_length
        self.register_buffer("window", getattr(torch, window)(win_length))
        self.sc = SpectralConvergenceLoss()
        self.mag = LogSTFTMagnitudeLoss()

    def forward(self, x, y):
        x_mag = stft(x, self.fft_size, self.shift_size, self.win_length, self.window)
        y_mag = stft(y, self.fft_size, self.shift_size, self.win_length, self.window)
        return self.sc(x_mag, y_mag), self.mag(x_mag, y_mag)


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, ffts=(16, 32, 64), shifts=(4, 8, 16), wins=(12, 24, 48), window="hann_window"):
        super().__init__()
        self.stft_losses = nn.ModuleList(STFTLoss(f, s, w, window) for f, s, w in zip(ffts, shifts, wins))

    def forward(self, x, y):
        sc, mag = 0.0, 0.0
        for f in self.stft_losses:
            a, b = f(x, y)
            sc, mag = sc + a, mag + b
        return sc / len(self.stft_losses), mag / len(self.stft_losses)


y = torch.randn(2, 200)
x = (y + 0.3 * torch.randn(2, 200)).requires_grad_()
crit = MultiResolutionSTFTLoss()
sc, mag = crit(x, y)
print(round(sc.item(), 4), round(mag.item(), 4), sc.grad_fn.name())
(sc + mag).backward()
print(x.grad.shape, round(x.grad.norm().item(), 4), x.grad[0, :4])
print([tuple(b.shape) for b in crit.buffers()], list(crit.state_dict())[:2])
for w in ("hamming_window", "blackman_window", "bartlett_window"):
    c = MultiResolutionSTFTLoss(window=w)
    print(w, [round(v.item(), 4) for v in c(x.detach(), y)])
print(torch.kaiser_window(6), torch.kaiser_window(5, periodic=False, beta=8.0))
print(torch.hann_window(1), torch.hann_window(0), torch.hamming_window(4, True, 0.5, 0.5))
try:
    torch.hamming_window(4, alpha=0.5, beta=0.5)
except TypeError as e:
    print(type(e).__name__, str(e).splitlines()[0])

# Silence: every bin is at the clamp, the log loss is exactly 0 and SC divides 0 by a constant.
z = torch.zeros(1, 64, requires_grad=True)
sc0, mag0 = STFTLoss()(z, torch.zeros(1, 64))
print(sc0.item(), mag0.item())
(sc0 + mag0).backward()
print(z.grad.abs().max().item(), torch.isnan(z.grad).any().item())
mag = stft(torch.zeros(1, 64), 32, 8, 24, torch.hann_window(24))
print(mag.shape, mag.unique())

# The fro norm over dims and the complex abs gradient.
m = torch.randn(2, 3, 4, dtype=torch.float64)
print(torch.norm(m, p="fro", dim=(1, 2)), torch.linalg.norm(m, ord="fro", dim=(1, 2)))
print(torch.norm(m, p="fro", dim=1, keepdim=True).shape, torch.norm(m, "nuc", dim=(1, 2)))
c = torch.complex(torch.tensor([3.0, 0.0]), torch.tensor([4.0, 0.0])).requires_grad_()
c.abs().sum().backward()
print(c.grad)
s64 = STFTLoss().double()
print(s64.window.dtype, [round(v.item(), 6) for v in s64(x.detach().double(), y.double())])
try:
    STFTLoss()(x.detach().double(), y.double())
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.norm(m, p="fro", dim=(0, 1, 2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    crit(x[:, :10], y[:, :10])
except RuntimeError as e:
    print(type(e).__name__, str(e)[-60:])
