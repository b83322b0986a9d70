"""Gradients through torch.linalg as ML code takes them: a GP marginal likelihood through cholesky and
cholesky_solve, ridge regression through solve, spectral-norm and nuclear-norm penalties through svdvals/eigh
(gauge-invariant losses only), logdet/slogdet of a covariance, inv and pinv, and gradcheck in float64."""

import torch

torch.manual_seed(21)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def r4(t):
    return torch.round(t, decimals=4)


# --- GP negative log marginal likelihood ---------------------------------------------------------------------
x = torch.linspace(0, 4, 8, dtype=f64)[:, None]
y = torch.sin(x).squeeze(-1) + 0.1 * torch.randn(8, dtype=f64)
log_ls = torch.tensor(0.0, dtype=f64, requires_grad=True)
log_sf = torch.tensor(0.0, dtype=f64, requires_grad=True)
log_sn = torch.tensor(-2.0, dtype=f64, requires_grad=True)
opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)
for step in range(30):
    opt.zero_grad()
    d2 = torch.cdist(x, x).pow(2)
    noise = (log_sn.exp() ** 2 + 1e-6) * torch.eye(8, dtype=f64)
    K = log_sf.exp() ** 2 * torch.exp(-0.5 * d2 / log_ls.exp() ** 2) + noise
    L = LA.cholesky(K)
    alpha = torch.cholesky_solve(y[:, None], L)
    const = 4 * torch.log(torch.tensor(2 * torch.pi))
    nll = 0.5 * (y[None] @ alpha).squeeze() + torch.log(torch.diagonal(L)).sum() + const
    nll.backward()
    if step % 10 == 0:
        print(f"step {step} nll {nll.item():.4f} grads {log_ls.grad.item():.4f} {log_sf.grad.item():.4f} "
              f"{log_sn.grad.item():.4f}")
    opt.step()
print("hyper", round(log_ls.item(), 4), round(log_sf.item(), 4), round(log_sn.item(), 4))
print("L grad_fn", type(L.grad_fn).__name__)

# --- ridge regression through solve --------------------------------------------------------------------------
X = torch.randn(10, 3, dtype=f64)
t = X @ torch.tensor([1.0, -1.0, 0.5], dtype=f64) + 0.1 * torch.randn(10, dtype=f64)
lam = torch.tensor(0.5, dtype=f64, requires_grad=True)
w = LA.solve(X.mT @ X + lam * torch.eye(3, dtype=f64), X.mT @ t)
val_loss = (X @ w - t).pow(2).mean()
val_loss.backward()
print("ridge w", r4(w.detach()), "dloss/dlam", round(lam.grad.item(), 4))
Ar = torch.randn(3, 3, dtype=f64, requires_grad=True)
Br = torch.randn(2, 3, dtype=f64, requires_grad=True)
LA.solve(Ar + 3 * torch.eye(3, dtype=f64), Br, left=False).sum().backward()
print("left=False grads", r4(Ar.grad), r4(Br.grad))

# --- spectral quantities -------------------------------------------------------------------------------------
W = torch.randn(4, 3, dtype=f64, requires_grad=True)
s = LA.svdvals(W)
(s[0] + 0.1 * s.sum()).backward()
print("svdvals", r4(s.detach()), "grad", r4(W.grad))
W2 = W.detach().clone().requires_grad_()
U, S, Vh = LA.svd(W2, full_matrices=False)
(U @ torch.diag(S) @ Vh).pow(2).sum().backward()
print("svd reconstruction grad = 2W", torch.allclose(W2.grad, 2 * W2.detach()))
W3 = W.detach().clone().requires_grad_()
U3, S3, Vh3 = LA.svd(W3, full_matrices=False)
(U3[:, :1] @ U3[:, :1].mT).diagonal().sum().backward()
print("projector grad ~ 0", round(W3.grad.abs().max().item(), 4))
M = torch.randn(4, 4, dtype=f64)
Sym = (M + M.mT).requires_grad_()
evals, evecs = LA.eigh(Sym)
(evals[-1] + (evecs[:, -1:] @ evecs[:, -1:].mT)[0, 0]).backward()
print("eigh grad", r4(Sym.grad))
Sym2 = (M + M.mT).requires_grad_()
LA.eigvalsh(Sym2).pow(2).sum().backward()
print("sum lambda^2 grad = 2A", torch.allclose(Sym2.grad, 2 * Sym2.detach()))
Wn = torch.randn(3, 5, dtype=f64, requires_grad=True)
LA.matrix_norm(Wn, ord="nuc").backward()
print("nuclear grad", r4(Wn.grad))
Wm = torch.randn(3, 3, dtype=f64, requires_grad=True)
LA.matrix_norm(Wm, ord=2).backward()
print("spectral grad", r4(Wm.grad))

# --- determinants, inverses ----------------------------------------------------------------------------------
C = torch.randn(3, 3, dtype=f64)
C = (C @ C.mT + torch.eye(3, dtype=f64)).requires_grad_()
torch.logdet(C).backward()
print("logdet grad = inv", torch.allclose(C.grad, LA.inv(C.detach())), r4(C.grad))
D = torch.randn(3, 3, dtype=f64, requires_grad=True)
sign, lad = LA.slogdet(D)
lad.backward()
print("slogdet grad = inv^T", torch.allclose(D.grad, LA.inv(D.detach()).mT), "sign", sign.item())
E = torch.randn(3, 3, dtype=f64, requires_grad=True)
LA.det(E).backward()
print("det grad = cofactor", torch.allclose(E.grad, LA.det(E.detach()) * LA.inv(E.detach()).mT))
F = torch.randn(3, 3, dtype=f64, requires_grad=True)
LA.inv(F).sum().backward()
print("inv grad", r4(F.grad))
P = torch.randn(4, 2, dtype=f64, requires_grad=True)
LA.pinv(P).pow(2).sum().backward()
print("pinv grad", r4(P.grad))
Q = torch.randn(3, 3, dtype=f64, requires_grad=True)
LA.matrix_exp(0.3 * Q).trace().backward()
print("matrix_exp grad", r4(Q.grad))

# --- gradcheck -----------------------------------------------------------------------------------------------
A0 = torch.randn(3, 3, dtype=f64)
A0 = A0 @ A0.mT + torch.eye(3, dtype=f64)
I3 = torch.eye(3, dtype=f64)


def rg(*shape):
    return torch.randn(*shape, dtype=f64, requires_grad=True)


checks = {
    "solve": (lambda a, b: LA.solve(a, b), (A0.clone().requires_grad_(), rg(3, 2))),
    "cholesky": (lambda a: LA.cholesky(a @ a.mT + I3), (rg(3, 3),)),
    "eigvalsh": (lambda a: LA.eigvalsh(a + a.mT), (rg(3, 3),)),
    "svdvals": (lambda a: LA.svdvals(a), (rg(4, 3),)),
    "solve_triangular": (lambda a, b: LA.solve_triangular(a.triu() + 3 * I3, b, upper=True), (rg(3, 3), rg(3, 2))),
    "lu_solve": (lambda a, b: LA.lu_solve(*LA.lu_factor(a), b), (A0.clone().requires_grad_(), rg(3, 1))),
}
for name, (fn, inputs) in checks.items():
    print("gradcheck", name, torch.autograd.gradcheck(fn, inputs))
