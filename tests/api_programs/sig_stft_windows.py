"""STFT/ISTFT as audio front ends call them: every window builder, center and pad modes, onesided, errors."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

for name in ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]:
    fn = getattr(torch, name)
    w_per, w_sym = fn(6), fn(6, periodic=False)
    print(name, w_per.dtype, w_per, w_sym)
print("hamming alpha/beta", torch.hamming_window(5, periodic=False, alpha=0.5, beta=0.5))
print("kaiser", torch.kaiser_window(6), torch.kaiser_window(6, periodic=False, beta=8.0))
print("window float64", torch.hann_window(4, dtype=torch.float64))
print("window length 1", torch.hann_window(1), torch.kaiser_window(1), torch.blackman_window(1))
print("window requires_grad", torch.hann_window(3, requires_grad=True).requires_grad)

sr = 800
t = torch.arange(1600) / sr
chirp = torch.sin(2 * math.pi * (50 * t + 60 * t**2))
noise = 0.05 * torch.randn(1600)
x = chirp + noise
print("signal", x.shape, x[:5])

n_fft, hop = 128, 32
win = torch.hann_window(n_fft)
S = torch.stft(x, n_fft, hop_length=hop, window=win, return_complex=True)
print("stft", S.shape, S.dtype)
mag = S.abs()
print("frame energy / 1e3", mag.pow(2).sum(0)[:6] / 1000)
ridge = mag.argmax(0) * sr / n_fft
print("ridge Hz", ridge[::8])
y = torch.istft(S, n_fft, hop_length=hop, window=win, length=x.shape[-1])
print("istft", y.shape, round((y - x).abs().max().item(), 4))

# center and pad modes
for mode in ["reflect", "constant", "replicate", "circular"]:
    Sm = torch.stft(x, 64, hop_length=64, window=torch.hamming_window(64), pad_mode=mode, return_complex=True)
    print("pad", mode, Sm.shape, Sm[:4, 0].abs())
Sn = torch.stft(x, 64, hop_length=16, window=torch.hann_window(64), center=False, return_complex=True)
print("center=False", Sn.shape, Sn[:3, 2])

# win_length shorter than n_fft: the window is zero padded in the middle
Sw = torch.stft(x, 64, hop_length=16, win_length=40, window=torch.blackman_window(40), return_complex=True)
print("win_length", Sw.shape, Sw[10, :3].abs())
# default window (rectangular) and default hop n_fft // 4
Sd = torch.stft(x[:256], 32, return_complex=True)
print("defaults", Sd.shape, Sd[:3, 1])

# normalized, onesided=False, batched, double
Sb = torch.stft(torch.stack([x, 2 * x]), 64, hop_length=32, window=torch.hann_window(64),
                normalized=True, onesided=False, return_complex=True)
print("batched twosided", Sb.shape, Sb[1, 5, 3] / Sb[0, 5, 3])
print("hermitian", (Sb[0, 1:32, 4] - Sb[0, 33:, 4].flip(0).conj()).abs().max().item() < 1e-4)
Sdd = torch.stft(x.double(), 64, window=torch.hann_window(64, dtype=torch.float64), return_complex=True)
print("double", Sdd.dtype, Sdd.shape)
yb = torch.istft(Sb, 64, hop_length=32, window=torch.hann_window(64), normalized=True, onesided=False,
                 length=1600)
print("istft twosided", yb.dtype, yb.shape, round((yb[0].real - x).abs().max().item(), 4))

# return_complex=False is an error for real input; view_as_real gives the old layout
Sr = torch.view_as_real(torch.stft(x[:200], 32, window=torch.hann_window(32), return_complex=True))
print("view_as_real layout", Sr.shape, Sr[3, 2])

# kaiser STFT and a window from torch.signal.windows
Sk = torch.stft(x, 100, hop_length=50, window=torch.kaiser_window(100, True, 6.0), return_complex=True)
print("kaiser stft", Sk.shape, round(Sk.abs().max().item(), 4))
if hasattr(torch, "signal"):
    gw = torch.signal.windows.gaussian(64, std=10.0)
    Sg = torch.stft(x, 64, hop_length=16, window=gw, return_complex=True)
    print("gaussian window stft", Sg.shape, gw[:3], round(Sg.abs().mean().item(), 4))

# power spectrogram to dB
P = mag.pow(2)
db = 10 * torch.log10(torch.clamp(P, min=1e-10))
db = torch.maximum(db, db.max() - 80.0)
print("dB range", round(db.min().item(), 2), round(db.max().item(), 4))

# errors users hit
errs = [
    lambda: torch.stft(x, 64),
    lambda: torch.stft(x, 64, window=torch.hann_window(32), return_complex=True),
    lambda: torch.stft(x, 4000, return_complex=True, center=False),
    lambda: torch.stft(x, 64, hop_length=0, return_complex=True),
    lambda: torch.istft(S, n_fft, hop_length=hop),
    lambda: torch.hann_window(-1),
    lambda: torch.kaiser_window(100, beta=6.0),
]
for fn in errs:
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:110])
