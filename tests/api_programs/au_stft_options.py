"""torch.stft/istft as audio front ends call them: every window factory with periodic on and off, center with each
pad_mode, onesided and normalized, real vs complex inputs, return_complex=False's legacy layout, round trips with
length=, and the errors users meet when the arguments disagree."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
SR = 16000


def tone(n, freqs, sr=SR):
    t = torch.arange(n, dtype=torch.float32) / sr
    return sum(torch.sin(2 * math.pi * f * t) * (0.5 ** k) for k, f in enumerate(freqs))


x = tone(2048, [440.0, 1250.0, 3000.0]) + 0.01 * torch.randn(2048)
print("signal", x.shape, x.dtype, round(x.abs().max().item(), 4), round(x.mean().item(), 4))

for name in ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]:
    for periodic in (True, False):
        w = getattr(torch, name)(8, periodic=periodic)
        print(name, periodic, w.dtype, [round(v, 4) for v in w.tolist()])
kw = torch.kaiser_window(8, periodic=True, beta=8.0)
print("kaiser beta=8", [round(v, 4) for v in kw.tolist()])
kw2 = torch.kaiser_window(7, False, 5.0, dtype=torch.float64)
print("kaiser sym", kw2.dtype, [round(v, 4) for v in kw2.tolist()])
print("hamming alpha/beta", [round(v, 4) for v in torch.hamming_window(6, True, 0.5, 0.5).tolist()])
print("empty/one", torch.hann_window(0).shape, torch.hann_window(1).tolist())

n_fft, hop = 256, 64
win = torch.hann_window(n_fft)
for pad_mode in ["reflect", "constant", "replicate", "circular"]:
    S = torch.stft(x, n_fft, hop_length=hop, window=win, pad_mode=pad_mode, return_complex=True)
    mag = S.abs()
    print(pad_mode, tuple(S.shape), S.dtype, round(mag[:, 0].sum().item(), 3), round(mag[:, -1].sum().item(), 3))

S_nc = torch.stft(x, n_fft, hop_length=hop, window=win, center=False, return_complex=True)
print("center=False", tuple(S_nc.shape), "frames", 1 + (2048 - n_fft) // hop)
S_ts = torch.stft(x, n_fft, hop_length=hop, window=win, onesided=False, return_complex=True)
print("twosided", tuple(S_ts.shape), "conj sym", torch.allclose(S_ts[1:n_fft // 2],
                                                              S_ts[n_fft // 2 + 1:].flip(0).conj(), atol=1e-3))
S_n = torch.stft(x, n_fft, hop_length=hop, window=win, normalized=True, return_complex=True)
S_u = torch.stft(x, n_fft, hop_length=hop, window=win, return_complex=True)
print("normalized ratio", round((S_u.abs().sum() / S_n.abs().sum()).item(), 4), "sqrt n_fft", round(n_fft ** 0.5, 4))

peak = S_u.abs().mean(dim=1).argmax().item()
print("peak bin", peak, "Hz", round(peak * SR / n_fft, 1))

legacy = torch.stft(x, n_fft, hop_length=hop, window=win, return_complex=False)
print("return_complex=False", tuple(legacy.shape), legacy.dtype,
      torch.allclose(torch.view_as_complex(legacy), S_u))

# win_length shorter than n_fft: the window is zero-padded to the centre
S_wl = torch.stft(x, 512, hop_length=128, win_length=256, window=torch.hann_window(256), return_complex=True)
print("win_length", tuple(S_wl.shape), round(S_wl.abs().max().item(), 3))

# round trips
for length in [2048, 2000, None]:
    y = torch.istft(S_u, n_fft, hop_length=hop, window=win, length=length)
    m = min(y.numel(), 2048)
    print("istft length", length, tuple(y.shape), "close", (y[:m] - x[:m]).abs().max().item() < 1e-5)
y_n = torch.istft(S_n, n_fft, hop_length=hop, window=win, normalized=True, length=2048)
print("normalized round trip", round((y_n - x).abs().max().item(), 4))
y_ts = torch.istft(S_ts, n_fft, hop_length=hop, window=win, onesided=False, length=2048)
print("twosided round trip", y_ts.dtype, round((y_ts - x).abs().max().item(), 4))
y_c = torch.istft(S_ts, n_fft, hop_length=hop, window=win, onesided=False, return_complex=True, length=2048)
print("complex istft", y_c.dtype, round(y_c.imag.abs().max().item(), 4))

# batched and complex input
xb = torch.stack([x, x.flip(0), torch.roll(x, 100)])
Sb = torch.stft(xb, n_fft, hop_length=hop, window=win, return_complex=True)
print("batched", tuple(Sb.shape), torch.allclose(Sb[0], S_u, atol=1e-4))
yb = torch.istft(Sb, n_fft, hop_length=hop, window=win, length=2048)
print("batched istft", tuple(yb.shape), round((yb - xb).abs().max().item(), 4))
xc = torch.complex(x, x.flip(0))
Sc = torch.stft(xc, n_fft, hop_length=hop, window=win, return_complex=True)
print("complex input", tuple(Sc.shape), Sc.dtype)
x64 = x.double()
S64 = torch.stft(x64, n_fft, hop_length=hop, window=win.double(), return_complex=True)
print("float64", S64.dtype, round((S64.abs().float() - S_u.abs()).abs().max().item(), 3))

# gradients through the magnitude
xg = x[:512].clone().requires_grad_(True)
P = torch.stft(xg, 128, hop_length=32, window=torch.hann_window(128), return_complex=True).abs().pow(2)
P.sum().backward()
g = xg.grad
print("grad", tuple(g.shape), round(g.abs().sum().item() / 1e4, 3), [round(v, 4) for v in g[:3].tolist()])


def show(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:150])


show(lambda: torch.stft(x, 256, hop_length=64, window=win))
show(lambda: torch.stft(x, 256, window=torch.hann_window(200), return_complex=True))
show(lambda: torch.stft(x[:100], 256, center=False, return_complex=True))
show(lambda: torch.stft(x, 256, hop_length=0, return_complex=True))
show(lambda: torch.istft(S_u, 256, hop_length=64, window=torch.ones(256) * 0, length=2048))
show(lambda: torch.istft(S_u.real, 256, hop_length=64))
show(lambda: torch.stft(x.view(1, 1, -1), 256, return_complex=True))
