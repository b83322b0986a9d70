"""Gaussian-process regression as researchers write it by hand: RBF/Matern kernels from cdist, Cholesky with jitter,
cholesky_solve and solve_triangular, the log marginal likelihood and its autograd gradients against the analytic
formula, hyperparameters fitted with Adam and LBFGS through softplus, predictive mean/variance, a sparse Nystrom
approximation, and the errors of a non-positive-definite matrix."""

import math

import numpy as np
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(11)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


n = 25
x = torch.from_numpy(np.sort(rng.uniform(-3, 3, n)))[:, None]
y = torch.sin(2 * x[:, 0]) + 0.3 * x[:, 0] + torch.from_numpy(0.1 * rng.standard_normal(n))
xs = torch.linspace(-3.5, 3.5, 9, dtype=f64)[:, None]
print("train", x.shape, y.shape, "test", xs.shape, xs.dtype)


def rbf(a, b, ls, var):
    d2 = torch.cdist(a / ls, b / ls).pow(2)
    return var * torch.exp(-0.5 * d2)


def matern52(a, b, ls, var):
    d = torch.cdist(a, b) / ls
    s5 = math.sqrt(5.0)
    return var * (1 + s5 * d + 5.0 / 3.0 * d**2) * torch.exp(-s5 * d)


K = rbf(x, x, 1.0, 1.0)
print("K", K.shape, "symmetric", torch.allclose(K, K.T), "diag", r(K.diagonal(), 3))
print("cdist vs explicit", torch.allclose(torch.cdist(x, xs), (x - xs.T).abs()))
print("cdist p=1 == p=2 in 1-D", torch.allclose(torch.cdist(x, xs, p=1), torch.cdist(x, xs)))
ev = torch.linalg.eigvalsh(K)
print("K min eig tiny", bool(ev.min() < 1e-6), "max eig", round(ev.max().item(), 3))


def lml(params, kern=rbf):
    ls, var, noise = F.softplus(params)
    Kxx = kern(x, x, ls, var) + (noise + 1e-6) * torch.eye(n, dtype=f64)
    L = torch.linalg.cholesky(Kxx)
    alpha = torch.cholesky_solve(y[:, None], L)
    return -0.5 * (y[:, None] * alpha).sum() - torch.log(L.diagonal()).sum() - 0.5 * n * math.log(2 * math.pi)


params = torch.tensor([0.0, 0.0, -2.0], dtype=f64, requires_grad=True)
val = lml(params)
val.backward()
print("lml", round(val.item(), 4), "grad", r(params.grad))


# analytic gradient: 0.5 tr((aa^T - K^-1) dK/dtheta)
with torch.no_grad():
    ls, var, noise = F.softplus(params)
    Kxx = rbf(x, x, ls, var) + (noise + 1e-6) * torch.eye(n, dtype=f64)
    Kinv = torch.cholesky_inverse(torch.linalg.cholesky(Kxx))
    a = Kinv @ y
    M = torch.outer(a, a) - Kinv
    D2 = torch.cdist(x, x).pow(2)
    dK_dls = rbf(x, x, ls, var) * D2 / ls**3
    dK_dvar = rbf(x, x, ls, 1.0)
    g = torch.stack([0.5 * (M * dK_dls).sum(), 0.5 * (M * dK_dvar).sum(), 0.5 * M.trace()])
    g = g * torch.sigmoid(params)
print("analytic grad", r(g), "match", torch.allclose(g, params.grad, atol=1e-8))
print("cholesky_inverse == inv", torch.allclose(Kinv, torch.linalg.inv(Kxx), atol=1e-8))
print("gradcheck", torch.autograd.gradcheck(lml, (params.detach().clone().requires_grad_(True),)))

opt = torch.optim.Adam([params], lr=0.05)
for step in range(60):
    opt.zero_grad()
    loss = -lml(params)
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print("adam", step, round(loss.item(), 4))
print("after adam", r(F.softplus(params), nd=3))

p2 = params.detach().clone().requires_grad_(True)
lbfgs = torch.optim.LBFGS([p2], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    l_ = -lml(p2)
    l_.backward()
    return l_


lbfgs.step(closure)
hyp = F.softplus(p2.detach())
print("lbfgs lml", round(lml(p2).item(), 3), "hyper", r(hyp, nd=2), "grad small", bool(p2.grad.abs().max() < 1e-3))

# predictive distribution with triangular solves
ls, var, noise = hyp
Kxx = rbf(x, x, ls, var) + noise * torch.eye(n, dtype=f64)
L = torch.linalg.cholesky(Kxx)
Ks = rbf(x, xs, ls, var)
alpha = torch.cholesky_solve(y[:, None], L)
mu = (Ks.T @ alpha).squeeze(-1)
v = torch.linalg.solve_triangular(L, Ks, upper=False)
cov = rbf(xs, xs, ls, var) - v.T @ v
sd = cov.diagonal().clamp_min(0).sqrt()
print("mu", r(mu, 9, 2))
print("sd", r(sd, 9, 2))
print("sd largest at edges", bool(sd[0] > sd[4] and sd[-1] > sd[4]))
v2 = torch.triangular_solve(Ks, L, upper=False).solution
print("triangular_solve == solve_triangular", torch.allclose(v, v2))
U = L.T
vu = torch.linalg.solve_triangular(U, Ks, upper=True, left=True, unitriangular=False)
print("upper solve residual", float((U @ vu - Ks).abs().max()) < 1e-10)
print("cholesky upper", torch.allclose(torch.linalg.cholesky(Kxx, upper=True), U))
Lx, info = torch.linalg.cholesky_ex(Kxx)
print("cholesky_ex info", info, info.dtype)

# Matern kernel and model comparison
pm = torch.tensor([0.0, 0.0, -2.0], dtype=f64, requires_grad=True)
opt = torch.optim.Adam([pm], lr=0.05)
for step in range(60):
    opt.zero_grad()
    (-lml(pm, matern52)).backward()
    opt.step()
print("matern lml", round(lml(pm, matern52).item(), 2), "rbf lml", round(lml(p2).item(), 2))

# Nystrom / subset-of-regressors with inducing points
z = torch.linspace(-3, 3, 6, dtype=f64)[:, None]
Kzz = rbf(z, z, ls, var) + 1e-8 * torch.eye(6, dtype=f64)
Kxz = rbf(x, z, ls, var)
Lz = torch.linalg.cholesky(Kzz)
Q = Kxz @ torch.cholesky_solve(Kxz.T, Lz)
print(
    "nystrom approx err",
    round(float((Q - rbf(x, x, ls, var)).abs().max()), 3),
    "rank",
    int(torch.linalg.matrix_rank(Q, hermitian=True)),
)
A = Kxz.T @ Kxz / noise + Kzz
mu_sor = rbf(xs, z, ls, var) @ torch.linalg.solve(A, Kxz.T @ y) / noise
print("SoR mean close to exact", round(float((mu_sor - mu).abs().max()), 2))

# batched kernels over several length scales
lss = torch.tensor([0.3, 1.0, 3.0], dtype=f64)[:, None, None]
Kb = torch.exp(-0.5 * torch.cdist(x, x).pow(2)[None] / lss**2) + 1e-4 * torch.eye(n, dtype=f64)
Lb = torch.linalg.cholesky(Kb)
logdets = 2 * torch.log(torch.diagonal(Lb, dim1=-2, dim2=-1)).sum(-1)
print("batched logdet", r(logdets, nd=2), "match slogdet", torch.allclose(logdets, torch.linalg.slogdet(Kb).logabsdet))

# typical mistakes
bad = torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=f64)
try:
    torch.linalg.cholesky(bad)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print("cholesky_ex on indefinite", torch.linalg.cholesky_ex(bad).info.item())
try:
    torch.cholesky_solve(y, L)
except Exception as e:
    print(type(e).__name__, str(e))
try:
    torch.cdist(x, xs.T)
except Exception as e:
    print(type(e).__name__, str(e))
try:
    torch.linalg.solve_triangular(L, Ks)
except Exception as e:
    print(type(e).__name__, str(e))
