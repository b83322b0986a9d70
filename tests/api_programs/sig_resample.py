"""Resampling audio: F.interpolate modes, FFT resampling, band-limited sinc kernels via conv1d, polyphase by strides."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

sr = 100
t = torch.arange(sr) / sr
x = torch.sin(2 * math.pi * 3 * t) + 0.3 * torch.cos(2 * math.pi * 7 * t)
print("x", x.shape, x[:5])

# F.interpolate needs (N, C, L)
x3 = x.view(1, 1, -1)
for mode, kw in [("nearest", {}), ("nearest-exact", {}), ("linear", {"align_corners": False}),
                 ("linear", {"align_corners": True}), ("area", {})]:
    up = F.interpolate(x3, scale_factor=1.5, mode=mode, **kw)
    down = F.interpolate(x3, size=40, mode=mode, **kw)
    print(f"{mode:13s} {kw}", up.shape, up[0, 0, :4], down[0, 0, 10:13])
print("recompute_scale_factor", F.interpolate(x3, scale_factor=0.33, mode="linear",
                                              recompute_scale_factor=True).shape)
print("size and scale together:")
try:
    F.interpolate(x3, size=10, scale_factor=2.0)
except ValueError as e:
    print("ValueError", e)
try:
    F.interpolate(x, size=10, mode="linear")
except Exception as e:
    print(type(e).__name__, str(e)[:100])
try:
    F.interpolate(x3, size=10, mode="bilinear")
except Exception as e:
    print(type(e).__name__, str(e)[:100])
print("Upsample module", torch.nn.Upsample(scale_factor=2, mode="linear")(x3).shape, torch.nn.Upsample(size=7))


def fft_resample(x, num):
    """scipy.signal.resample: crop or zero-pad the spectrum, splitting the Nyquist bin."""
    n = x.shape[-1]
    X = torch.fft.rfft(x)
    Y = torch.zeros(*x.shape[:-1], num // 2 + 1, dtype=X.dtype)
    m = min(num, n) // 2 + 1
    Y[..., :m] = X[..., :m]
    if num < n and num % 2 == 0:
        Y[..., num // 2] *= 2
    if num > n and n % 2 == 0:
        Y[..., n // 2] *= 0.5
    return torch.fft.irfft(Y, n=num) * (num / n)


y_up = fft_resample(x, 250)
t_up = torch.arange(250) / 250
ref_up = torch.sin(2 * math.pi * 3 * t_up) + 0.3 * torch.cos(2 * math.pi * 7 * t_up)
print("fft upsample", y_up.shape, round((y_up - ref_up).abs().max().item(), 4))
y_dn = fft_resample(x, 40)
t_dn = torch.arange(40) / 40
print("fft downsample", y_dn[:4], round((y_dn - torch.sin(2 * math.pi * 3 * t_dn)
                                         - 0.3 * torch.cos(2 * math.pi * 7 * t_dn)).abs().max().item(), 4))
print("batched fft resample", fft_resample(torch.stack([x, 2 * x]), 64).shape)


def sinc_kernel(orig, new, width=8, rolloff=0.95):
    g = math.gcd(orig, new)
    orig, new = orig // g, new // g
    base = min(orig, new) * rolloff
    idx = torch.arange(-width, width + orig, dtype=torch.float64)[None, None] / orig
    tt = torch.arange(0, -new, -1, dtype=torch.float64)[:, None, None] / new + idx
    tt = (tt * base).clamp(-width, width)
    window = torch.cos(tt * math.pi / width / 2) ** 2
    tt = tt * math.pi
    kernels = torch.where(tt == 0, torch.tensor(1.0, dtype=torch.float64), tt.sin() / tt)
    kernels = kernels * window * base / orig
    return kernels.float(), width, orig, new


def sinc_resample(wave, orig, new):
    kernel, width, o, n = sinc_kernel(orig, new)
    length = wave.shape[-1]
    w = F.pad(wave.view(-1, 1, length), (width, width + o))
    out = F.conv1d(w, kernel, stride=o)
    out = out.transpose(1, 2).reshape(wave.shape[0], -1)
    target = math.ceil(n * length / o)
    return out[..., :target]


k, width, o, n = sinc_kernel(100, 160)
print("sinc kernel", k.shape, k[0, 0, 6:10], "phases", o, n)
y160 = sinc_resample(x.unsqueeze(0), 100, 160)
t160 = torch.arange(160) / 160
ref160 = torch.sin(2 * math.pi * 3 * t160) + 0.3 * torch.cos(2 * math.pi * 7 * t160)
print("sinc 100->160", y160.shape, round((y160[0, 20:-20] - ref160[20:-20]).abs().max().item(), 3))
y50 = sinc_resample(torch.stack([x, -x]), 100, 50)
print("sinc 100->50", y50.shape, y50[:, 10:13])

# polyphase decimation: antialias FIR then stride; interpolation: zero-stuff then filter
taps = 31
n_ = torch.arange(taps) - taps // 2
h = 0.5 * torch.sinc(0.5 * n_) * torch.hamming_window(taps, periodic=False)
h = h / h.sum()
dec = F.conv1d(F.pad(x3, (15, 15), mode="reflect"), h.view(1, 1, -1), stride=2)
print("decimate by 2", dec.shape, dec[0, 0, 5:8], "vs naive", x[10:16:2])
stuffed = torch.zeros(1, 1, 2 * x.numel())
stuffed[..., ::2] = x3
interp = F.conv1d(F.pad(stuffed, (15, 15)), (2 * h).view(1, 1, -1))
print("interpolate by 2", interp.shape, round((interp[0, 0, 40:160:2] - x[20:80]).abs().max().item(), 3))
ct = F.conv_transpose1d(x3, (2 * h).view(1, 1, -1), stride=2, padding=15, output_padding=1)
print("conv_transpose1d upsample", ct.shape, torch.allclose(ct, interp, atol=1e-5))

# resampling a batch of multichannel clips with different targets
clips = torch.randn(2, 3, 64)
for size in [32, 96, 65]:
    r = F.interpolate(clips, size=size, mode="linear", align_corners=False)
    print("clips ->", size, r.shape, r.mean().item().__round__(4), r[1, 2, :2])
print("grad through interpolate")
src = torch.randn(1, 2, 10, requires_grad=True)
F.interpolate(src, scale_factor=2.5, mode="linear").pow(2).sum().backward()
print(src.grad[0, 0, :5], src.grad.shape)
src.grad = None
F.interpolate(src, size=4, mode="area").sum().backward()
print("area grad", src.grad[0, 1])
