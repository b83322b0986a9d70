"""Spectral methods with torch.fft as a numerical analyst writes them: wavenumbers from fftfreq/rfftfreq, spectral
derivatives with rfft/irfft, the 2-D Poisson solve by fft2, fftshift for centred spectra, a pseudo-spectral viscous
Burgers solver with 2/3 dealiasing and an integrating factor, the convolution theorem against conv1d, Parseval's
identity with norm="ortho", windowed power spectra (hann_window, stft), and Chebyshev differentiation matrices."""

import math

import numpy as np
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


N = 32
L = 2 * math.pi
x = torch.arange(N, dtype=f64) * (L / N)
k = torch.fft.fftfreq(N, d=L / N) * 2 * math.pi
kr = torch.fft.rfftfreq(N, d=L / N) * 2 * math.pi
print("fftfreq", k.dtype, r(k, 5), "rfftfreq", kr.shape, r(kr[-3:], 3))
print(
    "fftshift",
    r(torch.fft.fftshift(k), 4),
    "ifftshift roundtrip",
    torch.equal(torch.fft.ifftshift(torch.fft.fftshift(k)), k),
)

u = torch.exp(torch.sin(x))
du_exact = torch.cos(x) * u
U = torch.fft.rfft(u)
print("rfft", U.shape, U.dtype, "U0", round(U[0].real.item(), 4))
du = torch.fft.irfft(1j * kr * U, n=N)
print(
    "spectral d/dx err",
    f"{(du - du_exact).abs().max().item():.1e}" if (du - du_exact).abs().max() > 1e-12 else "< 1e-12",
)
d2u = torch.fft.irfft(-(kr**2) * U, n=N)
print("second derivative err small", bool((d2u - (torch.cos(x) ** 2 - torch.sin(x)) * u).abs().max() < 1e-10))
Uc = torch.fft.fft(u)
print("fft vs rfft", torch.allclose(Uc[: N // 2 + 1], U), "hermitian", torch.allclose(Uc[1:].flip(0), Uc[1:].conj()))
print(
    "ifft real",
    torch.allclose(torch.fft.ifft(Uc).real, u),
    "imag tiny",
    bool(torch.fft.ifft(Uc).imag.abs().max() < 1e-14),
)

# Parseval and normalisations
for norm in ("backward", "ortho", "forward"):
    Un = torch.fft.fft(u, norm=norm)
    print(norm, "energy ratio", round((Un.abs() ** 2).sum().item() / (u**2).sum().item(), 4))
print("ortho roundtrip", torch.allclose(torch.fft.irfft(torch.fft.rfft(u, norm="ortho"), n=N, norm="ortho"), u))

# 2-D Poisson: lap phi = rho on the periodic box
M = 24
g = torch.arange(M, dtype=f64) * (L / M)
X, Y = torch.meshgrid(g, g, indexing="ij")
phi_exact = torch.sin(2 * X) * torch.cos(3 * Y)
rho = -13 * phi_exact
kx = torch.fft.fftfreq(M, d=1.0 / M).to(f64)
KX, KY = torch.meshgrid(kx, kx, indexing="ij")
K2 = KX**2 + KY**2
K2[0, 0] = 1.0
phi_hat = -torch.fft.fft2(rho) / K2
phi_hat[0, 0] = 0
phi = torch.fft.ifft2(phi_hat).real
print(
    "poisson fft2 err",
    f"{(phi - phi_exact).abs().max().item():.1e}" if (phi - phi_exact).abs().max() > 1e-12 else "< 1e-12",
)
R2 = torch.fft.rfft2(rho)
print("rfft2", R2.shape, "irfft2 roundtrip", torch.allclose(torch.fft.irfft2(R2, s=(M, M)), rho))
print(
    "fftn == fft2",
    torch.allclose(torch.fft.fftn(rho), torch.fft.fft2(rho)),
    "dims",
    torch.fft.fftn(rho, dim=(0,)).shape,
)
spec = torch.fft.fftshift(torch.fft.fft2(phi_exact).abs(), dim=(-2, -1))
peaks = (spec > 1).nonzero().tolist()
print("centred peaks", peaks)

# pseudo-spectral viscous Burgers with 2/3 dealiasing and an integrating factor (RK2)
nu = 0.05
Nb = 64
xb = torch.arange(Nb, dtype=f64) * (L / Nb)
kb = torch.fft.rfftfreq(Nb, d=1.0 / Nb).to(f64)
dealias = (kb < (2.0 / 3.0) * (Nb // 2)).to(f64)
uh = torch.fft.rfft(torch.sin(xb))
dt = 0.01
E = torch.exp(-nu * kb**2 * dt)


def nonlinear(uh):
    uu = torch.fft.irfft(uh * dealias, n=Nb)
    return -0.5j * kb * torch.fft.rfft(uu * uu) * dealias


energy = []
for step in range(100):
    n1 = nonlinear(uh)
    u1 = E * (uh + dt * n1)
    uh = E * uh + 0.5 * dt * (E * n1 + nonlinear(u1))
    if step % 25 == 0:
        energy.append(round((torch.fft.irfft(uh, n=Nb) ** 2).mean().item(), 4))
ub = torch.fft.irfft(uh, n=Nb)
print("burgers energy", energy, "max |u|", round(ub.abs().max().item(), 4), "mean", round(ub.mean().item(), 6))
print("steepest gradient at", round(xb[torch.fft.irfft(1j * kb * uh, n=Nb).argmin()].item(), 3))

# convolution theorem: circular convolution by FFT vs conv1d with circular padding
a = torch.from_numpy(np.random.default_rng(0).standard_normal(16))
kern = torch.tensor([0.25, 0.5, 0.25], dtype=f64)
kpad = torch.zeros(16, dtype=f64)
kpad[[15, 0, 1]] = kern
conv_fft = torch.fft.irfft(torch.fft.rfft(a) * torch.fft.rfft(kpad), n=16)
conv_direct = F.conv1d(F.pad(a.view(1, 1, -1), (1, 1), mode="circular"), kern.view(1, 1, 3)).view(-1)
print("convolution theorem", torch.allclose(conv_fft, conv_direct), r(conv_fft, 4))

# windowed power spectrum of a two-tone signal
fs = 64.0
tt = torch.arange(256, dtype=f64) / fs
sig = torch.sin(2 * math.pi * 5 * tt) + 0.5 * torch.sin(2 * math.pi * 12 * tt)
w = torch.hann_window(256, periodic=True, dtype=f64)
P = torch.fft.rfft(sig * w).abs() ** 2
freqs = torch.fft.rfftfreq(256, d=1 / fs)
top = torch.topk(P, 2).indices.sort().values
print("hann", w.dtype, r(w[:3], 3), "peaks at", freqs[top].tolist())
print("windows", r(torch.hamming_window(5, periodic=False), 5), r(torch.blackman_window(4), 4))
S = torch.stft(sig, n_fft=64, hop_length=32, window=torch.hann_window(64, dtype=f64), return_complex=True)
print("stft", S.shape, S.dtype, "peak bins", S.abs().mean(-1).topk(2).indices.sort().values.tolist())
rec = torch.istft(S, n_fft=64, hop_length=32, window=torch.hann_window(64, dtype=f64), length=256)
print(
    "istft err",
    f"{(rec - sig)[32:-32].abs().max().item():.0e}" if (rec - sig)[32:-32].abs().max() > 1e-12 else "< 1e-12",
)

# Chebyshev differentiation matrix (Trefethen's cheb)
n = 12
xc = torch.cos(math.pi * torch.arange(n + 1, dtype=f64) / n)
c = torch.ones(n + 1, dtype=f64)
c[0] = c[-1] = 2
c = c * (-1.0) ** torch.arange(n + 1)
dX = xc[:, None] - xc[None, :]
D = torch.outer(c, 1 / c) / (dX + torch.eye(n + 1, dtype=f64))
D = D - torch.diag(D.sum(1))
fc = torch.exp(xc) * torch.sin(5 * xc)
dfc = D @ fc
print(
    "cheb D",
    D.shape,
    "row sums 0",
    bool(D.sum(1).abs().max() < 1e-10),
    "deriv err",
    f"{(dfc - torch.exp(xc) * (torch.sin(5 * xc) + 5 * torch.cos(5 * xc))).abs().max().item():.0e}",
)
D2 = (D @ D)[1:-1, 1:-1]
ev = torch.linalg.eigvals(D2)
lam = torch.sort(-ev.real).values[:3]
print("cheb eigenvalues", r(lam, 3, 3), "exact", [round((j * math.pi / 2) ** 2, 3) for j in (1, 2, 3)])

try:
    torch.fft.rfft(torch.ones(4, dtype=torch.complex64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.fft(u, dim=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.irfft(U, n=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.fft(u, norm="unitary")
except Exception as e:
    print(type(e).__name__, e)
