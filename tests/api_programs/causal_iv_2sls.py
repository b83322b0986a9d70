"""Instrumental variables by two-stage least squares with torch.linalg.lstsq (every CPU driver), solve and pinv,
first-stage F statistics, weak and collinear instruments, batched designs and sandwich standard errors."""

import torch

torch.manual_seed(2)
torch.set_printoptions(precision=4, sci_mode=False)
n = 300
Z = torch.randn(n, 2, dtype=torch.float64)
U = torch.randn(n, dtype=torch.float64)
D = Z @ torch.tensor([1.0, 0.5], dtype=torch.float64) + U + 0.3 * torch.randn(n, dtype=torch.float64)
Y = 1.5 * D + 2.0 * U + 0.5 * torch.randn(n, dtype=torch.float64)
ones = torch.ones(n, 1, dtype=torch.float64)
Zc = torch.cat([ones, Z], dim=1)
Dc = torch.column_stack([ones, D])

ols = torch.linalg.lstsq(Dc, Y.unsqueeze(1))
print("ols", ols.solution.squeeze(1).round(decimals=4), type(ols).__name__)
for drv in ["gelsy", "gelsd", "gelss", "gels"]:
    r = torch.linalg.lstsq(Zc, D, driver=drv)
    print(drv, r.solution.round(decimals=4), r.rank, r.residuals.shape, r.singular_values.shape)
r = torch.linalg.lstsq(Zc, D.unsqueeze(1), driver="gelsd")
print("rank", r.rank, r.rank.dtype, "sv", r.singular_values.round(decimals=3), "res", r.residuals.round(decimals=3))
first = torch.linalg.lstsq(Zc, Dc).solution
D_hat = Zc @ first
beta_2sls = torch.linalg.lstsq(D_hat, Y).solution
print("2sls", beta_2sls.round(decimals=4))
# closed form with solve and pinv
P = Zc @ torch.linalg.solve(Zc.T @ Zc, Zc.T)
beta_cf = torch.linalg.solve(Dc.T @ P @ Dc, Dc.T @ P @ Y)
beta_pinv = torch.linalg.pinv(P @ Dc) @ Y
print("closed form", torch.allclose(beta_cf, beta_2sls), torch.allclose(beta_pinv, beta_2sls))
print("P idempotent", torch.allclose(P @ P, P), round(torch.trace(P).item(), 6))
# solve with left=False and batched right-hand sides
A = Zc.T @ Zc
B = torch.stack([Zc.T @ D, Zc.T @ Y])
try:
    torch.linalg.solve(A, B)
except Exception as ex:
    print(type(ex).__name__, ex)
print("batched", torch.linalg.solve(A, B.T).shape, torch.linalg.solve(A.expand(2, 3, 3), B).shape)
print("left=False", torch.linalg.solve(A, B, left=False).round(decimals=4))
print("solve_ex", torch.linalg.solve_ex(A, B.T).info, torch.linalg.solve_ex(A, B.T).result.shape)
# residuals and sandwich SE
resid = Y - Dc @ beta_2sls
sigma2 = resid.pow(2).sum() / (n - 2)
bread = torch.linalg.inv(D_hat.T @ D_hat)
se = torch.sqrt(torch.diag(sigma2 * bread))
meat = (D_hat * resid[:, None]).T @ (D_hat * resid[:, None])
se_hc0 = torch.diagonal(bread @ meat @ bread).sqrt()
print("se", se.round(decimals=4), "hc0", se_hc0.round(decimals=4))
# first-stage F
rss_r = (D - D.mean()).pow(2).sum()
rss_u = (D - Zc @ torch.linalg.lstsq(Zc, D).solution).pow(2).sum()
F_stat = ((rss_r - rss_u) / 2) / (rss_u / (n - 3))
print("F", round(F_stat.item(), 2))
# collinear instrument: rank-deficient design
Zbad = torch.cat([Zc, Zc[:, 1:2] * 2], dim=1)
for drv in ["gelsy", "gelsd", "gelss"]:
    r = torch.linalg.lstsq(Zbad, D, driver=drv)
    print("collinear", drv, r.rank.item(), round((Zbad @ r.solution - D).norm().item(), 4))
print(
    "matrix_rank",
    torch.linalg.matrix_rank(Zbad).item(),
    torch.linalg.matrix_rank(Zbad, hermitian=False, rtol=0.5).item(),
)
print("pinv atol", torch.linalg.pinv(Zbad.T @ Zbad, atol=1e-8, hermitian=True).shape)
print("cond", round(torch.linalg.cond(Zc).item(), 4), torch.linalg.cond(Zbad.T @ Zbad).item() > 1e10)
try:
    torch.linalg.solve(Zbad.T @ Zbad, Zbad.T @ D)
    print("solve singular passed")
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.linalg.inv(torch.zeros(2, 2, dtype=torch.float64))
except Exception as ex:
    print(type(ex).__name__, ex)
# float32 and batched lstsq
r32 = torch.linalg.lstsq(Zc.float(), D.float())
print("f32", r32.solution.dtype, r32.rank.shape, r32.residuals.shape)
Zb = torch.randn(4, 20, 3, dtype=torch.float64)
Db = torch.randn(4, 20, 2, dtype=torch.float64)
rb = torch.linalg.lstsq(Zb, Db, driver="gelsd")
print("batched lstsq", rb.solution.shape, rb.rank.tolist(), rb.residuals.shape, rb.singular_values.shape)
print("broadcast", torch.linalg.lstsq(Zb[:1], Db).solution.shape)
try:
    torch.linalg.lstsq(Zb[0], Db)
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.linalg.lstsq(Zc, D[:10])
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.linalg.lstsq(Zc, D, driver="qr")
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.linalg.lstsq(Zc.int(), D)
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.linalg.lstsq(Zc, D.float())
except Exception as ex:
    print(type(ex).__name__, ex)
# wide (underdetermined) system: min-norm solution
W = torch.randn(2, 5, dtype=torch.float64)
bw = torch.randn(2, dtype=torch.float64)
for drv in ["gelsy", "gelsd", "gels"]:
    s = torch.linalg.lstsq(W, bw, driver=drv)
    print("wide", drv, s.solution.shape, round(s.solution.norm().item(), 4), s.residuals.shape)
print("pinv wide", (torch.linalg.pinv(W) @ bw).norm().round(decimals=4))
print("old api", torch.pinverse(W).shape, torch.inverse(A).shape)
