"""Nonlinear state estimation for a unicycle robot with GPS-like and range-bearing measurements, as localisation
code writes it: an EKF with Jacobians from torch.func.jacfwd, the Joseph-form update, the innovation covariance
factored by cholesky and used through solve_triangular (left/upper/unitriangular), lu_factor/lu_solve and
cholesky_inverse, a UKF with Merwe sigma points, Mahalanobis gating against chi-square quantiles, NEES/NIS
statistics, and MultivariateNormal likelihoods by scale_tril and precision_matrix."""

import math

import torch
from torch.distributions import Chi2, MultivariateNormal

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
DT = 0.1
Qn = torch.diag(torch.tensor([0.01, 0.01, 0.002], dtype=f64))
Rn = torch.diag(torch.tensor([0.09, 0.0025], dtype=f64))
BEACON = torch.tensor([5.0, 5.0], dtype=f64)


def f(x, u):
    v, w = u.unbind(-1)
    return torch.stack([x[..., 0] + DT * v * torch.cos(x[..., 2]), x[..., 1] + DT * v * torch.sin(x[..., 2]),
                        x[..., 2] + DT * w], -1)


def h(x):
    d = BEACON - x[..., :2]
    b = torch.atan2(d[..., 1], d[..., 0]) - x[..., 2]
    return torch.stack([d.norm(dim=-1), torch.atan2(torch.sin(b), torch.cos(b))], -1)


def wrap_innov(y):
    return torch.stack([y[..., 0], torch.atan2(torch.sin(y[..., 1]), torch.cos(y[..., 1]))], -1)


def ekf_step(x, P, u, z):
    F = torch.func.jacfwd(f)(x, u)
    x = f(x, u)
    P = F @ P @ F.T + Qn
    H = torch.func.jacfwd(h)(x)
    S = H @ P @ H.T + Rn
    L = torch.linalg.cholesky(S)
    # K = P H^T S^-1 via two triangular solves on the right
    PHt = P @ H.T
    K = torch.linalg.solve_triangular(L.T, torch.linalg.solve_triangular(L, PHt, upper=False, left=False),
                                      upper=True, left=False)
    y = wrap_innov(z - h(x))
    I_KH = torch.eye(3, dtype=f64) - K @ H
    P = I_KH @ P @ I_KH.T + K @ Rn @ K.T
    nis = y @ torch.cholesky_solve(y.unsqueeze(-1), L).squeeze(-1)
    return x + K @ y, P, nis


def sigma_points(x, P, alpha=0.3, beta=2.0, kappa=0.0):
    n = x.shape[0]
    lam = alpha ** 2 * (n + kappa) - n
    S = torch.linalg.cholesky((n + lam) * P)
    pts = torch.cat([x[None], x + S.T, x - S.T])
    wm = torch.full((2 * n + 1,), 1 / (2 * (n + lam)), dtype=f64)
    wc = wm.clone()
    wm[0] = lam / (n + lam)
    wc[0] = lam / (n + lam) + 1 - alpha ** 2 + beta
    return pts, wm, wc


def ukf_step(x, P, u, z):
    pts, wm, wc = sigma_points(x, P)
    fx = f(pts, u.expand(pts.shape[0], 2))
    x = wm @ fx
    dx = fx - x
    P = dx.T @ torch.diag(wc) @ dx + Qn
    pts, wm, wc = sigma_points(x, P)
    hz = h(pts)
    zm = torch.stack([wm @ hz[:, 0], torch.atan2(wm @ torch.sin(hz[:, 1]), wm @ torch.cos(hz[:, 1]))])
    dz = wrap_innov(hz - zm)
    S = (wc[:, None] * dz).T @ dz + Rn
    Pxz = (wc[:, None] * (pts - x)).T @ dz
    LU, piv = torch.linalg.lu_factor(S)
    K = torch.linalg.lu_solve(LU, piv, Pxz.T, adjoint=True).T
    return x + K @ wrap_innov(z - zm), P - K @ S @ K.T


truth = torch.tensor([0.0, 0.0, 0.0], dtype=f64)
x_e, P_e = truth + torch.tensor([0.3, -0.2, 0.1], dtype=f64), torch.eye(3, dtype=f64) * 0.1
x_u, P_u = x_e.clone(), P_e.clone()
gate = 9.2103  # the 0.99 quantile of chi-square with 2 dof (Chi2 has no icdf)
nis_all, nees_e, nees_u = [], [], []
noise = torch.randn(60, 2, dtype=f64) * Rn.diagonal().sqrt()
for t in range(60):
    u = torch.tensor([1.0, 0.3 * math.sin(t / 10)], dtype=f64)
    truth = f(truth, u)
    z = h(truth) + noise[t]
    if t == 30:
        z = z + torch.tensor([3.0, 0.0], dtype=f64)  # an outlier
    x_pred, P_pred, nis = ekf_step(x_e, P_e, u, z)
    if nis > gate:
        print(f"t={t} gated outlier nis={nis.item():.2f}")
        F = torch.func.jacfwd(f)(x_e, u)
        x_e, P_e = f(x_e, u), F @ P_e @ F.T + Qn
    else:
        x_e, P_e = x_pred, P_pred
        nis_all.append(nis)
    x_u, P_u = ukf_step(x_u, P_u, u, z if t != 30 else h(truth) + noise[t])
    e = truth - x_e
    nees_e.append(e @ torch.linalg.solve(P_e, e))
    e = truth - x_u
    nees_u.append(e @ torch.cholesky_inverse(torch.linalg.cholesky(P_u)) @ e)
print("ekf final err", (truth - x_e).abs().round(decimals=3).tolist())
print("ukf final err", (truth - x_u).abs().round(decimals=3).tolist())
print("mean NIS", round(torch.stack(nis_all).mean().item(), 2), "mean NEES ekf/ukf",
      round(torch.stack(nees_e[10:]).mean().item(), 2), round(torch.stack(nees_u[10:]).mean().item(), 2))
print("P symmetric PD", torch.allclose(P_e, P_e.T), torch.linalg.eigvalsh(P_e).min().item() > 0,
      torch.linalg.cholesky_ex(P_u).info.item())
chi = Chi2(torch.tensor([2.0, 3.0], dtype=f64))
print("chi2 cdf at gate", chi.cdf(torch.tensor([9.2103, 7.8147], dtype=f64)).round(decimals=4).tolist(),
      chi.mean.tolist(), chi.variance.tolist())

mvn_t = MultivariateNormal(x_e, scale_tril=torch.linalg.cholesky(P_e))
mvn_p = MultivariateNormal(x_e, precision_matrix=torch.linalg.inv(P_e))
mvn_c = MultivariateNormal(x_e, covariance_matrix=P_e)
print("log_prob truth", round(mvn_t.log_prob(truth).item(), 3), round(mvn_p.log_prob(truth).item(), 3),
      round(mvn_c.log_prob(truth).item(), 3))
print("entropy", round(mvn_c.entropy().item(), 4), "mahalanobis^2",
      round(((truth - x_e) @ mvn_p.precision_matrix @ (truth - x_e)).item(), 3))

A = torch.tensor([[4.0, 2.0, 0.6], [2.0, 3.0, 0.4], [0.6, 0.4, 2.0]], dtype=f64)
B = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=f64)
Lc = torch.linalg.cholesky(A)
U = torch.linalg.cholesky(A, upper=True)
print("upper == L^T", torch.allclose(U, Lc.T))
X1 = torch.linalg.solve_triangular(Lc, B, upper=False)
print("solve_triangular left", X1.round(decimals=4).tolist())
X2 = torch.linalg.solve_triangular(Lc, B.T, upper=False, left=False)
print("right == left^T", torch.allclose(X2, torch.linalg.solve_triangular(Lc.T, B, upper=True).T))
X3 = torch.linalg.solve_triangular(Lc, B, upper=False, unitriangular=True)
print("unitriangular", X3.round(decimals=4).tolist())
LU, piv = torch.linalg.lu_factor(A)
print("lu pivots", piv.tolist(), piv.dtype, torch.allclose(torch.linalg.lu_solve(LU, piv, B), torch.linalg.solve(A, B)))
print("lu_solve left=False", torch.allclose(torch.linalg.lu_solve(LU, piv, B.T, left=False), B.T @ torch.linalg.inv(A)))
print("mixed dtypes", torch.linalg.solve_triangular(Lc.float(), B, upper=False).dtype)
print("cholesky_inverse upper", torch.allclose(torch.cholesky_inverse(U, upper=True), torch.linalg.inv(A)))
try:
    torch.linalg.solve_triangular(Lc, B)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve_triangular(Lc, B.T, upper=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    Chi2(torch.tensor(2.0, dtype=f64)).icdf(torch.tensor(0.99, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.lu_solve(LU, piv, B[:2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve_triangular(Lc, B.T, upper=False, left=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    MultivariateNormal(x_e, covariance_matrix=P_e, precision_matrix=P_e)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.lu_solve(LU, piv.long(), B)
except Exception as e:
    print(type(e).__name__, e)
