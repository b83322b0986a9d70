"""scipy.special / numpy math ported to torch: stable log-space sums, floating-point decomposition (frexp, ldexp,
nextafter, copysign), Bessel and gamma-family functions, orthogonal polynomials, entropy terms with xlogy, and
the dtypes each returns for integer, boolean and mixed inputs."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


# log-space arithmetic for a small HMM forward pass (scipy.special.logsumexp -> torch)
log_a = torch.log(torch.tensor([[0.7, 0.3], [0.4, 0.6]], dtype=torch.float64))
log_b = torch.log(torch.tensor([[0.9, 0.1], [0.2, 0.8]], dtype=torch.float64))
obs = [0, 1, 1, 0]
alpha = torch.log(torch.tensor([0.5, 0.5], dtype=torch.float64)) + log_b[:, obs[0]]
for o in obs[1:]:
    alpha = torch.logsumexp(alpha[:, None] + log_a, dim=0) + log_b[:, o]
print("hmm loglik", round(torch.logsumexp(alpha, 0).item(), 6), round(torch.logaddexp(alpha[0], alpha[1]).item(), 6))
print(
    "logaddexp2", r(torch.logaddexp2(torch.tensor([0.0, 10.0, -float("inf")]), torch.tensor([0.0, 0.0, -float("inf")])))
)
print("logaddexp big", r(torch.logaddexp(torch.tensor([1000.0, -1000.0]), torch.tensor([1000.0, -1001.0]))))
lc = torch.logcumsumexp(torch.tensor([[0.0, 1.0, -2.0], [3.0, -float("inf"), 0.5]]), dim=1)
print("logcumsumexp", r(lc, 6), torch.logcumsumexp(torch.tensor([1.0, 2.0]), dim=0).dtype)

# floating-point decomposition
v = torch.tensor([0.0, 1.0, -3.5, 1e-3, 1024.0, 6.0e-39])
m, e = torch.frexp(v)
print("frexp", r(m), e.tolist(), m.dtype, e.dtype)
print(
    "ldexp",
    torch.ldexp(m, e).tolist() == v.tolist(),
    torch.ldexp(torch.tensor([1.0]), torch.tensor([3])).tolist(),
    torch.ldexp(torch.tensor([3]), torch.tensor([2])).dtype,
)
nx = torch.nextafter(torch.tensor([1.0, 0.0, -1.0]), torch.tensor([2.0, 1.0, -2.0]))
print("nextafter", [f"{t:.10e}" for t in nx.tolist()], (nx[0] - 1.0).item() == torch.finfo(torch.float32).eps)
print(
    "nextafter f64",
    torch.nextafter(torch.tensor(1.0, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64)).item() - 1.0,
)
print(
    "copysign",
    torch.copysign(torch.tensor([1.0, -2.0, 3.0]), torch.tensor([-0.0, 1.0, -1.0])).tolist(),
    torch.copysign(torch.tensor([1, 2]), -1).dtype,
    torch.copysign(torch.tensor([3]), torch.tensor([-0.0])).tolist(),
)
print("signbit", torch.signbit(torch.tensor([-0.0, 0.0, -1.0])).tolist(), torch.sgn(torch.tensor([-2, 0, 5])).tolist())
print("hypot", r(torch.hypot(torch.tensor([3.0, 1e20, 0.0]), torch.tensor([4.0, 1e20, -0.0]))))
print(
    "float_power",
    torch.float_power(torch.tensor([2, 3]), 2).dtype,
    torch.float_power(torch.tensor([2.0]), torch.tensor([0.5])).tolist(),
    torch.float_power(2, torch.tensor([3])).tolist(),
)
print(
    "pow int",
    torch.pow(torch.tensor([2, 3]), 2).dtype,
    torch.pow(2, torch.tensor([3, 4])).tolist(),
    torch.pow(torch.tensor([2]), 0.5).dtype,
)
print(
    "heaviside",
    torch.heaviside(torch.tensor([-1.5, 0.0, 2.0]), torch.tensor([0.5])).tolist(),
    torch.heaviside(torch.tensor([-1, 0, 3]), torch.tensor([7])).tolist(),
)

# entropy terms: xlogy / xlog1py / entr (0 log 0 = 0)
p = torch.tensor([0.0, 0.25, 0.75, 1.0])
print(
    "xlogy",
    r(torch.xlogy(p, p)),
    r(torch.special.xlogy(p, 2.0)),
    torch.xlogy(torch.tensor([0, 1]), torch.tensor([0, 3])).dtype,
)
print("xlog1py", r(torch.special.xlog1py(p, p - 1)), r(torch.special.entr(torch.tensor([-1.0, 0.0, 0.5, 1.0]))))
print("entropy", round(-torch.xlogy(p / p.sum(), p / p.sum()).sum().item(), 6))
print("kl", round(torch.special.xlogy(p, p / torch.full((4,), 0.5)).sum().item(), 6))

# Bessel, sinc and gamma families (scipy.special names)
x = torch.tensor([0.0, 0.5, 1.0, 2.5, 10.0], dtype=torch.float64)
print("i0", r(torch.i0(x)), r(torch.special.i0e(x)))
print("i1", r(torch.special.i1(x)), r(torch.special.i1e(x)))
print("j0 j1", r(torch.special.bessel_j0(x)), r(torch.special.bessel_j1(x)))
print("y0", r(torch.special.bessel_y0(x[1:])), r(torch.special.modified_bessel_k0(x[1:])))
print("sph j0", r(torch.special.spherical_bessel_j0(x)))
print("sinc", r(torch.sinc(torch.tensor([0.0, 0.5, 1.0, -1.5]))), r(torch.special.sinc(torch.tensor([1e-8]))))
print("gammaln", r(torch.special.gammaln(x[1:])), r(torch.lgamma(torch.tensor([-0.5, -1.0]))))
print(
    "digamma",
    r(torch.special.digamma(x[1:])),
    r(torch.special.polygamma(1, x[1:])),
    r(torch.special.polygamma(2, x[2:3])),
)
print(
    "multigammaln",
    round(torch.special.multigammaln(torch.tensor(2.5), 3).item(), 4),
    r(torch.mvlgamma(torch.tensor([3.0, 4.0]), p=2)),
)
print(
    "gammainc",
    r(torch.special.gammainc(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, 2.0, 5.0]))),
    r(torch.special.gammaincc(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 2.0]))),
)
print("zeta", r(torch.special.zeta(torch.tensor([2.0, 3.0, 4.0]), 1.0)), round(math.pi**2 / 6, 4))
print(
    "erf family",
    r(torch.special.erfcx(torch.tensor([0.0, 5.0, 30.0]))),
    r(torch.special.erfinv(torch.tensor([0.0, 0.5, -0.9]))),
)
print(
    "ndtr",
    r(torch.special.ndtr(torch.tensor([-1.96, 0.0, 1.0]))),
    r(torch.special.ndtri(torch.tensor([0.025, 0.5, 0.975]))),
)
print("log_ndtr", r(torch.special.log_ndtr(torch.tensor([-40.0, 0.0, 5.0]))))
print(
    "logit expit",
    r(torch.special.logit(torch.tensor([0.0, 0.25, 1.0]), eps=1e-6)),
    r(torch.special.expit(torch.tensor([-50.0, 0.0, 3.0]))),
)
print(
    "softmax",
    r(torch.special.softmax(torch.tensor([1.0, 2.0, 3.0]), 0)),
    r(torch.special.log_softmax(torch.tensor([1, 2, 3]).float(), 0)),
)
print(
    "round",
    torch.special.round(torch.tensor([0.5, 1.5, 2.5, -0.5])).tolist(),
    torch.round(torch.tensor([1.2345, -2.5551]), decimals=2).tolist(),
)
print(
    "exp2 expm1",
    r(torch.special.exp2(torch.tensor([3, -1]))),
    r(torch.special.expm1(torch.tensor([1e-10]))),
    r(torch.special.log1p(torch.tensor([1e-10]))),
)

# orthogonal polynomials vs explicit formulas
t = torch.tensor([-0.5, 0.0, 0.3, 0.9], dtype=torch.float64)
print("chebyshev T3", r(torch.special.chebyshev_polynomial_t(t, 3)), r(4 * t**3 - 3 * t))
print("chebyshev U2", r(torch.special.chebyshev_polynomial_u(t, 2)), r(4 * t**2 - 1))
print("hermite H3", r(torch.special.hermite_polynomial_h(t, 3)), "He3", r(torch.special.hermite_polynomial_he(t, 3)))
print("legendre P2", r(torch.special.legendre_polynomial_p(t, 2)), r(0.5 * (3 * t**2 - 1)))
print("laguerre L2", r(torch.special.laguerre_polynomial_l(t, torch.tensor(2.0, dtype=torch.float64))))
print("poly n tensor", r(torch.special.chebyshev_polynomial_t(torch.tensor(0.5), torch.tensor([0, 1, 2, 3]))))

# dtypes of integer, boolean and mixed inputs
ii = torch.tensor([1, 2, 3])
bb = torch.tensor([True, False, True])
for name, fn in [
    ("i0", torch.i0),
    ("sinc", torch.sinc),
    ("erf", torch.special.erf),
    ("expit", torch.special.expit),
    ("gammaln", torch.special.gammaln),
    ("digamma", torch.digamma),
    ("ndtr", torch.special.ndtr),
    ("sqrt", torch.sqrt),
    ("exp2", torch.exp2),
    ("log1p", torch.log1p),
    ("sigmoid", torch.sigmoid),
]:
    print("dtype", name, fn(ii).dtype, fn(bb).dtype, fn(ii.to(torch.float16)).dtype)
print(
    "mixed",
    torch.hypot(torch.ones(1), torch.ones(1, dtype=torch.float64)).dtype,
    torch.logaddexp(torch.ones(1, dtype=torch.float16), torch.ones(1)).dtype,
    torch.xlogy(2, torch.tensor([3])).dtype,
    torch.atan2(ii, ii).dtype,
)

for name, bad in [
    ("hypot int", lambda: torch.hypot(ii, ii)),
    ("logaddexp int", lambda: torch.logaddexp(ii, ii)),
    ("frexp int", lambda: torch.frexp(ii)),
    ("nextafter mixed", lambda: torch.nextafter(torch.ones(1), torch.ones(1, dtype=torch.float64))),
    ("heaviside mixed", lambda: torch.heaviside(torch.ones(1), torch.ones(1, dtype=torch.int64))),
    ("ldexp float exp", lambda: torch.ldexp(torch.ones(1), torch.tensor([1.5]))),
    ("polygamma neg", lambda: torch.special.polygamma(-1, x)),
    ("multigammaln small", lambda: torch.special.multigammaln(torch.tensor([0.5]), 3)),
    ("float_power out", lambda: torch.float_power(ii, 2, out=torch.empty(3))),
    ("zeta int", lambda: torch.special.zeta(torch.tensor([2]), torch.tensor([1]))),
    ("logcumsumexp int", lambda: torch.logcumsumexp(ii, 0)),
]:
    try:
        out = bad()
        print(
            name,
            "ok",
            out.dtype if hasattr(out, "dtype") else type(out).__name__,
            r(out[0] if isinstance(out, tuple) else out, 3),
        )
    except (RuntimeError, TypeError, ValueError) as err:
        print(name, type(err).__name__, str(err).split("\n")[0][:110])
