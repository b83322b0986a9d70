"""Auto- and cross-correlation: direct, by conv1d and by FFT; delays by GCC-PHAT, pitch by autocorrelation."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def xcorr_direct(a, b):
    n = a.numel()
    out = torch.zeros(2 * n - 1, dtype=a.dtype)
    for lag in range(-(n - 1), n):
        if lag >= 0:
            out[lag + n - 1] = (a[lag:] * b[: n - lag]).sum()
        else:
            out[lag + n - 1] = (a[: n + lag] * b[-lag:]).sum()
    return out


def xcorr_conv(a, b):
    n = a.numel()
    return F.conv1d(a.view(1, 1, -1), b.view(1, 1, -1), padding=n - 1).flatten()


def xcorr_fft(a, b):
    n = a.numel()
    nfft = 1 << (2 * n - 1).bit_length()
    A, B = torch.fft.rfft(a, nfft), torch.fft.rfft(b, nfft)
    r = torch.fft.irfft(A * B.conj(), nfft)
    return torch.cat([r[-(n - 1):], r[:n]])


a = torch.randn(16, dtype=torch.float64)
b = torch.roll(a, 3) + 0.1 * torch.randn(16, dtype=torch.float64)
d, c, f = xcorr_direct(a, b), xcorr_conv(a, b), xcorr_fft(a, b)
print("xcorr", d.shape, d[12:18])
print("conv1d == direct", torch.allclose(c, d), "fft == direct", torch.allclose(f, d))
lags = torch.arange(-15, 16)
print("peak lag", lags[d.argmax()].item(), lags[xcorr_direct(b, a).argmax()].item())
print("np.correlate-like full", torch.allclose(xcorr_direct(a, a), xcorr_direct(a, a).flip(0)))

# normalized autocorrelation, biased and unbiased
x = torch.sin(2 * math.pi * torch.arange(200) / 25.0) + 0.3 * torch.randn(200)
x = x - x.mean()
n = x.numel()
X = torch.fft.rfft(x, 2 * n)
acf = torch.fft.irfft(X.abs() ** 2, 2 * n)[:n]
acf_b = acf / acf[0]
acf_u = acf / (n - torch.arange(n)) / (acf[0] / n)
print("acf biased", acf_b[:5], "unbiased", acf_u[:5])
print("acf period", (acf_b[5:40].argmax() + 5).item())
conf = 1.96 / math.sqrt(n)
print("significant lags", (acf_b[1:30].abs() > conf).sum().item())

# pitch by autocorrelation on frames (YIN-style difference function)
sr = 8000
tt = torch.arange(2048) / sr
f0 = torch.tensor([110.0, 196.0, 330.0])
voices = torch.sin(2 * math.pi * f0[:, None] * tt) + 0.5 * torch.sin(4 * math.pi * f0[:, None] * tt)
frames = voices.unfold(-1, 512, 256)
print("frames", frames.shape)
W = 256
diff = torch.stack([((frames[..., :W] - frames[..., tau: tau + W]) ** 2).sum(-1) for tau in range(1, 200)], -1)
cmnd = diff * torch.arange(1, 200) / diff.cumsum(-1).clamp(min=1e-8)
tau = (cmnd < 0.1).float().argmax(-1) + 1
print("tau", tau[:, 3], "pitch Hz", (sr / tau.float()).mean(-1))

# GCC-PHAT delay between two microphones
src = torch.randn(1024, dtype=torch.float64)
delay = 7
mic1 = src
mic2 = torch.cat([torch.zeros(delay, dtype=torch.float64), src[:-delay]])
mic2 = mic2 + 0.05 * torch.randn(1024, dtype=torch.float64)
nfft = 2048
R = torch.fft.rfft(mic2, nfft) * torch.fft.rfft(mic1, nfft).conj()
cc = torch.fft.irfft(R / R.abs().clamp(min=1e-12), nfft)
cc = torch.cat([cc[-32:], cc[:33]])
print("gcc-phat delay", (cc.argmax() - 32).item(), round(cc.max().item(), 4))

# batched cross-correlation of template against signals with conv1d (matched filter)
template = torch.hann_window(32) * torch.sin(2 * math.pi * torch.arange(32) / 8)
signals = 0.2 * torch.randn(4, 1, 300)
positions = [40, 100, 180, 250]
for i, p in enumerate(positions):
    signals[i, 0, p:p + 32] += template
mf = F.conv1d(signals, template.view(1, 1, -1))
print("matched filter", mf.shape, mf.argmax(-1).flatten().tolist())
energy = F.conv1d(signals ** 2, torch.ones(1, 1, 32)).sqrt()
ncc = mf / (energy * template.norm()).clamp(min=1e-8)
print("normalized xcorr max", ncc.amax(-1).flatten())

# correlation coefficients between channels
chans = torch.stack([x, 0.5 * x + 0.1 * torch.randn(200), torch.randn(200)])
print("corrcoef\n", torch.corrcoef(chans))
print("cov", torch.cov(chans)[0], torch.cov(chans, correction=0)[0, 0])
wts = torch.ones(200, dtype=torch.int64)
wts[:50] = 2
print("cov weights", torch.cov(chans, fweights=wts)[1, 1], torch.cov(chans, aweights=torch.linspace(0.5, 1, 200))[2, 2])

# circular correlation via FFT for periodic signals
p1 = torch.tensor([1.0, 2.0, 3.0, 0.0, 0.0])
p2 = torch.tensor([0.0, 0.0, 1.0, 2.0, 3.0])
circ = torch.fft.ifft(torch.fft.fft(p2) * torch.fft.fft(p1).conj()).real
print("circular xcorr", circ.round(decimals=3), "shift", circ.argmax().item())
