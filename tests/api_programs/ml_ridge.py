"""Ridge and kernel ridge regression with torch.linalg: normal equations via solve, Cholesky with cholesky_solve,
lstsq with each CPU driver, an augmented-system ridge, leave-one-out CV from the hat matrix, a polynomial feature
map, and an RBF kernel ridge with a generalized-CV search over alpha."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

n, d = 60, 4
X = torch.randn(n, d, dtype=torch.float64)
w_true = torch.tensor([2.0, -1.0, 0.0, 0.5], dtype=torch.float64)
y = X @ w_true + 1.0 + 0.2 * torch.randn(n, dtype=torch.float64)
x_mean, y_mean = X.mean(0), y.mean()
Xc, yc = X - x_mean, y - y_mean
print("data", X.shape, y.shape, X.dtype)

for drv in ("gelsy", "gelsd", "gelss", "gels"):
    res = torch.linalg.lstsq(Xc, yc.unsqueeze(1), driver=drv)
    extras = (res.rank.item() if res.rank.numel() else None, tuple(res.singular_values.shape))
    print(f"lstsq {drv}: w={res.solution.squeeze(1)} rank/sv={extras} residuals={tuple(res.residuals.shape)}")

alpha = 3.0
A = Xc.T @ Xc + alpha * torch.eye(d, dtype=torch.float64)
w_solve = torch.linalg.solve(A, Xc.T @ yc)
L = torch.linalg.cholesky(A)
w_chol = torch.cholesky_solve((Xc.T @ yc).unsqueeze(1), L).squeeze(1)
print("L lower", torch.allclose(L, L.tril()), "L diag", L.diagonal())
print("ridge solve", w_solve)
print("cholesky_solve agrees", torch.allclose(w_solve, w_chol))
Xaug = torch.cat([Xc, alpha ** 0.5 * torch.eye(d, dtype=torch.float64)])
yaug = torch.cat([yc, torch.zeros(d, dtype=torch.float64)])
w_aug = torch.linalg.lstsq(Xaug, yaug.unsqueeze(1)).solution.squeeze(1)
print("augmented lstsq agrees", torch.allclose(w_solve, w_aug))
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
w_svd = Vh.T @ ((S / (S ** 2 + alpha)) * (U.T @ yc))
print("svd ridge agrees", torch.allclose(w_solve, w_svd))
b = y_mean - x_mean @ w_solve
print("intercept", round(b.item(), 4))

# leave-one-out CV error through the hat matrix, over a grid of alphas
alphas = torch.logspace(-3, 3, 7, dtype=torch.float64)
print("alphas", alphas)
loo = []
for a in alphas:
    H = Xc @ torch.linalg.solve(Xc.T @ Xc + a * torch.eye(d, dtype=torch.float64), Xc.T)
    r = (yc - H @ yc) / (1 - H.diagonal())
    loo.append(r.pow(2).mean().item())
loo = torch.tensor(loo)
print("loo mse", loo)
print("best alpha", alphas[loo.argmin()].item(), "dof at best", round(torch.trace(
    Xc @ torch.linalg.solve(Xc.T @ Xc + alphas[loo.argmin()] * torch.eye(d, dtype=torch.float64), Xc.T)).item(), 4))

# polynomial features on 1-d data, batched solves over several alphas at once
x1 = torch.linspace(-1, 1, 30, dtype=torch.float64)
t1 = torch.sin(3 * x1) + 0.1 * torch.randn(30, dtype=torch.float64)
Phi = torch.vander(x1, N=6, increasing=True)
print("vander", Phi.shape, Phi[1])
G = Phi.T @ Phi
As = G.unsqueeze(0) + torch.tensor([1e-6, 1e-2, 1.0], dtype=torch.float64).view(-1, 1, 1) * torch.eye(6,
                                                                                                      dtype=torch.float64)
rhs = (Phi.T @ t1).expand(3, 6).unsqueeze(-1)
Wb = torch.linalg.solve(As, rhs).squeeze(-1)
print("batched solve", Wb.shape)
print("coefs per alpha\n", Wb)
fit_err = (Phi @ Wb.T - t1.unsqueeze(1)).pow(2).mean(0)
print("train mse per alpha", fit_err)
print("cond numbers", torch.linalg.cond(As))

# kernel ridge with an RBF kernel
def rbf(a, b, ls):
    return torch.exp(-torch.cdist(a, b).pow(2) / (2 * ls ** 2))


xt = x1.unsqueeze(1)
xq = torch.tensor([[-0.9], [0.0], [0.55]], dtype=torch.float64)
best = None
for ls in (0.1, 0.3, 1.0):
    K = rbf(xt, xt, ls)
    for lam in (1e-3, 1e-1):
        Kr = K + lam * torch.eye(30, dtype=torch.float64)
        Lk = torch.linalg.cholesky(Kr)
        alpha_k = torch.cholesky_solve(t1.unsqueeze(1), Lk)
        Hk = K @ torch.cholesky_inverse(Lk)
        resid = t1 - Hk @ t1
        gcv = 30 * resid.pow(2).sum() / (30 - Hk.trace()) ** 2
        print(f"ls={ls} lam={lam} gcv={gcv.item():.5f} eff dof={Hk.trace().item():.3f}")
        if best is None or gcv < best[0]:
            best = (gcv.item(), ls, lam, alpha_k)
_, ls_b, lam_b, alpha_b = best
print("selected", ls_b, lam_b)
pred = rbf(xq, xt, ls_b) @ alpha_b
print("kernel ridge predictions", pred.squeeze(1), "truth", torch.sin(3 * xq).squeeze(1))

try:
    torch.linalg.cholesky(-torch.eye(3, dtype=torch.float64))
except torch.linalg.LinAlgError as e:
    print("LinAlgError:", e)
L_info, info = torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
print("cholesky_ex info", info.item())
try:
    torch.linalg.lstsq(Xc, yc.unsqueeze(1), driver="gelsx")
except RuntimeError as e:
    print("RuntimeError:", e)
for name, fn in [("1-D design", lambda: torch.linalg.lstsq(Xc[:, 0], yc)),
                 ("0-dim target", lambda: torch.linalg.lstsq(Xc, yc[0])),
                 ("rows before driver", lambda: torch.linalg.lstsq(Xc, yc[:10].unsqueeze(1), driver="qr"))]:
    try:
        fn()
    except RuntimeError as e:
        print(f"{name}: {e}")
W_sol = torch.eye(d, dtype=torch.float64).requires_grad_()
print("solve grad_fn", type(torch.linalg.solve(A + W_sol, Xc.T @ yc).grad_fn).__name__,
      type(torch.linalg.solve(A + W_sol, (Xc.T @ yc).unsqueeze(0), left=False).grad_fn).__name__,
      "cov grad_fn", type(torch.cov((Xc + W_sol[0]).T).grad_fn).__name__)
