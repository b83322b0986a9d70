"""STFT/ISTFT corners: complex input, odd n_fft, istft center/length/return_complex/onesided, NOLA errors."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

x = torch.randn(200, dtype=torch.float64)

# complex input: always two-sided
zc = torch.randn(120, dtype=torch.complex128)
Z = torch.stft(zc, 32, hop_length=8, window=torch.hann_window(32, dtype=torch.float64), return_complex=True)
print("complex stft", Z.shape, Z.dtype, Z[:2, 0])
zr = torch.istft(Z, 32, hop_length=8, window=torch.hann_window(32, dtype=torch.float64), onesided=False,
                 return_complex=True, length=120)
print("complex istft", zr.dtype, zr.shape, round((zr - zc).abs().max().item(), 6))
try:
    torch.stft(zc, 32, return_complex=True, onesided=True)
except RuntimeError as e:
    print("RuntimeError", str(e)[:90])

# odd n_fft and odd window lengths
S = torch.stft(x, 31, hop_length=7, window=torch.hamming_window(31, dtype=torch.float64), return_complex=True)
print("odd n_fft", S.shape, S[0, :3].real, S[15, 2])
y = torch.istft(S, 31, hop_length=7, window=torch.hamming_window(31, dtype=torch.float64), length=200)
print("odd roundtrip", round((y - x).abs().max().item(), 6))

# win_length < n_fft, window centred inside the frame
w = torch.hann_window(20, dtype=torch.float64)
S2 = torch.stft(x, 32, hop_length=5, win_length=20, window=w, return_complex=True)
y2 = torch.istft(S2, 32, hop_length=5, win_length=20, window=w, length=200)
print("win_length roundtrip", S2.shape, round((y2 - x).abs().max().item(), 6))

# center=False keeps only full frames; istft must be told the same
w64 = torch.hann_window(64, periodic=True, dtype=torch.float64)
S3 = torch.stft(x, 64, hop_length=16, window=w64, center=False, return_complex=True)
try:
    torch.istft(S3, 64, hop_length=16, window=w64, center=False)
except RuntimeError as e:
    print("hann is zero at the first sample:", str(e).replace("\n", " "))
wh = torch.hamming_window(64, dtype=torch.float64)
S3 = torch.stft(x, 64, hop_length=16, window=wh, center=False, return_complex=True)
y3 = torch.istft(S3, 64, hop_length=16, window=wh, center=False)
print("center=False", S3.shape, y3.shape)
print("interior match", round((y3[16:-16] - x[16:y3.shape[0] - 16]).abs().max().item(), 6))

# length shorter and longer than the natural output
S4 = torch.stft(x, 64, hop_length=16, window=w64, return_complex=True)
natural = torch.istft(S4, 64, hop_length=16, window=w64)
print("natural length", natural.shape, "short", torch.istft(S4, 64, 16, window=w64, length=150).shape,
      "long", torch.istft(S4, 64, 16, window=w64, length=260).shape)
long = torch.istft(S4, 64, 16, window=w64, length=260)
print("tail past the signal", round(long[200:].abs().max().item(), 4), "beyond the frames",
      long[224:].abs().max().item(), "head matches", torch.allclose(long[:200], x))

# normalized=True is undone by istft(normalized=True)
S5 = torch.stft(x, 64, 16, window=w64, normalized=True, return_complex=True)
print("normalized scale", round((S5.abs() / S4.abs().clamp(min=1e-12)).median().item(), 6), 1 / math.sqrt(64))
print("normalized roundtrip", round((torch.istft(S5, 64, 16, window=w64, normalized=True, length=200) - x).abs()
                                     .max().item(), 6))

# batched and with the hop defaulting to n_fft // 4
xb = torch.randn(3, 150)
Sb = torch.stft(xb, 48, window=torch.hann_window(48), return_complex=True)
print("batched default hop", Sb.shape, torch.istft(Sb, 48, window=torch.hann_window(48), length=150).shape)
print("batched equals loop", torch.allclose(Sb[1], torch.stft(xb[1], 48, window=torch.hann_window(48),
                                                              return_complex=True)))

# spectrogram manipulations: masking then inverting
mask = (S4.abs() > S4.abs().median()).to(S4.dtype)
den = torch.istft(S4 * mask, 64, 16, window=w64, length=200)
print("masked", round(den.pow(2).sum().item() / x.pow(2).sum().item(), 4), mask.real.mean().item())

# errors
w_bad = torch.zeros(64, dtype=torch.float64)
for name, fn in [
    ("NOLA", lambda: torch.istft(S4, 64, 16, window=w_bad)),
    ("window size", lambda: torch.istft(S4, 64, 16, window=torch.ones(10, dtype=torch.float64))),
    ("real input", lambda: torch.istft(torch.view_as_real(S4), 64, 16, window=w64)),
    ("n_fft mismatch", lambda: torch.istft(S4, 128, 16, window=torch.hann_window(128, dtype=torch.float64))),
    ("hop too big", lambda: torch.stft(x, 32, hop_length=40, window=torch.hann_window(32, dtype=torch.float64),
                                       return_complex=True)),
    ("win_length > n_fft", lambda: torch.stft(x, 32, win_length=40, return_complex=True)),
    ("3d input", lambda: torch.stft(torch.randn(2, 2, 100), 32, return_complex=True)),
    ("return_complex onesided", lambda: torch.istft(S4, 64, 16, window=w64, return_complex=True)),
]:
    try:
        r = fn()
        print(name, "ok", tuple(r.shape))
    except RuntimeError as e:
        print(name, "RuntimeError", str(e).splitlines()[0][:100])
