"""A statistical risk model's linear algebra as a risk-platform team writes it: a factor covariance B F B' + D held
as LowRankMultivariateNormal, its log-likelihood against MultivariateNormal with scale_tril and slogdet, the
Woodbury inverse checked with solve_triangular and lu_factor/lu_solve, ldl_factor/ldl_solve, lobpcg for the top
eigenportfolio, svdvals and nuclear norms, multi_dot, vecdot, QR for orthogonal factor rotation, and cdist-based
hierarchical-risk-parity distances."""

import torch
from torch.distributions import LowRankMultivariateNormal, MultivariateNormal

torch.manual_seed(0)
dtype = torch.float64
N, K = 8, 2
i = torch.arange(N, dtype=dtype)
B = torch.stack([torch.ones(N, dtype=dtype) * 0.9 + 0.05 * i, torch.sin(i)], 1)
fvar = torch.tensor([0.04, 0.01], dtype=dtype)
D = 0.01 + 0.002 * i
Sigma = B @ torch.diag(fvar) @ B.T + torch.diag(D)
print("sigma", tuple(Sigma.shape), torch.allclose(Sigma, Sigma.T))

lr = LowRankMultivariateNormal(torch.zeros(N, dtype=dtype), B * fvar.sqrt(), D)
full = MultivariateNormal(torch.zeros(N, dtype=dtype), scale_tril=torch.linalg.cholesky(Sigma))
x = torch.stack([torch.sin(i * k) * 0.1 for k in (1.0, 2.0, 3.0)])
print("low-rank logpdf", lr.log_prob(x).round(decimals=4).tolist())
print("full logpdf", full.log_prob(x).round(decimals=4).tolist())
print(
    "cov match",
    torch.allclose(lr.covariance_matrix, Sigma),
    torch.allclose(full.precision_matrix @ Sigma, torch.eye(N, dtype=dtype)),
)
sign, logdet = torch.linalg.slogdet(Sigma)
print("slogdet", sign.item(), round(logdet.item(), 4), round(torch.logdet(Sigma).item(), 4))
print("entropy", round(lr.entropy().item(), 4), round(full.entropy().item(), 4))

Dinv = torch.diag(1 / D)
inner = torch.diag(1 / fvar) + B.T @ Dinv @ B
wood = Dinv - Dinv @ B @ torch.linalg.solve(inner, B.T @ Dinv)
print("woodbury", torch.allclose(wood, torch.linalg.inv(Sigma)))
L = torch.linalg.cholesky(Sigma)
y = torch.linalg.solve_triangular(L, torch.eye(N, dtype=dtype), upper=False)
print("solve_triangular", torch.allclose(y.T @ y, wood))
print(
    "left=False",
    torch.allclose(
        torch.linalg.solve_triangular(L.T, torch.eye(N, dtype=dtype), upper=True, left=False) @ L.T,
        torch.eye(N, dtype=dtype),
    ),
)
print(
    "unitriangular",
    torch.linalg.solve_triangular(
        torch.tril(torch.ones(3, 3, dtype=dtype)), torch.ones(3, 1, dtype=dtype), upper=False, unitriangular=True
    )
    .flatten()
    .tolist(),
)
LU, piv = torch.linalg.lu_factor(Sigma)
b = torch.ones(N, 1, dtype=dtype)
print("lu_solve", torch.allclose(torch.linalg.lu_solve(LU, piv, b), wood @ b), piv.dtype)
P_, L_, U_ = torch.linalg.lu(Sigma)
print("lu", torch.allclose(P_ @ L_ @ U_, Sigma))
LD, piv2 = torch.linalg.ldl_factor(Sigma)
print("ldl_solve", torch.allclose(torch.linalg.ldl_solve(LD, piv2, b), wood @ b))
w_mv = torch.cholesky_solve(b, L)
w_mv = w_mv / w_mv.sum()
print("min-var weights", w_mv.flatten().round(decimals=4).tolist())

evals, evecs = torch.lobpcg(Sigma, k=1, largest=True)
top = torch.linalg.eigvalsh(Sigma)[-1]
print("lobpcg top", torch.allclose(evals[0], top, rtol=1e-6), tuple(evecs.shape))
sv = torch.linalg.svdvals(Sigma)
print("svdvals == eig", torch.allclose(sv, torch.linalg.eigvalsh(Sigma).flip(0)))
print("nuclear = trace", torch.allclose(torch.linalg.matrix_norm(Sigma, ord="nuc"), torch.trace(Sigma)))
print(
    "norms", round(torch.linalg.matrix_norm(Sigma, ord=2).item(), 6), round(torch.linalg.norm(Sigma, "fro").item(), 6)
)
print("cond p", round(torch.linalg.cond(Sigma, p="fro").item(), 2), round(torch.linalg.cond(Sigma, p=1).item(), 2))

w = torch.full((N,), 1.0 / N, dtype=dtype)
risk = torch.linalg.multi_dot([w.unsqueeze(0), B, torch.diag(fvar), B.T, w.unsqueeze(1)])
print("factor risk", round(risk.item(), 6), tuple(risk.shape))
print("vecdot", round(torch.linalg.vecdot(w, Sigma @ w).item(), 6))
Q, R = torch.linalg.qr(B)
print("qr", tuple(Q.shape), torch.allclose(Q.T @ Q, torch.eye(K, dtype=dtype)), torch.linalg.qr(B, mode="r").Q.numel())
print("complete", tuple(torch.linalg.qr(B, mode="complete").Q.shape))

corr = Sigma / torch.outer(Sigma.diag().sqrt(), Sigma.diag().sqrt())
dist = torch.sqrt((0.5 * (1 - corr)).clamp(min=0))
emb = torch.cdist(dist, dist)
print("cdist", tuple(emb.shape), torch.allclose(emb, emb.T), round(emb.max().item(), 4))
print(
    "cdist p1",
    round(torch.cdist(dist, dist, p=1)[0, 1].item(), 4),
    round(torch.cdist(dist.unsqueeze(0), dist.unsqueeze(0), p=float("inf"))[0, 0, 1].item(), 4),
)
order = torch.argsort(emb[0])
print("seriation", order.tolist())

for bad in [
    lambda: LowRankMultivariateNormal(torch.zeros(N, dtype=dtype), B, -D),
    lambda: torch.linalg.solve_triangular(L, torch.ones(N, dtype=dtype), upper=False),
    lambda: torch.linalg.lu_solve(LU, piv, torch.ones(3, 1, dtype=dtype)),
    lambda: torch.linalg.multi_dot([w]),
    lambda: torch.linalg.vecdot(w, torch.ones(3, dtype=dtype)),
    lambda: torch.cdist(dist, dist[:, :3]),
    lambda: torch.lobpcg(Sigma, k=5),
]:
    try:
        r = bad()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, e)
