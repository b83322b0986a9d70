"""Least squares and Bayesian linear regression the way a statistician checks them in PyTorch: polynomial design
matrices with vander, solutions by linalg.lstsq (drivers), pinv, QR and SVD that must agree, ridge by augmented
least squares, the conjugate Gaussian posterior with its evidence maximised over alpha/beta (MacKay's fixed point),
the hat matrix and leverage, weighted least squares, PCA via eigh and svd_lowrank, and the errors of shape mistakes."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
rng = np.random.default_rng(17)


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


n = 40
x = torch.from_numpy(np.sort(rng.uniform(-1, 1, n)))
w_true = torch.tensor([0.5, -1.0, 2.0, 0.7], dtype=f64)
Phi = torch.linalg.vander(x, N=4)
y = Phi @ w_true + torch.from_numpy(0.1 * rng.standard_normal(n))
print("design", Phi.shape, Phi.dtype, "first row", r(Phi[0], 4))
print(
    "vander increasing",
    torch.allclose(Phi[:, 2], x**2),
    "torch.vander decreasing",
    torch.allclose(torch.vander(x, N=4)[:, 0], x**3),
)

sol = torch.linalg.lstsq(Phi, y[:, None])
print("lstsq fields", type(sol).__name__, sol.solution.shape, "rank", sol.rank, "sv", sol.singular_values)
w_ls = sol.solution[:, 0]
print("w_ls", r(w_ls, nd=3))
for driver in ("gelsd", "gelss", "gelsy"):
    s2 = torch.linalg.lstsq(Phi, y, driver=driver)
    print(driver, torch.allclose(s2.solution, w_ls, atol=1e-10), "rank", int(s2.rank), s2.singular_values.shape)
w_pinv = torch.linalg.pinv(Phi) @ y
Q, R = torch.linalg.qr(Phi)
w_qr = torch.linalg.solve_triangular(R, (Q.T @ y)[:, None], upper=True)[:, 0]
U, S, Vh = torch.linalg.svd(Phi, full_matrices=False)
w_svd = Vh.T @ ((U.T @ y) / S)
w_ne = torch.linalg.solve(Phi.T @ Phi, Phi.T @ y)
print("pinv/qr/svd/normal agree", all(torch.allclose(w, w_ls, atol=1e-9) for w in (w_pinv, w_qr, w_svd, w_ne)))
print("Q orthonormal", torch.allclose(Q.T @ Q, torch.eye(4, dtype=f64)), "R upper", torch.equal(R, R.triu()))
Qc, Rc = torch.linalg.qr(Phi, mode="complete")
print("complete QR", Qc.shape, Rc.shape, "r mode", torch.linalg.qr(Phi, mode="r").Q.shape)
print("cond", round(torch.linalg.cond(Phi).item(), 3), "==", round((S.max() / S.min()).item(), 3))
print("svdvals", torch.allclose(torch.linalg.svdvals(Phi), S), "matrix_rank", int(torch.linalg.matrix_rank(Phi)))

res = y - Phi @ w_ls
sigma2 = res.dot(res) / (n - 4)
cov_w = sigma2 * torch.linalg.inv(Phi.T @ Phi)
se = cov_w.diagonal().sqrt()
print("sigma", round(sigma2.sqrt().item(), 4), "se", r(se, nd=4))
tstat = w_ls / se
print("t stats", r(tstat, nd=1), "R^2", round((1 - res.var() / y.var()).item(), 4))

# hat matrix and leverage
H = Phi @ torch.linalg.pinv(Phi)
lev = H.diagonal()
print(
    "hat idempotent",
    torch.allclose(H @ H, H, atol=1e-10),
    "trace",
    round(H.trace().item(), 6),
    "max leverage at ends",
    bool(lev.argmax() in (0, n - 1)),
)
cooks = res**2 / (4 * sigma2) * lev / (1 - lev) ** 2
print("cook's D top", torch.topk(cooks, 2).indices.sort().values.tolist())

# ridge: closed form vs augmented lstsq
lam = 0.5
A_aug = torch.cat([Phi, math.sqrt(lam) * torch.eye(4, dtype=f64)])
y_aug = torch.cat([y, torch.zeros(4, dtype=f64)])
w_ridge = torch.linalg.lstsq(A_aug, y_aug).solution
w_ridge2 = torch.linalg.solve(Phi.T @ Phi + lam * torch.eye(4, dtype=f64), Phi.T @ y)
print(
    "ridge", r(w_ridge, nd=3), "agree", torch.allclose(w_ridge, w_ridge2), "shrinks", bool(w_ridge.norm() < w_ls.norm())
)

# Bayesian linear regression with evidence maximisation
alpha, beta = 1.0, 1.0
eig0 = torch.linalg.eigvalsh(Phi.T @ Phi)
for it in range(50):
    A = alpha * torch.eye(4, dtype=f64) + beta * Phi.T @ Phi
    L = torch.linalg.cholesky(A)
    m = beta * torch.cholesky_solve((Phi.T @ y)[:, None], L)[:, 0]
    lam_i = beta * eig0
    gamma = (lam_i / (lam_i + alpha)).sum()
    alpha_new = gamma / m.dot(m)
    beta_new = (n - gamma) / ((y - Phi @ m) ** 2).sum()
    if abs(alpha_new - alpha) < 1e-10 and abs(beta_new - beta) < 1e-10:
        break
    alpha, beta = alpha_new.item(), beta_new.item()
print("evidence fixed point", it, "alpha", round(alpha, 3), "beta", round(beta, 1), "gamma", round(gamma.item(), 3))
A = alpha * torch.eye(4, dtype=f64) + beta * Phi.T @ Phi
sign, logdetA = torch.linalg.slogdet(A)
E_m = beta / 2 * ((y - Phi @ m) ** 2).sum() + alpha / 2 * m.dot(m)
log_ev = 2 * math.log(alpha) + n / 2 * math.log(beta) - E_m - 0.5 * logdetA - n / 2 * math.log(2 * math.pi)
print("posterior mean", r(m, nd=3), "slogdet sign", sign.item(), "log evidence", round(log_ev.item(), 2))
S_N = torch.cholesky_inverse(torch.linalg.cholesky(A))
xq = torch.tensor([-1.2, 0.0, 1.2], dtype=f64)
Pq = torch.linalg.vander(xq, N=4)
pred_var = 1 / beta + (Pq @ S_N * Pq).sum(-1)
print("predictive sd", r(pred_var.sqrt(), nd=3), "inv == cholesky_inverse", torch.allclose(torch.linalg.inv(A), S_N))
mvn = torch.distributions.MultivariateNormal(m, precision_matrix=A)
print(
    "posterior MVN",
    mvn.event_shape,
    "entropy",
    round(mvn.entropy().item(), 3),
    "log_prob(m)",
    round(mvn.log_prob(m).item(), 3),
)

# evidence by model order
for order in (2, 3, 4, 6):
    P = torch.linalg.vander(x, N=order)
    Ao = alpha * torch.eye(order, dtype=f64) + beta * P.T @ P
    mo = beta * torch.linalg.solve(Ao, P.T @ y)
    Eo = beta / 2 * ((y - P @ mo) ** 2).sum() + alpha / 2 * mo.dot(mo)
    ev = (
        order / 2 * math.log(alpha)
        + n / 2 * math.log(beta)
        - Eo
        - 0.5 * torch.logdet(Ao)
        - n / 2 * math.log(2 * math.pi)
    )
    print("order", order, "log evidence", round(ev.item(), 2))

# weighted least squares with heteroscedastic noise
wts = torch.from_numpy(rng.uniform(0.5, 2.0, n))
Wsq = wts.sqrt()
w_wls = torch.linalg.lstsq(Phi * Wsq[:, None], y * Wsq).solution
w_wls2 = torch.linalg.solve(Phi.T @ (wts[:, None] * Phi), Phi.T @ (wts * y))
print("WLS agree", torch.allclose(w_wls, w_wls2), r(w_wls, nd=3))

# batched lstsq over several targets and several designs
Y = torch.stack([y, 2 * y, -y], 1)
Wb = torch.linalg.lstsq(Phi, Y).solution
print("multi-target", Wb.shape, torch.allclose(Wb[:, 1], 2 * w_ls))
Pb = torch.stack([Phi, Phi * 2])
Wbb = torch.linalg.lstsq(Pb, torch.stack([y, y])[..., None]).solution
print("batched designs", Wbb.shape, torch.allclose(Wbb[1, :, 0], w_ls / 2))

# PCA of correlated data: eigh of the covariance vs svd vs svd_lowrank
Z = torch.from_numpy(rng.standard_normal((200, 3))) @ torch.tensor(
    [[3.0, 0, 0], [1.0, 1.0, 0], [0.5, 0.2, 0.3]], dtype=f64
)
Zc = Z - Z.mean(0)
evals, evecs = torch.linalg.eigh(torch.cov(Zc.T))
_, Sz, Vz = torch.linalg.svd(Zc, full_matrices=False)
print("eigh ascending", r(evals, nd=3), "svd^2/(n-1)", r((Sz**2 / 199).flip(0), nd=3))
print("top PC aligned", round(abs(evecs[:, -1].dot(Vz[0])).item(), 6))
Ul, Sl, Vl = torch.svd_lowrank(Zc, q=2, niter=4)
print("svd_lowrank", Ul.shape, Sl.shape, Vl.shape, "top sv close", bool(abs(Sl[0] - Sz[0]) / Sz[0] < 1e-6))
print("explained", r(evals.flip(0) / evals.sum(), nd=3))

# typical mistakes
try:
    torch.linalg.lstsq(Phi, y[:30])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.lstsq(Phi, y, driver="gels_fast")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.qr(Phi, mode="full")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.vander(torch.tensor(2.0))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(Phi, y)
except Exception as e:
    print(type(e).__name__, e)
