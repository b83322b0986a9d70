"""Optimisation and matrix analysis from an operations-research notebook: a dense-tableau simplex for a small linear
program, a primal-dual interior-point method with KKT solves, nonnegative least squares by projected gradient,
an equality-constrained QP through its KKT system, a Markov chain's stationary distribution by eig, power iteration
and matrix_power, mean first-passage times from the fundamental matrix, a matrix square root through eigh, and
Kronecker/block_diag/multi_dot identities."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


# maximise 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18, x, y >= 0 (the textbook example)
A = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 2.0]], dtype=f64)
b = torch.tensor([4.0, 12.0, 18.0], dtype=f64)
c = torch.tensor([3.0, 5.0], dtype=f64)
m, n = A.shape
T = torch.zeros(m + 1, n + m + 1, dtype=f64)
T[:m, :n] = A
T[:m, n : n + m] = torch.eye(m, dtype=f64)
T[:m, -1] = b
T[-1, :n] = -c
basis = list(range(n, n + m))
pivots = 0
while (T[-1, :-1] < -1e-12).any():
    col = int(torch.argmin(T[-1, :-1]))
    ratios = torch.where(T[:m, col] > 1e-12, T[:m, -1] / T[:m, col], torch.full((m,), float("inf"), dtype=f64))
    row = int(torch.argmin(ratios))
    T[row] = T[row] / T[row, col]
    for i in range(m + 1):
        if i != row:
            T[i] = T[i] - T[i, col] * T[row]
    basis[row] = col
    pivots += 1
xs = torch.zeros(n + m, dtype=f64)
xs[basis] = T[:m, -1]
print("simplex x", r(xs[:n]), "objective", T[-1, -1].item(), "pivots", pivots, "basis", sorted(basis))
duals = T[-1, n : n + m]
print("shadow prices", r(duals), "strong duality", torch.isclose(duals @ b, T[-1, -1]).item())

# the same LP by a primal-dual interior point (standard form with slacks)
As = torch.cat([A, torch.eye(m, dtype=f64)], 1)
cs = torch.cat([-c, torch.zeros(m, dtype=f64)])
x = torch.ones(n + m, dtype=f64)
y = torch.zeros(m, dtype=f64)
s = torch.ones(n + m, dtype=f64)
for it in range(30):
    rp = As @ x - b
    rd = As.T @ y + s - cs
    mu = x.dot(s) / (n + m)
    if max(rp.norm(), rd.norm(), mu) < 1e-9:
        break
    sigma = 0.2
    X, S = torch.diag(x), torch.diag(s)
    K = torch.zeros(2 * (n + m) + m, 2 * (n + m) + m, dtype=f64)
    N = n + m
    K[:m, :N] = As
    K[m : m + N, N : N + m] = As.T
    K[m : m + N, N + m :] = torch.eye(N, dtype=f64)
    K[m + N :, :N] = S
    K[m + N :, N + m :] = X
    rhs = -torch.cat([rp, rd, x * s - sigma * mu])
    d = torch.linalg.solve(K, rhs)
    dx, dy, ds = d[:N], d[N : N + m], d[N + m :]
    alpha = 1.0
    for v, dv in ((x, dx), (s, ds)):
        neg = dv < 0
        if neg.any():
            alpha = min(alpha, 0.99 * (-v[neg] / dv[neg]).min().item())
    x, y, s = x + alpha * dx, y + alpha * dy, s + alpha * ds
print("interior point x", r(x[:n], nd=4), "iters", it, "complementarity small", bool(x.dot(s) < 1e-6))

# nonnegative least squares by projected gradient
rng = np.random.default_rng(4)
M = torch.from_numpy(rng.standard_normal((20, 5)))
w_true = torch.tensor([1.0, 0.0, 2.0, 0.0, 0.5], dtype=f64)
t = M @ w_true + torch.from_numpy(0.05 * rng.standard_normal(20))
L = torch.linalg.matrix_norm(M, ord=2) ** 2
w = torch.zeros(5, dtype=f64)
for _ in range(500):
    w = torch.clamp(w - (M.T @ (M @ w - t)) / L, min=0)
w_ls = torch.linalg.lstsq(M, t).solution
print(
    "NNLS",
    r(w, nd=3),
    "active set",
    (w == 0).nonzero().flatten().tolist(),
    "unconstrained min",
    round(w_ls.min().item(), 3),
)
print(
    "spectral norm",
    round(L.sqrt().item(), 4),
    "== svdvals max",
    round(torch.linalg.svdvals(M)[0].item(), 4),
    "fro",
    round(torch.linalg.norm(M).item(), 4),
    "nuc",
    round(torch.linalg.matrix_norm(M, ord="nuc").item(), 4),
)

# equality-constrained QP: min 1/2 x'Qx - q'x s.t. Ex = f
Q = torch.tensor([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]], dtype=f64)
q = torch.tensor([1.0, 2.0, 3.0], dtype=f64)
E = torch.tensor([[1.0, 1.0, 1.0]], dtype=f64)
fv = torch.tensor([1.0], dtype=f64)
KKT = torch.cat([torch.cat([Q, E.T], 1), torch.cat([E, torch.zeros(1, 1, dtype=f64)], 1)])
sol = torch.linalg.solve(KKT, torch.cat([q, fv]))
xq, lam = sol[:3], sol[3:]
print("QP x", r(xq), "multiplier", r(lam), "feasible", torch.allclose(E @ xq, fv))
print(
    "KKT inertia (pos, neg)", int((torch.linalg.eigvalsh(KKT) > 0).sum()), int((torch.linalg.eigvalsh(KKT) < 0).sum())
)
print("ldl pivots", torch.linalg.ldl_factor(KKT).pivots.tolist())

# Markov chain: weather model
P = torch.tensor([[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5]], dtype=f64)
print("row stochastic", torch.allclose(P.sum(1), torch.ones(3, dtype=f64)))
evals, evecs = torch.linalg.eig(P.T)
print("eig dtypes", evals.dtype, evecs.dtype, "leading", round(evals.real.max().item(), 8))
i = int(evals.real.argmax())
pi = evecs[:, i].real
pi = pi / pi.sum()
print("stationary (eig)", r(pi))
v = torch.full((3,), 1 / 3, dtype=f64)
for _ in range(100):
    v = v @ P
print("stationary (power)", r(v), "matrix_power rows", r(torch.linalg.matrix_power(P, 50)[0]))
print("second eigenvalue modulus", round(evals.abs().sort(descending=True).values[1].item(), 4))
Z = torch.linalg.inv(torch.eye(3, dtype=f64) - P + pi.expand(3, 3))
mfpt = (Z.diagonal()[None, :] - Z) / pi[None, :]
print("mean first passage", r(mfpt, 9, 3), "return times", r(1 / pi, 3, 3))
print("P^-1 via matrix_power(-1)", torch.allclose(torch.linalg.matrix_power(P, -1), torch.linalg.inv(P)))
rev = torch.allclose(pi[:, None] * P, (pi[:, None] * P).T)
print("reversible", rev)

# matrix square root of an SPD matrix through eigh, and a check against matrix_exp/log
Sg = Q
wv, V = torch.linalg.eigh(Sg)
sqrtS = V @ torch.diag(wv.sqrt()) @ V.T
print("sqrtm", r(sqrtS, 3), "squares back", torch.allclose(sqrtS @ sqrtS, Sg))
logS = V @ torch.diag(wv.log()) @ V.mT
print("expm(logm(S)) == S", torch.allclose(torch.linalg.matrix_exp(logS), Sg))

# Kronecker, block_diag, multi_dot, tensordot
A2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=f64)
B2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=f64)
K2 = torch.kron(A2, B2)
print(
    "kron",
    K2.shape,
    K2[1].tolist(),
    "mixed product",
    torch.allclose(torch.kron(A2, B2) @ torch.kron(B2, A2), torch.kron(A2 @ B2, B2 @ A2)),
)
print(
    "kron eigenvalues",
    r(torch.sort(torch.linalg.eigvals(K2).real).values, 4),
    "det",
    round(torch.linalg.det(K2).item(), 4),
)
BD = torch.block_diag(A2, torch.tensor([[5.0]], dtype=f64), B2)
print("block_diag", BD.shape, BD[2].tolist(), "trace", BD.trace().item())
mats = [torch.from_numpy(rng.standard_normal(s)) for s in ((3, 10), (10, 2), (2, 8), (8, 1))]
print(
    "multi_dot",
    torch.linalg.multi_dot(mats).shape,
    torch.allclose(torch.linalg.multi_dot(mats), mats[0] @ mats[1] @ mats[2] @ mats[3]),
)
T3 = torch.arange(24, dtype=f64).view(2, 3, 4)
print(
    "tensordot",
    torch.tensordot(T3, torch.ones(3, 4, dtype=f64), dims=([1, 2], [0, 1])).tolist(),
    torch.tensordot(A2, A2, dims=1).tolist(),
)
print("chain_matmul == multi_dot", torch.allclose(torch.linalg.multi_dot([A2, B2, A2]), A2 @ B2 @ A2))

try:
    torch.linalg.eigh(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_power(torch.zeros(2, 2, dtype=f64), -1)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    torch.linalg.multi_dot([A2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.kron(A2, torch.ones(2, dtype=torch.complex64)).dtype
    print("kron promotes", torch.kron(A2, torch.ones(2, dtype=torch.complex64)).dtype)
except Exception as e:
    print(type(e).__name__, e)
