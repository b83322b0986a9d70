"""FIR design by windowed sinc, filtering with conv1d (same/causal/grouped/batched), IIR biquads by loops, filtfilt."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

sr = 1000.0
t = torch.arange(1000, dtype=torch.float64) / sr
low = torch.sin(2 * math.pi * 10 * t)
high = 0.5 * torch.sin(2 * math.pi * 200 * t)
x = low + high + 0.05 * torch.randn(1000, dtype=torch.float64)
print("input", x.shape, x.dtype, x[:4])


def firwin(numtaps, cutoff, fs, window="hamming", pass_zero=True):
    n = torch.arange(numtaps, dtype=torch.float64) - (numtaps - 1) / 2
    fc = cutoff / (fs / 2)
    h = fc * torch.sinc(fc * n)
    if not pass_zero:
        h = torch.sinc(n) - h
    w = {
        "hamming": torch.hamming_window(numtaps, periodic=False, dtype=torch.float64),
        "hann": torch.hann_window(numtaps, periodic=False, dtype=torch.float64),
        "blackman": torch.blackman_window(numtaps, periodic=False, dtype=torch.float64),
        "kaiser": torch.kaiser_window(numtaps, False, 8.6, dtype=torch.float64),
    }[window]
    h = h * w
    if pass_zero:
        return h / h.sum()
    return h / (h * torch.cos(math.pi * n)).sum()


print("sinc", torch.sinc(torch.tensor([0.0, 0.5, 1.0, -1.5])))
for win in ["hamming", "hann", "blackman", "kaiser"]:
    h = firwin(51, 50.0, sr, win)
    H = torch.fft.rfft(h, n=1024).abs()
    f = torch.fft.rfftfreq(1024, 1 / sr)
    stop = 20 * torch.log10(H[f > 100].max())
    print(f"{win:8s} taps {h.shape[0]} dc {H[0].item():.4f} gain@50Hz {H[(f - 50).abs().argmin()].item():.4f} "
          f"stopband {stop.item():.2f} dB")

h = firwin(51, 50.0, sr)
hh = firwin(51, 100.0, sr, pass_zero=False)
print("highpass taps", hh[23:28])
# conv1d is cross-correlation: flip for convolution; symmetric taps make it moot
w = h.flip(0).view(1, 1, -1)
y_same = F.conv1d(x.view(1, 1, -1), w, padding="same").squeeze()
y_valid = F.conv1d(x.view(1, 1, -1), w).squeeze()
y_causal = F.conv1d(F.pad(x.view(1, 1, -1), (50, 0)), w).squeeze()
print("same/valid/causal", y_same.shape, y_valid.shape, y_causal.shape)
print("lowpassed error", round((y_same[100:-100] - low[100:-100]).abs().max().item(), 2))
print("group delay", (y_causal[:-25] - y_same[:-25]).abs()[:30].max().item() > 0,
      round((y_causal[25 + 100 : 900] - y_same[100 : 900 - 25]).abs().max().item(), 4))
print("padding=25 equals same", torch.allclose(F.conv1d(x.view(1, 1, -1), w, padding=25).squeeze(), y_same))

# filterbank of several bands through one grouped / multi-output conv
bands = torch.stack([firwin(41, c, sr) for c in [20.0, 80.0, 300.0]]).unsqueeze(1)
Y = F.conv1d(x.view(1, 1, -1), bands, padding=20)
print("filterbank", Y.shape, Y.pow(2).mean(-1))
stereo = torch.stack([x, -x]).unsqueeze(0)
Yg = F.conv1d(stereo, torch.stack([h, hh]).unsqueeze(1), padding=25, groups=2)
print("grouped", Yg.shape, Yg[0, :, 500])
batch = torch.randn(4, 1, 256, dtype=torch.float64)
print("batched", F.conv1d(batch, w, padding="same").shape, F.conv1d(batch.float(), w.float(), stride=4).shape)
print("conv_transpose upsample", F.conv_transpose1d(batch, w, stride=2).shape)


def biquad(x, b0, b1, b2, a0, a1, a2):
    b = torch.tensor([b0, b1, b2], dtype=x.dtype) / a0
    a = torch.tensor([a1, a2], dtype=x.dtype) / a0
    y = torch.zeros_like(x)
    x1 = x2 = y1 = y2 = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for n in range(x.shape[-1]):
        xn = x[..., n]
        yn = b[0] * xn + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
        y[..., n] = yn
        x2, x1, y2, y1 = x1, xn, y1, yn
    return y


def lowpass_coeffs(fs, cutoff, Q=0.707):
    w0 = 2 * math.pi * cutoff / fs
    alpha = math.sin(w0) / 2 / Q
    b0 = (1 - math.cos(w0)) / 2
    return b0, 1 - math.cos(w0), b0, 1 + alpha, -2 * math.cos(w0), 1 - alpha


def lfilter(x, b, a):
    """Direct form over a whole tensor: FIR part with conv1d, recursive part with a loop."""
    b = b / a[0]
    a = a / a[0]
    xp = F.pad(x.view(1, 1, -1), (b.numel() - 1, 0))
    v = F.conv1d(xp, b.flip(0).view(1, 1, -1)).view(-1)
    y = torch.zeros_like(v)
    for n in range(v.numel()):
        acc = v[n]
        for k in range(1, a.numel()):
            if n - k >= 0:
                acc = acc - a[k] * y[n - k]
        y[n] = acc
    return y


c = lowpass_coeffs(sr, 30.0)
print("biquad coeffs", [round(v, 4) for v in c])
yb = biquad(x[:200], *c)
yl = lfilter(x[:200], torch.tensor(c[:3], dtype=torch.float64), torch.tensor(c[3:], dtype=torch.float64))
print("biquad", yb[100:104], "lfilter agrees", torch.allclose(yb, yl))
yb2 = biquad(torch.stack([x[:200], 2 * x[:200]]), *c)
print("batched biquad linear", torch.allclose(yb2[1], 2 * yb2[0]))
fwd = biquad(x[:200], *c)
zero_phase = biquad(fwd.flip(-1), *c).flip(-1)
print("filtfilt", zero_phase[140:144], round((zero_phase[50:150] - low[50:150]).abs().max().item(), 2))

# impulse and frequency response of the biquad
imp = torch.zeros(128, dtype=torch.float64)
imp[0] = 1.0
ir = biquad(imp, *c)
Hb = torch.fft.rfft(ir).abs()
fr = torch.fft.rfftfreq(128, 1 / sr)
print("ir", ir[:5], "|H| at 0, 30Hz, 200Hz", Hb[0].item() > 0.99, round(Hb[(fr - 30).abs().argmin()].item(), 2),
      round(Hb[(fr - 200).abs().argmin()].item(), 4))

# moving average and exponential smoothing written as filters
ma = F.avg_pool1d(x.view(1, 1, -1), kernel_size=5, stride=1).squeeze()
print("moving average", ma.shape, torch.allclose(ma, x.unfold(0, 5, 1).mean(-1)))
alpha = 0.1
ema = torch.empty_like(x)
ema[0] = x[0]
for i in range(1, 200):
    ema[i] = alpha * x[i] + (1 - alpha) * ema[i - 1]
print("ema", ema[197:200])
try:
    F.conv1d(x.view(1, 1, -1), w, padding="same", stride=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv1d(x.view(1, 1, -1).float(), w)
except Exception as e:
    print(type(e).__name__, e)
