"""Multi-resolution STFT losses as neural vocoder code (Parallel WaveGAN, HiFi-GAN) writes them: spectral convergence
and log-magnitude losses over several (n_fft, hop, win) settings with registered window buffers, a mel projection
by matmul, gradients back to the waveform, a complex-spectrum L1 loss, and a few Adam steps on a toy generator."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def stft_mag(x, fft_size, hop, win_length, window):
    spec = torch.stft(x, fft_size, hop, win_length, window, return_complex=True)
    return torch.sqrt(torch.clamp(spec.real ** 2 + spec.imag ** 2, min=1e-7)).transpose(2, 1)


class STFTLoss(nn.Module):
    def __init__(self, fft_size, shift, win_length, window="hann_window"):
        super().__init__()
        self.fft_size, self.shift, self.win_length = fft_size, shift, win_length
        self.register_buffer("window", getattr(torch, window)(win_length))

    def forward(self, x, y):
        xm = stft_mag(x, self.fft_size, self.shift, self.win_length, self.window)
        ym = stft_mag(y, self.fft_size, self.shift, self.win_length, self.window)
        sc = torch.norm(ym - xm, p="fro") / torch.norm(ym, p="fro")
        mag = F.l1_loss(torch.log(ym), torch.log(xm))
        return sc, mag


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, fft_sizes=(64, 128, 32), hops=(16, 32, 8), wins=(48, 96, 24),
                 windows=("hann_window", "hamming_window", "blackman_window")):
        super().__init__()
        self.losses = nn.ModuleList([STFTLoss(f, h, w, win) for f, h, w, win in zip(fft_sizes, hops, wins, windows)])

    def forward(self, x, y):
        sc, mag = 0.0, 0.0
        for f in self.losses:
            s, m = f(x, y)
            sc, mag = sc + s, mag + m
        return sc / len(self.losses), mag / len(self.losses)


mr = MultiResolutionSTFTLoss()
print(mr)
print("buffers", [(n, tuple(b.shape)) for n, b in mr.named_buffers()])
t = torch.arange(512) / 512
target = (torch.sin(2 * math.pi * 20 * t) * torch.exp(-3 * t) + 0.3 * torch.sin(2 * math.pi * 57 * t)).unsqueeze(0)
noisy = target + 0.1 * torch.randn_like(target)
sc, mag = mr(noisy, target)
print("losses", round(sc.item(), 4), round(mag.item(), 4))

x = noisy.clone().requires_grad_(True)
sc, mag = mr(x, target)
(sc + mag).backward()
print("wave grad", round(x.grad.abs().mean().item(), 4), round(x.grad.abs().max().item(), 4))

n_mels, n_fft = 8, 64
freqs = torch.linspace(0, 0.5, n_fft // 2 + 1)
mel_pts = torch.linspace(0, 1, n_mels + 2) ** 2 * 0.5
fb = torch.clamp(torch.minimum((freqs[None] - mel_pts[:-2, None]) / (mel_pts[1:-1, None] - mel_pts[:-2, None]),
                               (mel_pts[2:, None] - freqs[None]) / (mel_pts[2:, None] - mel_pts[1:-1, None])), min=0)
print("filterbank", tuple(fb.shape), fb.sum(1).round(decimals=4).tolist())
spec = torch.stft(target, n_fft, 16, window=torch.hann_window(n_fft), return_complex=True).abs().pow(2)
mel = fb @ spec
logmel = torch.log(torch.clamp(mel, min=1e-5))
print("logmel", tuple(logmel.shape), round(logmel.mean().item(), 4), round(logmel.std().item(), 4))

c_x = torch.stft(noisy, 64, 16, window=torch.hann_window(64), return_complex=True)
c_y = torch.stft(target, 64, 16, window=torch.hann_window(64), return_complex=True)
print("complex l1", round(F.l1_loss(torch.view_as_real(c_x), torch.view_as_real(c_y)).item(), 4),
      round((c_x - c_y).abs().mean().item(), 4))
try:
    F.l1_loss(c_x, c_y)
except Exception as e:
    print(type(e).__name__, e)


class ToyGen(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose1d(4, 8, 8, stride=4, padding=2)
        self.conv = nn.Conv1d(8, 1, 7, padding=3)

    def forward(self, z):
        return torch.tanh(self.conv(F.leaky_relu(self.up(z), 0.1))).squeeze(1)


gen = ToyGen()
z = torch.randn(1, 4, 128)
opt = torch.optim.Adam(gen.parameters(), lr=2e-3, betas=(0.8, 0.99))
for step in range(4):
    opt.zero_grad()
    wav = gen(z)
    sc, mag = mr(wav, target)
    loss = sc + mag
    loss.backward()
    opt.step()
    print("gen", step, tuple(wav.shape), round(sc.item(), 4), round(mag.item(), 4))
try:
    mr(noisy[:, :20], target[:, :20])
except Exception as e:
    print(type(e).__name__, str(e).split(":")[-1].strip())
