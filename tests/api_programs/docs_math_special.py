"""Pointwise math and torch.special docstring examples, with dtype promotion and out= forms."""

import numpy as np
import torch

a = torch.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
print(
    "exp family", torch.exp(a), torch.expm1(torch.tensor([0.0, 1e-10])), torch.exp2(torch.tensor([0.0, 1.0, 3.0, 4.0]))
)
print(
    "log family",
    torch.log(torch.tensor([1.0, 0.0, -1.0])),
    torch.log2(torch.tensor([8.0, 0.5])),
    torch.log10(torch.tensor([1000.0])),
)
print("log1p", torch.log1p(torch.tensor([-1.0, 1e-10, 1.0])), torch.special.log1p(torch.tensor([0.5])))
print(
    "sqrt rsqrt",
    torch.sqrt(torch.tensor([4.0, -1.0, 0.0])),
    torch.rsqrt(torch.tensor([4.0, 0.0, -1.0])),
    torch.square(torch.tensor([-3, 2])),
)
print(
    "int inputs",
    torch.sqrt(torch.tensor([4, 9])),
    torch.exp(torch.tensor([0, 1])).dtype,
    torch.sin(torch.tensor([True])),
)
print(
    "trig",
    torch.sin(a).round(decimals=4),
    torch.cos(a).round(decimals=4),
    torch.tan(torch.tensor([0.0, 0.7854])).round(decimals=4),
)
print(
    "inverse trig",
    torch.asin(torch.tensor([-1.0, 0.5, 2.0])),
    torch.acos(torch.tensor([1.0, 0.0])),
    torch.atan(torch.tensor([1.0, -np.inf])),
)
print(
    "atan2",
    torch.atan2(torch.tensor([1.0, -1.0, 0.0]), torch.tensor([0.0, 0.0, -1.0])),
    torch.arctan2(torch.tensor([1]), torch.tensor([1])),
)
print("hyperbolic", torch.sinh(a).round(decimals=4), torch.cosh(a).round(decimals=4), torch.tanh(a).round(decimals=4))
print(
    "inverse hyperbolic",
    torch.asinh(a),
    torch.acosh(torch.tensor([1.0, 2.0, 0.5])),
    torch.atanh(torch.tensor([0.5, 1.0, -1.0, 2.0])),
)
print(
    "aliases",
    torch.arcsin(torch.tensor([0.5])),
    torch.arccosh(torch.tensor([2.0])),
    torch.negative(torch.tensor([1])),
    torch.multiply(torch.tensor([2]), 3),
)
print(
    "sigmoid",
    torch.sigmoid(a),
    torch.special.expit(torch.tensor([0.0, 100.0, -100.0])),
    torch.logit(torch.tensor([0.25, 0.5])),
)
print(
    "erf",
    torch.erf(torch.tensor([0.0, -1.0, 10.0])),
    torch.erfc(torch.tensor([0.0, -1.0, 10.0])),
    torch.special.erfcx(torch.tensor([0.0, -1.0, 10.0])),
)
print(
    "erfinv",
    torch.erfinv(torch.tensor([0.0, 0.5, -1.0])),
    torch.special.ndtri(torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0])),
)
print(
    "ndtr log_ndtr",
    torch.special.ndtr(torch.tensor([-3.0, -2, -1, 0, 1, 2, 3])),
    torch.special.log_ndtr(torch.tensor([-3.0, 0.0, 3.0])),
)
print(
    "gamma",
    torch.lgamma(torch.arange(0.5, 2, 0.5)),
    torch.digamma(torch.tensor([1.0, 0.5])),
    torch.special.gammaln(torch.tensor([10.0])),
)
print(
    "polygamma",
    torch.polygamma(1, torch.tensor([1.0, 0.5])),
    torch.polygamma(2, torch.tensor([1.0, 0.5])),
    torch.polygamma(4, torch.tensor([1.0, 0.5])),
)
print(
    "multigammaln",
    torch.special.multigammaln(torch.tensor([[1.6, 2.2], [3.0, 4.5]]), 2),
    torch.mvlgamma(torch.tensor([2.5]), 3),
)
print(
    "gammainc",
    torch.special.gammainc(torch.tensor([4.0]), torch.tensor([3.0, 4.0, 5.0])),
    torch.special.gammaincc(torch.tensor([4.0]), torch.tensor([3.0, 4.0, 5.0])),
)
print(
    "igamma",
    torch.igamma(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0])),
    torch.igammac(torch.tensor([1.0]), torch.tensor([0.0])),
)
print("bessel i", torch.i0(torch.arange(5, dtype=torch.float32)), torch.special.i0e(torch.arange(5.0)))
print("bessel i1", torch.special.i1(torch.arange(5.0)), torch.special.i1e(torch.arange(5.0)))
print(
    "bessel j y",
    torch.special.bessel_j0(torch.tensor([0.0, 1.0, 5.0])),
    torch.special.bessel_j1(torch.tensor([0.0, 1.0])),
    torch.special.bessel_y0(torch.tensor([1.0, 2.0])),
)
print(
    "modified bessel",
    torch.special.modified_bessel_i0(torch.tensor([1.0])),
    torch.special.modified_bessel_k0(torch.tensor([1.0, 2.0])),
    torch.special.scaled_modified_bessel_k1(torch.tensor([1.0])),
)
print("entr", torch.special.entr(torch.tensor([-1.0, 0.0, 0.5, 1.0])), torch.special.sinc(torch.tensor([0.0, 0.5])))
print(
    "xlogy",
    torch.special.xlogy(torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 2.0, 3.0])),
    torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 1.0])),
)
print("zeta", torch.special.zeta(torch.tensor([2.0, 4.0]), 1.0), torch.special.zeta(2, torch.tensor([1.0, 2.0])))
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 3.0]])
print("softmax", torch.special.softmax(x, 0), torch.special.log_softmax(x, 1), torch.special.logsumexp(x, 1))
print(
    "softmax dtype",
    torch.softmax(torch.tensor([1, 2]), 0, dtype=torch.float64),
    torch.special.softmax(x, 1, dtype=torch.float64).dtype,
)
print(
    "round family",
    torch.special.round(torch.tensor([2.5, 3.5])),
    torch.special.exp2(torch.tensor([3])),
    torch.special.expm1(torch.tensor([1.0])),
)
print(
    "chebyshev",
    torch.special.chebyshev_polynomial_t(torch.tensor([0.5, -0.3]), 3),
    torch.special.hermite_polynomial_h(torch.tensor([1.0, 2.0]), 3),
)
print(
    "legendre laguerre",
    torch.special.legendre_polynomial_p(torch.tensor([0.5]), torch.tensor([0, 1, 2, 3])),
    torch.special.laguerre_polynomial_l(torch.tensor([1.0]), 2),
)
print(
    "airy spherical",
    torch.special.airy_ai(torch.tensor([0.0, 1.0])),
    torch.special.spherical_bessel_j0(torch.tensor([0.0, 1.0, 3.0])),
)
c = torch.tensor([1 + 1j, -2 + 0j, 3j])
print("complex math", torch.abs(c), torch.angle(c), torch.exp(c), torch.sqrt(c), torch.log(c))
print(
    "angle real",
    torch.angle(torch.tensor([-2.0, 0.0, 3.0])),
    torch.angle(torch.tensor([-1, 1])).dtype,
    torch.conj_physical(c),
)
print(
    "reciprocal",
    torch.reciprocal(torch.tensor([2.0, 0.0, -0.0])),
    torch.reciprocal(torch.tensor([2, 4])),
    torch.reciprocal(c),
)
print(
    "out=",
    torch.exp(torch.tensor([0.0, 1.0]), out=torch.empty(2)),
    torch.add(torch.tensor([1, 2]), 3, out=torch.empty(2, dtype=torch.float64)),
)
inp = torch.tensor([1.0, 2.0])
torch.sin(inp, out=inp)
print("out aliasing", inp, torch.sigmoid_(torch.tensor([0.0])), torch.tensor([4.0]).sqrt_(), torch.tensor([1.0]).exp_())
print(
    "half precision",
    torch.exp(torch.tensor([1.0, 2.0], dtype=torch.float16)),
    torch.erf(torch.tensor([0.5], dtype=torch.bfloat16)),
)
print(
    "float64",
    torch.lgamma(torch.tensor([100.5], dtype=torch.float64)),
    torch.digamma(torch.tensor([0.0, -1.0], dtype=torch.float64)),
)
print(
    "special ints",
    torch.special.i0(torch.tensor([1])),
    torch.special.erf(torch.tensor([1])).dtype,
    torch.lgamma(torch.tensor([3])).dtype,
)
for bad in [
    lambda: torch.polygamma(-1, torch.tensor([1.0])),
    lambda: torch.special.polygamma(1.5, torch.tensor([1.0])),
    lambda: torch.mvlgamma(torch.tensor([0.5]), p=2),
    lambda: torch.mvlgamma(torch.tensor([2.5]), p=0),
    lambda: torch.exp(torch.tensor([1.0]), out=torch.empty(1, dtype=torch.int64)),
    lambda: torch.sqrt(torch.tensor([4]), out=torch.empty(1, dtype=torch.int64)),
    lambda: torch.tensor([4]).sqrt_(),
    lambda: torch.erfinv(c),
    lambda: torch.lgamma(c),
    lambda: torch.special.i0(c),
    lambda: torch.atan2(c, c),
    lambda: torch.special.zeta(c, c),
    lambda: torch.special.gammainc(torch.tensor([1]), torch.tensor([1])),
    lambda: torch.igamma(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64)),
    lambda: torch.special.softmax(x),
    lambda: torch.special.logit(c),
    lambda: torch.special.entr(c),
    lambda: torch.special.chebyshev_polynomial_t(c, 2),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
