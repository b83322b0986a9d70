"""Griffin-Lim phase reconstruction as Tacotron's first vocoder: mel-to-linear by a pseudo-inverse filterbank,
power and preemphasis, random phases through torch.polar and exp(1j * angle), istft/stft iterations with momentum,
spectral convergence per iteration, and the complex-tensor APIs it touches (angle, abs, view_as_real, conj)."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(15)
torch.set_printoptions(precision=4, sci_mode=False)
N_FFT, HOP = 32, 8
window = torch.hann_window(N_FFT, dtype=torch.float64)


def stft(y):
    return torch.stft(y, N_FFT, HOP, window=window, return_complex=True)


def istft(s, length):
    return torch.istft(s, N_FFT, HOP, window=window, length=length)


def griffin_lim(mag, n_iter=8, momentum=0.99, length=None):
    angles = torch.polar(torch.ones_like(mag), 2 * math.pi * torch.rand(mag.shape, dtype=mag.dtype))
    tprev = torch.zeros_like(angles)
    errors = []
    for _ in range(n_iter):
        inverse = istft(mag * angles, length)
        rebuilt = stft(inverse)
        angles = rebuilt - (momentum / (1 + momentum)) * tprev
        angles = angles.div(angles.abs().add(1e-16))
        tprev = rebuilt
        errors.append(torch.linalg.norm(rebuilt.abs() - mag) / torch.linalg.norm(mag))
    return istft(mag * angles, length), torch.stack(errors)


t = torch.arange(256, dtype=torch.float64) / 1000
y = torch.sin(2 * math.pi * 60 * t) + 0.5 * torch.sin(2 * math.pi * 150 * t)
y = torch.cat([y[:1], y[1:] - 0.97 * y[:-1]])  # preemphasis
spec = stft(y)
mag = spec.abs()
print(spec.dtype, mag.dtype, spec.shape, torch.angle(spec).dtype)
print(torch.allclose(torch.polar(mag, torch.angle(spec)), spec), torch.allclose(istft(spec, 256), y))
rec, errs = griffin_lim(mag, length=256)
print(rec.shape, rec.dtype, (errs[1:] <= errs[:-1] + 1e-9).all().item(), errs[-1].item() < errs[0].item())
print("final error below", errs[-1].item() < 0.5)

# Mel to linear through the pseudo-inverse of a triangular filterbank, power 1.5 as Tacotron.
n_freq, n_mels = N_FFT // 2 + 1, 6
centers = torch.linspace(0, n_freq - 1, n_mels + 2, dtype=torch.float64)
freqs = torch.arange(n_freq, dtype=torch.float64)
lo, mid, hi = centers[:-2, None], centers[1:-1, None], centers[2:, None]
fb = torch.clamp(torch.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)), min=0)
mel = fb @ mag
inv = torch.linalg.pinv(fb)
lin = torch.clamp(inv @ mel, min=1e-10)
print(fb.shape, inv.shape, lin.shape, round((fb @ inv @ fb - fb).abs().max().item(), 10))
print(torch.linalg.lstsq(fb, mel).solution.shape, torch.linalg.matrix_rank(fb).item())
lin = lin**1.5
print(lin.min().item() > 0, round(lin.max().item(), 4))

# Complex APIs on the way.
z = torch.tensor([1 + 1j, -1 + 0j, 0j, -0.0 - 1j], dtype=torch.complex128)
print(torch.angle(z), torch.angle(torch.tensor([-1.0, 0.0, 2.0])), torch.angle(torch.tensor([-2, 3])))
print(z.abs(), z.conj(), z.conj().is_conj(), torch.view_as_real(z.conj().resolve_conj()))
print(torch.polar(torch.tensor([2.0]), torch.tensor([math.pi / 2])), torch.exp(1j * torch.tensor([0.0, math.pi])))
print((z / z.abs().add(1e-16)).abs(), torch.sgn(z), torch.sign(z.real))
try:
    torch.polar(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.view_as_real(z.conj())
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.istft(mag, N_FFT, HOP, window=window)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.istft(spec, N_FFT, HOP, window=torch.ones(N_FFT, dtype=torch.float64), center=False)
except RuntimeError as e:
    print(type(e).__name__, str(e)[-60:])
print(F.pad(torch.view_as_real(spec), (0, 0, 0, 1)).shape, torch.view_as_complex(torch.view_as_real(spec)).equal(spec))
