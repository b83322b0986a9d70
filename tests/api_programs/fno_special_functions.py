"""torch.special as scientific-ML code uses it: Bessel kernels for radial basis features (DimeNet/SchNet), the
spherical Bessel envelope, incomplete gamma CDFs, log_ndtr/ndtri for Gaussian tails, erfcx for stable Mills ratios,
zeta/polygamma series, xlog1py entropies, which of them PyTorch differentiates, 16-bit inputs, and misuse."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)
sp = torch.special


def r(t, k=6):
    return [round(v, 4) if math.isfinite(v) else v for v in t.detach().double().flatten()[:k].tolist()]


class BesselBasis(nn.Module):
    """DimeNet's radial basis: sqrt(2/c) sin(n pi d / c) / d, with a polynomial envelope."""

    def __init__(self, num_radial=6, cutoff=5.0, p=6):
        super().__init__()
        self.cutoff, self.p = cutoff, p
        self.freq = nn.Parameter(torch.arange(1, num_radial + 1).float() * math.pi)

    def envelope(self, x):
        p = self.p
        a, b, c = -(p + 1) * (p + 2) / 2, p * (p + 2), -p * (p + 1) / 2
        return 1 / x + a * x ** (p - 1) + b * x**p + c * x ** (p + 1)

    def forward(self, dist):
        d = (dist / self.cutoff).unsqueeze(-1)
        return self.envelope(d) * torch.sin(self.freq * d)


dist = torch.tensor([0.5, 1.0, 2.5, 4.9])
basis = BesselBasis()
rb = basis(dist)
print("bessel basis", tuple(rb.shape), r(rb), rb.grad_fn.name())
rb.sum().backward()
print("freq grad", r(basis.freq.grad))
x = torch.linspace(0.25, 6.0, 6)
print("j0 j1", r(sp.bessel_j0(x)), r(sp.bessel_j1(x)))
print("y0 y1", r(sp.bessel_y0(x)), r(sp.bessel_y1(x)))
print(
    "i0 i1 k0 k1",
    r(sp.modified_bessel_i0(x), 3),
    r(sp.modified_bessel_i1(x), 3),
    r(sp.modified_bessel_k0(x), 3),
    r(sp.modified_bessel_k1(x), 3),
)
print("scaled", r(sp.scaled_modified_bessel_k0(x), 3), r(sp.i0e(x), 3), r(sp.i1e(x), 3))
print("spherical j0", r(sp.spherical_bessel_j0(x)), r(torch.sin(x) / x))
print("airy", r(sp.airy_ai(torch.tensor([-2.0, 0.0, 1.0, 3.0]))))

a = torch.tensor([0.5, 2.0, 5.0])
xs = torch.tensor([1.0, 2.0, 3.0])
print("gammainc", r(sp.gammainc(a, xs)), r(sp.gammaincc(a, xs)), r(sp.gammainc(a, xs) + sp.gammaincc(a, xs)))
chi2_cdf = sp.gammainc(torch.tensor(1.5), torch.tensor([0.5, 1.5, 4.0]) / 2)
print("chi2 cdf k=3", r(chi2_cdf))
z = torch.tensor([-40.0, -8.0, -1.0, 0.0, 2.0])
print("log_ndtr", r(sp.log_ndtr(z)), r(torch.log(sp.ndtr(z))))
p = torch.tensor([1e-10, 0.025, 0.5, 0.975])
print("ndtri", r(sp.ndtri(p)), r(sp.ndtr(sp.ndtri(p))))
print(
    "mills",
    r(sp.erfcx(torch.tensor([-1.0, 0.0, 5.0, 100.0]))),
    r(torch.special.erfc(torch.tensor([5.0])) * math.exp(25)),
)
print("zeta", r(sp.zeta(torch.tensor([2.0, 4.0, 3.0]), torch.tensor([1.0, 1.0, 2.0]))), round(math.pi**2 / 6, 4))
print("polygamma", r(sp.polygamma(1, torch.tensor([1.0, 0.5]))), r(sp.digamma(torch.tensor([1.0, 0.5]))))
probs = torch.tensor([0.0, 0.25, 0.5, 1.0])
print("entropies", r(sp.entr(probs)), r(sp.xlogy(probs, probs)), r(sp.xlog1py(probs, probs - 1)))
print("multigammaln", r(sp.multigammaln(torch.tensor([2.5, 4.0]), 3)), r(sp.gammaln(torch.tensor([0.5, 10.0]))))
print(
    "sinc/expit/logit",
    r(sp.sinc(torch.tensor([0.0, 0.5, 1.0]))),
    r(sp.expit(torch.tensor([-2.0, 0.0]))),
    r(sp.logit(torch.tensor([0.0, 0.3, 1.0]), eps=1e-3)),
)

for name, fn in [
    ("i0e", sp.i0e),
    ("i1", sp.i1),
    ("erfcx", sp.erfcx),
    ("ndtri", lambda t: sp.ndtri(t / 8)),
    ("log_ndtr", sp.log_ndtr),
    ("bessel_j0", sp.bessel_j0),
    ("spherical_bessel_j0", sp.spherical_bessel_j0),
    ("chebyshev_t", lambda t: sp.chebyshev_polynomial_t(t / 4, 3)),
]:
    t = torch.tensor([0.5, 1.5, 3.0], requires_grad=True)
    out = fn(t)
    try:
        out.sum().backward()
        print("grad", name, r(t.grad), out.grad_fn.name())
    except Exception as e:
        print("grad", name, type(e).__name__, e)

half = torch.tensor([0.5, 0.75], dtype=torch.float16)
for name, fn in [
    ("i0 half", sp.i0),
    ("erf half", sp.erf),
    ("erfinv half", sp.erfinv),
    ("ndtr half", sp.ndtr),
    ("bessel_j0 half", sp.bessel_j0),
    ("erfcx half", sp.erfcx),
    ("ndtri half", sp.ndtri),
    ("zeta half", lambda t: sp.zeta(t + 1, t)),
    ("legendre half", lambda t: sp.legendre_polynomial_p(t, 2)),
    ("airy bf16", lambda t: sp.airy_ai(t.bfloat16())),
    ("k1 bf16", lambda t: sp.modified_bessel_k1(t.bfloat16())),
]:
    try:
        out = fn(half)
        print(name, out.dtype, r(out))
    except Exception as e:
        print(name, type(e).__name__, e)
for name, fn in [
    ("zeta numbers", lambda: sp.zeta(2.0, 1.0)),
    ("poly numbers", lambda: sp.chebyshev_polynomial_t(0.5, 3)),
    ("poly keywords", lambda: sp.chebyshev_polynomial_u(x=torch.tensor([0.5]), n=3)),
    ("poly complex", lambda: sp.hermite_polynomial_h(torch.tensor([0.5j]), 2)),
    ("bessel complex", lambda: sp.bessel_j1(torch.tensor([1j]))),
    ("polygamma neg", lambda: sp.polygamma(-1, torch.tensor([1.0]))),
    ("multigammaln domain", lambda: sp.multigammaln(torch.tensor([0.5]), 3)),
    ("i0 scalar", lambda: sp.i0(2.0)),
]:
    try:
        print(name, r(fn()))
    except Exception as e:
        print(name, type(e).__name__, e)
