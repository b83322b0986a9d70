"""Credit-risk term structures as a rating-model team computes them: an annual rating transition matrix raised with
matrix_power, a generator from the matrix by the log series and back with matrix_exp, eigen-decomposition with
linalg.eig (complex results), cumulative default probabilities, hazard rates and survival curves from CDS spreads,
CDS leg values with trapezoid/cumulative_trapezoid, logcumsumexp for log-survival, and a Vasicek portfolio loss
quantile with ndtr/ndtri."""

import math

import torch

dtype = torch.float64
P = torch.tensor(
    [[0.90, 0.08, 0.015, 0.005], [0.05, 0.85, 0.07, 0.03], [0.01, 0.09, 0.80, 0.10], [0.00, 0.00, 0.00, 1.00]],
    dtype=dtype,
)
print("row sums", P.sum(1).tolist(), P.dtype)
P5 = torch.linalg.matrix_power(P, 5)
print("5y default", P5[:3, -1].round(decimals=4).tolist())
print("matrix_power 0", torch.equal(torch.linalg.matrix_power(P, 0), torch.eye(4, dtype=dtype)))
print("matrix_power -1", torch.allclose(torch.linalg.matrix_power(P, -1) @ P, torch.eye(4, dtype=dtype)))
cum = torch.stack([torch.linalg.matrix_power(P, k)[:3, -1] for k in range(1, 11)])
print("cum pd year 10", cum[-1].round(decimals=4).tolist(), bool((cum.diff(dim=0) >= 0).all()))

A = P - torch.eye(4, dtype=dtype)
G = torch.zeros_like(P)
term = torch.eye(4, dtype=dtype)
for k in range(1, 30):
    term = term @ A
    G = G + (-1) ** (k + 1) * term / k
print(
    "generator rows ~0",
    G.sum(1).abs().max().item() < 1e-10,
    "negative off-diag",
    int((G - torch.diag(torch.diag(G)) < -1e-12).sum()),
)
back = torch.linalg.matrix_exp(G)
print("expm(log P) == P", torch.allclose(back, P, atol=1e-10))
half = torch.linalg.matrix_exp(0.5 * G)
print("6m default", half[:3, -1].round(decimals=5).tolist())
batch = torch.linalg.matrix_exp(torch.stack([G * t for t in (0.25, 1.0, 2.0)]))
print("batched expm", tuple(batch.shape), torch.allclose(batch[2], P @ P, atol=1e-10))

evals, evecs = torch.linalg.eig(P)
print("eig dtype", evals.dtype, evecs.dtype)
mags = evals.abs().sort(descending=True).values
print("eig magnitudes", mags.round(decimals=4).tolist())
print("reconstruct", torch.allclose((evecs @ torch.diag(evals) @ torch.linalg.inv(evecs)).real, P))
print("eigvals", torch.linalg.eigvals(P).real.sort().values.round(decimals=4).tolist())

tenor = torch.tensor([1.0, 2.0, 3.0, 5.0, 7.0, 10.0], dtype=dtype)
spreads = torch.tensor([60.0, 70.0, 85.0, 110.0, 125.0, 140.0], dtype=dtype) / 1e4
R = 0.4
lam_avg = spreads / (1 - R)
cum_h = lam_avg * tenor
fwd_h = torch.diff(cum_h, prepend=torch.zeros(1, dtype=dtype)) / torch.diff(tenor, prepend=torch.zeros(1, dtype=dtype))
print("forward hazards %", (fwd_h * 100).round(decimals=4).tolist())
surv = torch.exp(-cum_h)
print("survival", surv.round(decimals=5).tolist())
logs = torch.logcumsumexp(torch.log(fwd_h), dim=0)
print("logcumsumexp", logs.round(decimals=4).tolist())
print(
    "logcumsumexp -inf", torch.logcumsumexp(torch.tensor([float("-inf"), 0.0, float("-inf")], dtype=dtype), 0).tolist()
)

t = torch.linspace(0, 5, 21, dtype=dtype)
h5 = lam_avg[3]
S_t = torch.exp(-h5 * t)
D_t = torch.exp(-0.03 * t)
prem = torch.trapezoid(S_t * D_t, t)
prot = (1 - R) * torch.trapezoid(h5 * S_t * D_t, t)
print("par spread bp", round((prot / prem * 1e4).item(), 2))
cpl = torch.cumulative_trapezoid(S_t * D_t, t)
print("cumulative_trapezoid", tuple(cpl.shape), round(cpl[-1].item(), 6), torch.allclose(cpl[-1], prem))
print(
    "trapezoid dx",
    round(torch.trapezoid(S_t * D_t, dx=0.25).item(), 6),
    round(torch.cumulative_trapezoid(S_t, dx=0.25)[3].item(), 6),
)
print("trapz alias", torch.allclose(torch.trapz(S_t, t), torch.trapezoid(S_t, t)))

pd_, rho_ = 0.02, 0.15
for q in (0.99, 0.999):
    z = torch.special.ndtri(torch.tensor(q, dtype=dtype))
    wcdr = torch.special.ndtr(
        (torch.special.ndtri(torch.tensor(pd_, dtype=dtype)) + math.sqrt(rho_) * z) / math.sqrt(1 - rho_)
    )
    print("vasicek", q, round(wcdr.item(), 5))

for bad in [
    lambda: torch.linalg.matrix_power(P[:3], 2),
    lambda: torch.linalg.matrix_power(P, 1.5),
    lambda: torch.linalg.matrix_exp(torch.ones(2, 3, dtype=dtype)),
    lambda: torch.trapezoid(S_t, t[:5]),
    lambda: torch.linalg.matrix_power(torch.zeros(2, 2, dtype=dtype), -1),
    lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0),
]:
    try:
        r = bad()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, e)
