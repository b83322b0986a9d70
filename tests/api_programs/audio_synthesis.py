"""audio synthesis and front ends: pre-emphasis, mu-law companding, windowed-sinc resampling with conv1d, MFCCs
through a DCT matrix, Griffin-Lim phase recovery with stft/istft, and a WaveNet-style stack of dilated causal
convolutions with gated activations trained to predict the next mu-law sample."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(13)
SR = 4000


def r(x, k=6):
    x = x.detach()
    if x.is_complex():
        x = torch.view_as_real(x)
    return np.round(x.double().flatten()[:k].numpy(), 4).tolist()


t = torch.arange(800, dtype=torch.float32) / SR
env = torch.exp(-3.0 * t)
audio = env * (0.6 * torch.sin(2 * math.pi * 220 * t) + 0.3 * torch.sin(2 * math.pi * 660 * t + 0.5))
audio = audio + 0.01 * torch.from_numpy(rng.standard_normal(800).astype(np.float32))
print("audio", audio.shape, r(audio), round(audio.abs().max().item(), 4))
emph = torch.cat([audio[:1], audio[1:] - 0.97 * audio[:-1]])
print("pre-emphasis", r(emph[1:7]))
deemph = torch.zeros_like(emph)
acc = torch.tensor(0.0)
for i in range(10):
    acc = emph[i] + 0.97 * acc
    deemph[i] = acc
print("de-emphasis", torch.allclose(deemph[:10], audio[:10], atol=1e-6))


def mu_law_encode(x, q=256):
    mu = q - 1
    y = torch.sign(x) * torch.log1p(mu * x.abs()) / math.log1p(mu)
    return ((y + 1) / 2 * mu + 0.5).to(torch.int64)


def mu_law_decode(c, q=256):
    mu = q - 1
    y = 2 * c.float() / mu - 1
    return torch.sign(y) * (torch.pow(1 + mu, y.abs()) - 1) / mu


codes = mu_law_encode(audio)
print("mu-law", codes.dtype, codes[:10].tolist(), codes.min().item(), codes.max().item())
recon = mu_law_decode(codes)
print("mu-law error", round((recon - audio).abs().max().item(), 4), round(F.mse_loss(recon, audio).item(), 7))


def sinc_kernel(ratio, taps=16):
    n = torch.arange(-taps, taps + 1, dtype=torch.float64)
    cutoff = min(ratio, 1.0) * 0.95
    h = (
        cutoff
        * torch.sinc(cutoff * n)
        * torch.kaiser_window(2 * taps + 1, periodic=False, beta=6.0, dtype=torch.float64)
    )
    return (h / h.sum()).float()


h = sinc_kernel(0.5)
print("sinc kernel", h.shape, r(h[14:19]), round(h.sum().item(), 6))
lp = F.conv1d(F.pad(audio.view(1, 1, -1), (16, 16), mode="reflect"), h.view(1, 1, -1))
down = lp[..., ::2]
print("downsample", down.shape, r(down[0, 0, 100:106]))
up = torch.zeros(1, 1, down.shape[-1] * 2)
up[..., ::2] = down
up = 2 * F.conv1d(F.pad(up, (16, 16)), h.view(1, 1, -1))
print("upsample", up.shape, r(up[0, 0, 200:206]), round((up[0, 0, 50:-50] - audio[50:-50]).abs().max().item(), 4))
lin = F.interpolate(audio.view(1, 1, -1), scale_factor=1.5, mode="linear", align_corners=False)
print("linear resample", lin.shape, r(lin[0, 0, 10:16]))
poly = F.conv_transpose1d(down, h.view(1, 1, -1) * 2, stride=2, padding=16)
print("conv_transpose1d polyphase", poly.shape, r(poly[0, 0, 200:204]))

N_FFT, HOP, N_MELS, N_MFCC = 128, 32, 20, 10
win = torch.hann_window(N_FFT)
spec = torch.stft(audio, N_FFT, HOP, window=win, center=True, pad_mode="constant", return_complex=True)
print("stft constant pad", spec.shape, r(spec.abs()[:3, 0]))
spec_r = torch.stft(audio, N_FFT, HOP, window=win, center=True, pad_mode="reflect", return_complex=True)
print("stft reflect pad", r(spec_r.abs()[:3, 0]), r(spec_r.abs()[:3, 5]))
fb = torch.zeros(N_FFT // 2 + 1, N_MELS)
mel_edges = torch.linspace(0, 2595 * math.log10(1 + (SR / 2) / 700), N_MELS + 2)
hz_edges = 700 * (10 ** (mel_edges / 2595) - 1)
bin_edges = torch.floor((N_FFT + 1) * hz_edges / SR).long()
for m in range(1, N_MELS + 1):
    lo, c, hi = bin_edges[m - 1 : m + 2].tolist()
    for k in range(lo, c):
        fb[k, m - 1] = (k - lo) / max(c - lo, 1)
    for k in range(c, hi):
        fb[k, m - 1] = (hi - k) / max(hi - c, 1)
print("mel bins", bin_edges.tolist())
logmel = torch.log(spec.abs().pow(2).T @ fb + 1e-6)
n_ = torch.arange(N_MELS, dtype=torch.float32)
k_ = torch.arange(N_MFCC, dtype=torch.float32)[:, None]
dct = torch.cos(math.pi / N_MELS * (n_ + 0.5) * k_) * math.sqrt(2.0 / N_MELS)
dct[0] /= math.sqrt(2.0)
mfcc = logmel @ dct.T
print("mfcc", mfcc.shape, r(mfcc[5]), "dct orthonormal", torch.allclose(dct @ dct.T, torch.eye(N_MFCC), atol=1e-5))
lifter = 1 + 11 * torch.sin(math.pi * torch.arange(N_MFCC) / 22)
print("liftered", r((mfcc * lifter)[5, :4]))
print("rfft bins", r(torch.fft.rfft(audio[:64]).abs()[:5]), torch.fft.rfftfreq(8, d=1 / SR).tolist())

mag = spec.abs()
angles = torch.exp(2j * math.pi * torch.from_numpy(rng.random(mag.shape).astype(np.float32)))
for it in range(16):
    x = torch.istft(mag * angles, N_FFT, HOP, window=win, length=audio.numel())
    rebuilt = torch.stft(x, N_FFT, HOP, window=win, return_complex=True)
    angles = torch.exp(1j * rebuilt.angle())
    if it % 5 == 0 or it == 15:
        sc = torch.linalg.norm(rebuilt.abs() - mag) / torch.linalg.norm(mag)
        print(f"griffin-lim {it:2d} spectral convergence {sc.item():.4f}")
print(
    "istft no length",
    torch.istft(spec, N_FFT, HOP, window=win).shape,
    "center=False",
    torch.stft(audio, N_FFT, HOP, window=win, center=False, return_complex=True).shape,
)


class GatedResidual(nn.Module):
    def __init__(self, ch, skip, dilation):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(ch, 2 * ch, 2, dilation=dilation)
        self.res = nn.Conv1d(ch, ch, 1)
        self.skip = nn.Conv1d(ch, skip, 1)

    def forward(self, x):
        h = self.conv(F.pad(x, (self.dilation, 0)))
        a, b = h.chunk(2, dim=1)
        z = torch.tanh(a) * torch.sigmoid(b)
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, q=32, ch=8, skip=16, dilations=(1, 2, 4, 8)):
        super().__init__()
        self.embed = nn.Embedding(q, ch)
        self.blocks = nn.ModuleList(GatedResidual(ch, skip, d) for d in dilations)
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip, skip, 1), nn.ReLU(), nn.Conv1d(skip, q, 1))

    def forward(self, codes):
        x = self.embed(codes).transpose(1, 2)
        skips = 0
        for blk in self.blocks:
            x, s = blk(x)
            skips = skips + s
        return self.out(skips)


Q = 32
wn = WaveNet(Q)
with torch.no_grad():
    for p in wn.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32)) * 0.3)
print("receptive field", 1 + sum(b.dilation for b in wn.blocks), "params", sum(p.numel() for p in wn.parameters()))
seq = mu_law_encode(audio[:257], Q).view(1, -1)
inp, tgt = seq[:, :-1], seq[:, 1:]
logits = wn(inp)
causal = wn(torch.cat([inp[:, :100], torch.zeros(1, 156, dtype=torch.long)], 1))
print("causal", torch.allclose(logits[..., :100], causal[..., :100], atol=1e-5), logits.shape)
opt = torch.optim.Adam(wn.parameters(), lr=0.01)
for step in range(8):
    loss = F.cross_entropy(wn(inp), tgt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print(f"wavenet step {step} nll {loss.item():.4f} bits {loss.item() / math.log(2):.4f}")
with torch.no_grad():
    probs = wn(inp)[0, :, -1].softmax(0)
print("next-sample distribution", r(probs.topk(3).values, 3), probs.topk(3).indices.tolist(), int(tgt[0, -1]))
try:
    torch.stft(audio, N_FFT, HOP, window=torch.hann_window(64), return_complex=True)
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    torch.stft(audio, N_FFT, HOP)
except RuntimeError as e:
    print("RuntimeError", str(e)[:110])
