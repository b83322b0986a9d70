"""signal processing: STFT/ISTFT round trips, windows, FFT convolution and shifts, spectra, filtering."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4)


def r(x, k=6):
    x = x.detach()
    if x.is_complex():
        x = torch.view_as_real(x.resolve_conj())
    return np.round(x.double().flatten()[:k].numpy(), 4).tolist()


t = torch.arange(256, dtype=torch.float64) / 64.0
sig = torch.sin(2 * math.pi * 5 * t) + 0.5 * torch.cos(2 * math.pi * 12 * t) + 0.1 * torch.sin(2 * math.pi * 30 * t)
sig32 = sig.float()
for name in ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]:
    w = getattr(torch, name)(8)
    print(name, r(w, 8), r(getattr(torch, name)(8, periodic=False), 8))
print("kaiser", r(torch.kaiser_window(8, True, 5.0), 8), r(torch.kaiser_window(7, periodic=False), 7))
W = torch.signal.windows
print("signal.windows", r(W.gaussian(7, std=1.5), 7), r(W.cosine(6), 6), r(W.exponential(6, tau=2.0), 6))
print(
    "signal.windows 2",
    r(W.hann(6, sym=False), 6),
    r(W.general_hamming(6, alpha=0.6), 6),
    r(W.nuttall(6), 6),
    r(W.kaiser(6, beta=4.0), 6),
)
print("window dtype", torch.hann_window(4, dtype=torch.float64).dtype, torch.hann_window(1), torch.hann_window(0).shape)
win = torch.hann_window(64, dtype=torch.float64)
S = torch.stft(sig, n_fft=64, hop_length=16, window=win, return_complex=True)
print("stft", S.shape, S.dtype, r(S.abs().amax(dim=1)), r(S[:, 3].abs(), 8))
print("peak bins", S.abs().mean(dim=1).topk(3).indices.sort().values)
y = torch.istft(S, n_fft=64, hop_length=16, window=win, length=256)
print("istft roundtrip", r((y - sig).abs().max().reshape(1)), y.shape)
S2 = torch.stft(
    sig32, n_fft=32, hop_length=8, win_length=24, window=torch.hann_window(24), center=False, return_complex=True
)
print("stft nocenter", S2.shape, r(S2[:, 0].abs(), 8))
S3 = torch.stft(sig32, 16, hop_length=16, window=torch.ones(16), onesided=False, return_complex=True, normalized=True)
print("stft twosided", S3.shape, r(S3[:, 1].abs(), 8))
S4 = torch.stft(sig32, 32, hop_length=8, window=torch.hann_window(32), pad_mode="constant", return_complex=True)
print("stft constant pad", S4.shape, r(S4[:, 0].abs(), 6))
print(
    "stft batch", torch.stft(torch.stack([sig32, -sig32]), 32, window=torch.hann_window(32), return_complex=True).shape
)
y3 = torch.istft(S3, 16, hop_length=16, window=torch.ones(16), onesided=False, normalized=True, center=True)
print(
    "istft twosided",
    y3.dtype,
    y3.shape,
    r((y3.real - sig32[: y3.shape[0]]).abs().max().reshape(1))
    if y3.is_complex()
    else r((y3 - sig32[: y3.shape[0]]).abs().max().reshape(1)),
)
try:
    torch.stft(sig32, 32)
except RuntimeError as e:
    print("stft needs return_complex", str(e)[:80])
F = torch.fft.rfft(sig)
freqs = torch.fft.rfftfreq(256, d=1 / 64.0)
print("rfft peaks", freqs[F.abs().topk(3).indices], r(F.abs()[[20, 48, 120]]))
print("fftfreq", torch.fft.fftfreq(8), torch.fft.fftfreq(5, d=0.5))
x = torch.arange(8.0)
print(
    "fftshift",
    torch.fft.fftshift(x),
    torch.fft.ifftshift(torch.fft.fftshift(x)),
    torch.fft.fftshift(torch.arange(6).reshape(2, 3), dim=1),
)
print("fftshift 2d", torch.fft.fftshift(torch.arange(9).reshape(3, 3)))
a = torch.tensor([1.0, 2.0, 3.0, 4.0])
k = torch.tensor([0.25, 0.5, 0.25])
n = a.numel() + k.numel() - 1
conv_fft = torch.fft.irfft(torch.fft.rfft(a, n=n) * torch.fft.rfft(k, n=n), n=n)
conv_direct = torch.nn.functional.conv1d(a.view(1, 1, -1), k.flip(0).view(1, 1, -1), padding=2).flatten()
print("fft conv", r(conv_fft, 8), r(conv_direct, 8))
print("np convolve", np.round(np.convolve(a.numpy(), k.numpy()), 4).tolist())
img = torch.arange(16.0).reshape(4, 4)
ker = torch.zeros(4, 4)
ker[0, 0], ker[0, 1], ker[1, 0] = 0.5, 0.25, 0.25
circ = torch.fft.irfft2(torch.fft.rfft2(img) * torch.fft.rfft2(ker), s=img.shape)
print("circular conv2d", r(circ, 8))
print(
    "fft norms",
    r(torch.fft.fft(a, norm="ortho")),
    r(torch.fft.fft(a, norm="forward")),
    r(torch.fft.ifft(torch.fft.fft(a)).real),
)
print("hfft", r(torch.fft.hfft(torch.tensor([1.0, 2.0, 3.0]) + 0j)), r(torch.fft.ihfft(a)))
print(
    "fftn",
    r(torch.fft.fftn(img, s=(2, 2))),
    r(torch.fft.fft2(img).abs().sum(0)),
    torch.fft.rfftn(torch.ones(2, 3, 4)).shape,
)
print(
    "fft of int", torch.fft.fft(torch.tensor([1, 2, 3])).dtype, torch.fft.rfft(torch.ones(4, dtype=torch.float64)).dtype
)
psd = (F.abs() ** 2) / 256
print("psd", r(psd[[5 * 4, 12 * 4, 30 * 4]]), r(psd.sum().reshape(1)), r((sig**2).sum().reshape(1)))
b = torch.tensor([0.2, 0.2, 0.2, 0.2, 0.2])
smooth = torch.nn.functional.conv1d(sig32.view(1, 1, -1), b.view(1, 1, -1), padding="same").flatten()
print("moving avg", r(smooth, 6))
unf = sig32[:20].unfold(0, 5, 5)
print("unfold frames", unf.shape, r(unf.mean(1), 4))
env = torch.fft.ifft(
    torch.fft.fft(sig) * torch.cat([torch.ones(1), 2 * torch.ones(127), torch.ones(1), torch.zeros(127)])
).abs()
print("hilbert envelope", r(env[100:106]))
print("diff/cumsum", r(torch.diff(sig32[:8])), r(torch.cumsum(sig32[:6], 0)))
corr = torch.fft.irfft(torch.fft.rfft(sig32) * torch.fft.rfft(sig32).conj(), n=256)
print("autocorr", r(corr[:4] / corr[0]), int(corr[1:128].argmax()) + 1)
print(
    "complex ops",
    r(torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.0, math.pi / 2]))),
    r(torch.angle(F[[0, 20]])),
)
