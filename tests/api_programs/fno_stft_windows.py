"""Short-time Fourier transforms as spectrogram code writes them: stft/istft over hann/hamming/blackman/kaiser/
bartlett windows, center and pad modes, onesided, normalized, win_length < n_fft, length=, and the errors."""

import math

import torch

torch.manual_seed(0)
sr = 400
t = torch.arange(0, 1, 1 / sr)
sig = torch.sin(2 * math.pi * 40 * t) + 0.5 * torch.sin(2 * math.pi * 97 * t) * (t > 0.5)
sig = sig + 0.01 * torch.cos(2 * math.pi * 150 * t)
batch = torch.stack([sig, sig.flip(0)])
print("signal", tuple(batch.shape), round(batch.sum().item(), 4))

for wname, win in [("hann", torch.hann_window(64)), ("hamming", torch.hamming_window(64, periodic=False)),
                   ("blackman", torch.blackman_window(64)), ("kaiser", torch.kaiser_window(64, True, 8.0)),
                   ("bartlett", torch.bartlett_window(64))]:
    S = torch.stft(batch, n_fft=64, hop_length=16, window=win, return_complex=True)
    mag = S.abs()
    print(wname, tuple(S.shape), S.dtype, round(win.sum().item(), 4), round(mag.mean().item(), 4),
          mag[0].argmax(0)[:6].tolist())

win = torch.hann_window(64)
for pad_mode in ("reflect", "constant", "replicate", "circular"):
    S = torch.stft(sig, 64, 16, window=win, pad_mode=pad_mode, return_complex=True)
    print("pad", pad_mode, round(S.abs()[:, 0].sum().item(), 4), round(S.abs()[:, -1].sum().item(), 4))
S_nc = torch.stft(sig, 64, 16, window=win, center=False, return_complex=True)
print("center False", tuple(S_nc.shape))
S_two = torch.stft(sig, 64, 16, window=win, onesided=False, return_complex=True)
print("twosided", tuple(S_two.shape), torch.allclose(S_two[1:32], S_two[33:].flip(0).conj(), atol=1e-4))
S_norm = torch.stft(sig, 64, 16, window=win, normalized=True, return_complex=True)
S_plain = torch.stft(sig, 64, 16, window=win, return_complex=True)
print("normalized", round((S_plain.abs() / S_norm.abs().clamp_min(1e-9))[5, 5].item(), 4))
S_short = torch.stft(sig, 64, 16, win_length=32, window=torch.hann_window(32), return_complex=True)
print("win_length", tuple(S_short.shape), round(S_short.abs().mean().item(), 4))
S_def = torch.stft(sig, 64, return_complex=True)
print("defaults", tuple(S_def.shape), round(S_def.abs().mean().item(), 4))
S_real = torch.view_as_real(torch.stft(sig, 64, 16, window=win, return_complex=True))
print("as real", tuple(S_real.shape))

S = torch.stft(batch, 64, 16, window=win, return_complex=True)
y = torch.istft(S, 64, 16, window=win, length=batch.shape[-1])
print("istft", tuple(y.shape), round((y - batch).abs().max().item(), 4))
y2 = torch.istft(S, 64, 16, window=win)
print("istft nolength", tuple(y2.shape))
y3 = torch.istft(torch.stft(sig, 64, 16, window=win, normalized=True, return_complex=True), 64, 16, window=win,
                 normalized=True, length=400)
print("istft normalized", round((y3 - sig).abs().max().item(), 4))
y4 = torch.istft(S_two, 64, 16, window=win, onesided=False, return_complex=True)
print("istft twosided", y4.dtype, tuple(y4.shape), round(y4.real[:8].sub(sig[:8]).abs().max().item(), 4))

xs = sig.clone().requires_grad_(True)
spec = torch.stft(xs, 64, 16, window=win, return_complex=True)
logmag = torch.log1p(spec.abs())
logmag.mean().backward()
print("grad", round(xs.grad.abs().sum().item(), 4), spec.grad_fn.name())
phase = torch.angle(spec)
strong = spec.abs()[:, 1:] > 1
print("phase", round(phase[3, :5].sum().item(), 4), round(torch.cos(torch.diff(phase, dim=1))[strong].mean().item(), 4))
dbl = torch.stft(sig.double(), 64, 16, window=win.double(), return_complex=True)
print("double", dbl.dtype)

for name, fn in [
    ("no return_complex", lambda: torch.stft(sig, 64, 16, window=win)),
    ("nfft too big", lambda: torch.stft(sig[:20], 64, 16, window=win, center=False, return_complex=True)),
    ("bad window", lambda: torch.stft(sig, 64, 16, window=torch.hann_window(50), return_complex=True)),
    ("hop 0", lambda: torch.stft(sig, 64, 0, window=win, return_complex=True)),
    ("istft real", lambda: torch.istft(S_real, 64, 16, window=win)),
    ("3d", lambda: torch.stft(batch.unsqueeze(0), 64, return_complex=True)),
    ("win_length", lambda: torch.stft(sig, 64, win_length=80, return_complex=True)),
]:
    try:
        r = fn()
        print(name, "ok", tuple(r.shape))
    except Exception as e:
        print(name, type(e).__name__, e)
