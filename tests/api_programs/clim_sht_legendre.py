"""Spherical harmonic transforms as SFNO/torch-harmonics compute them: Gauss-Legendre nodes by Golub-Welsch (eigh),
associated Legendre functions by recurrence, forward/inverse SHT by rfft over longitude and einsum, filters."""

import math

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)
nlat, nlon, lmax = 6, 12, 5


def gauss_legendre(n):
    k = torch.arange(1, n, dtype=torch.float64)
    beta = k / torch.sqrt(4 * k**2 - 1)
    J = torch.diag(beta, 1) + torch.diag(beta, -1)
    nodes, vecs = torch.linalg.eigh(J)
    return nodes, 2 * vecs[0] ** 2


x, w = gauss_legendre(nlat)
print("nodes", x, "weights", w, round(w.sum().item(), 10))
print("exact x^4", round((w * x**4).sum().item(), 10), 2 / 5)
print(
    "legendre P3",
    torch.special.legendre_polynomial_p(x, 3),
    torch.special.legendre_polynomial_p(x, torch.tensor(0)).dtype,
)
print(
    "orthogonal",
    round((w * torch.special.legendre_polynomial_p(x, 2) * torch.special.legendre_polynomial_p(x, 4)).sum().item(), 10),
)


def legendre_table(lmax, mmax, x):
    """Orthonormal P_l^m(x) as (mmax, lmax, nlat), Condon-Shortley phase."""
    P = torch.zeros(mmax, lmax, x.shape[0], dtype=x.dtype)
    s = torch.sqrt(1 - x**2)
    P[0, 0] = math.sqrt(1 / (4 * math.pi))
    for m in range(1, mmax):
        P[m, m] = -math.sqrt((2 * m + 1) / (2 * m)) * s * P[m - 1, m - 1]
    for m in range(0, mmax):
        if m + 1 < lmax:
            P[m, m + 1] = math.sqrt(2 * m + 3) * x * P[m, m]
        for l in range(m + 2, lmax):
            a = math.sqrt((4 * l * l - 1) / (l * l - m * m))
            b = math.sqrt(((l - 1) ** 2 - m * m) / (4 * (l - 1) ** 2 - 1))
            P[m, l] = a * (x * P[m, l - 1] - b * P[m, l - 2])
    return P


P = legendre_table(lmax, lmax, x)
print("table", P.shape, P.dtype, P[1, 1], P[2, :2].abs().sum().item())
gram = torch.einsum("mlk,mnk,k->mln", P, P, w) * 2 * math.pi
print(
    "gram diag",
    torch.diagonal(gram, dim1=-2, dim2=-1)[0],
    torch.allclose(gram[1, 1:, 1:], torch.eye(lmax - 1, dtype=torch.float64)),
)


def sht(f):
    fm = torch.fft.rfft(f, dim=-1, norm="forward")[..., :lmax] * 2 * math.pi
    return torch.einsum("...km,mlk,k->...lm", fm, P.to(fm.dtype), w.to(fm.dtype))


def isht(c):
    fm = torch.einsum("...lm,mlk->...km", c, P.to(c.dtype))
    return torch.fft.irfft(fm, n=nlon, dim=-1, norm="forward")


lat = torch.asin(x)
lon = torch.arange(nlon, dtype=torch.float64) * 2 * math.pi / nlon
LA, LO = torch.meshgrid(lat, lon, indexing="ij")
f = 1 + torch.sin(LA) + torch.cos(LA) * torch.cos(LO) + torch.cos(LA) ** 2 * torch.sin(2 * LO)
c = sht(f)
print("coeffs", c.shape, c.dtype, c.abs().gt(1e-10).nonzero().tolist())
print("c00", round(c[0, 0].real.item(), 4), "c11", round(c[1, 1].real.item(), 4), abs(c[1, 1].imag.item()) < 1e-12)
rec = isht(c)
print("roundtrip", torch.allclose(rec, f, atol=1e-10), rec.dtype, rec.shape)
power = (c.abs() ** 2).sum(-1)
print("power per l", power.round(decimals=6))
batch = torch.stack([f, 2 * f, f.flip(0)]).float()
cb = sht(batch.double())
print("batched", cb.shape, cb.dtype, torch.allclose(cb[1], 2 * c, atol=1e-5))
lgrid = torch.arange(lmax, dtype=torch.float64).view(-1, 1)
lap = isht(-lgrid * (lgrid + 1) * c)
print("laplacian", lap[2, :4].round(decimals=4))
filt = torch.exp(-((lgrid / lmax) ** 4) * 36.0)
smooth = isht(c * filt)
print("filtered", round((smooth - f).abs().max().item(), 4), filt.flatten().round(decimals=4).tolist())
rot = c * torch.polar(torch.ones(lmax, dtype=torch.float64), -torch.arange(lmax, dtype=torch.float64) * math.pi / 6)
print("rotated", torch.allclose(isht(rot), torch.roll(f, 1, dims=-1), atol=1e-10))
print(
    "angle", torch.angle(c[2, 2]).item() if c[2, 2].abs() > 1e-12 else None, torch.angle(torch.tensor([-1.0, 0.0, 2.0]))
)
try:
    torch.linalg.eigh(torch.randn(3, 4))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.einsum("...km,mlk->...lm", torch.ones(2, 3, dtype=torch.cfloat), P)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.polar(torch.ones(2, dtype=torch.float64), torch.ones(2))
except RuntimeError as e:
    print(type(e).__name__, e)
print("non-integer n", torch.special.legendre_polynomial_p(x[:2], 2.5), torch.special.legendre_polynomial_p(x[:2], -1))
