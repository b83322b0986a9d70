"""Analytic signals and spectral estimates: Hilbert transform, AM/FM demodulation, phase unwrapping, Welch PSD."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def hilbert(x, dim=-1):
    n = x.shape[dim]
    X = torch.fft.fft(x, dim=dim)
    h = torch.zeros(n, dtype=x.dtype)
    if n % 2 == 0:
        h[0] = h[n // 2] = 1
        h[1 : n // 2] = 2
    else:
        h[0] = 1
        h[1 : (n + 1) // 2] = 2
    shape = [1] * x.ndim
    shape[dim] = n
    return torch.fft.ifft(X * h.view(shape), dim=dim)


def unwrap(p, dim=-1):
    dd = torch.diff(p, dim=dim)
    ddmod = torch.remainder(dd + math.pi, 2 * math.pi) - math.pi
    ddmod = torch.where((ddmod == -math.pi) & (dd > 0), torch.full_like(ddmod, math.pi), ddmod)
    correction = torch.where(dd.abs() < math.pi, torch.zeros_like(dd), ddmod - dd)
    first = p.narrow(dim, 0, 1)
    return torch.cat([first, first + torch.cumsum(correction, dim) + torch.cumsum(dd, dim)], dim)


sr = 1000.0
t = torch.arange(1000, dtype=torch.float64) / sr
carrier = 100.0
message = 1 + 0.5 * torch.cos(2 * math.pi * 3 * t)
am = message * torch.cos(2 * math.pi * carrier * t)
z = hilbert(am)
print("analytic", z.dtype, z.shape, z[:3])
print("real part kept", torch.allclose(z.real, am))
env = z.abs()
print("AM envelope error", round((env[50:-50] - message[50:-50]).abs().max().item(), 4))
inst_phase = unwrap(z.angle())
inst_freq = torch.diff(inst_phase) / (2 * math.pi) * sr
print("instantaneous freq", inst_freq[100:105], round(inst_freq[50:-50].mean().item(), 3))
wrapped = z.angle()
print("wrapped range", round(wrapped.min().item(), 4), round(wrapped.max().item(), 4),
      "unwrapped end", round(inst_phase[-1].item(), 2))

# FM: a chirp whose frequency sweeps 50 -> 250 Hz
k = 200.0
chirp = torch.cos(2 * math.pi * (50 * t + 0.5 * k * t**2))
fi = torch.diff(unwrap(hilbert(chirp).angle())) * sr / (2 * math.pi)
print("chirp freq at 0.25/0.5/0.75 s", fi[[250, 500, 750]], "expected", [50 + k * 0.25, 50 + k * 0.5, 50 + k * 0.75])

# batched hilbert along a different dim
batch = torch.stack([am, chirp], dim=1)
zb = hilbert(batch, dim=0)
print("batched", zb.shape, torch.allclose(zb[:, 0], z))

# periodogram and Welch's method
noise = torch.randn(4096, dtype=torch.float64)
x = torch.sin(2 * math.pi * 120 * torch.arange(4096) / sr) + 0.5 * noise


def periodogram(x, fs, window=None):
    n = x.numel()
    w = torch.ones(n, dtype=x.dtype) if window is None else window
    X = torch.fft.rfft(x * w)
    psd = X.abs() ** 2 / (fs * (w**2).sum())
    psd[1:-1] *= 2 if n % 2 == 0 else 1
    return torch.fft.rfftfreq(n, 1 / fs, dtype=x.dtype), psd


def welch(x, fs, nperseg=256, noverlap=128):
    w = torch.hann_window(nperseg, periodic=True, dtype=x.dtype)
    segs = x.unfold(0, nperseg, nperseg - noverlap)
    segs = segs - segs.mean(-1, keepdim=True)
    X = torch.fft.rfft(segs * w, dim=-1)
    psd = X.abs() ** 2 / (fs * (w**2).sum())
    psd[:, 1:-1] *= 2
    return torch.fft.rfftfreq(nperseg, 1 / fs, dtype=x.dtype), psd.mean(0), segs.shape[0]


f_p, p_p = periodogram(x, sr)
f_w, p_w, nseg = welch(x, sr)
print("periodogram", p_p.shape, "peak", f_p[p_p.argmax()].item())
print("welch", p_w.shape, "segments", nseg, "peak", f_w[p_w.argmax()].item())
band = (f_w > 200) & (f_w < 400)
print("noise floor", round(p_w[band].mean().item(), 5), "expected", round(0.25 * 2 / sr, 5))
df = f_w[1] - f_w[0]
print("total power", round((p_w.sum() * df).item(), 2), "var", round(x.var().item(), 2))
print("variance ratio periodogram/welch", round((p_p[band.nonzero().min():].std() / p_w[band].std()).item(), 1) > 1)

# spectral features per frame
spec = torch.stft(x.float(), 256, 128, window=torch.hann_window(256), return_complex=True).abs()
freqs = torch.fft.rfftfreq(256, 1 / sr)
centroid = (freqs[:, None] * spec).sum(0) / spec.sum(0)
bandwidth = torch.sqrt(((freqs[:, None] - centroid) ** 2 * spec).sum(0) / spec.sum(0))
cum = spec.cumsum(0)
rolloff = freqs[(cum < 0.85 * cum[-1]).sum(0)]
flatness = torch.exp(torch.log(spec + 1e-10).mean(0)) / spec.mean(0)
flux = torch.diff(spec, dim=1).clamp(min=0).sum(0)
print("centroid", centroid[:3], "bandwidth", bandwidth[:3])
print("rolloff", rolloff[:4], "flatness", flatness[:3], "flux", flux[:3] / 100)

# cepstrum: the echo delay shows up as a quefrency peak
echo = torch.randn(2048, dtype=torch.float64)
echo[300:] += 0.6 * echo[:-300].clone()
ceps = torch.fft.irfft(torch.log(torch.fft.rfft(echo).abs() + 1e-12))
print("cepstral peak at", (ceps[50:1000].argmax() + 50).item())
