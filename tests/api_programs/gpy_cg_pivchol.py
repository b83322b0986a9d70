"""GPyTorch's iterative solves by hand: a rank-k pivoted Cholesky preconditioner, preconditioned conjugate gradients
with batched right-hand sides (mBCG), Woodbury solves for the preconditioner, and convergence diagnostics."""

import warnings

import torch

torch.manual_seed(5)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64

n = 60
x = torch.linspace(0, 5, n, dtype=f64).unsqueeze(-1)
K = torch.exp(-0.5 * (x - x.mT).pow(2) / 0.7**2)
noise = 0.05
A = K + noise * torch.eye(n, dtype=f64)


def pivoted_cholesky(mat, rank, tol=1e-10):
    d = mat.diagonal().clone()
    perm = torch.arange(mat.shape[-1])
    Lk = torch.zeros(rank, mat.shape[-1], dtype=mat.dtype)
    errs = []
    for m in range(rank):
        i = m + int(torch.argmax(d[perm[m:]]))
        perm[[m, i]] = perm[[i, m]]
        pivot = d[perm[m]].sqrt()
        Lk[m, perm[m]] = pivot
        row = mat[perm[m], perm[m + 1 :]]
        if m > 0:
            row = row - Lk[:m, perm[m]] @ Lk[:m, perm[m + 1 :]]
        Lk[m, perm[m + 1 :]] = row / pivot
        d[perm[m + 1 :]] -= Lk[m, perm[m + 1 :]].pow(2)
        errs.append(d[perm[m + 1 :]].sum().item())
        if errs[-1] < tol:
            break
    return Lk[: m + 1].mT, perm, errs


Lk, perm, errs = pivoted_cholesky(K, 10)
print("pivchol", tuple(Lk.shape), "first pivots", perm[:4].tolist(), perm.dtype)
print("trace err", [round(e, 4) for e in errs[:6]])
print("approx err", round((K - Lk @ Lk.mT).abs().max().item(), 4))


def precond_solve(r):
    # (Lk Lk^T + s I)^-1 r by Woodbury with a k x k Cholesky
    k = Lk.shape[-1]
    inner = torch.linalg.cholesky(torch.eye(k, dtype=f64) + Lk.mT @ Lk / noise)
    t = torch.cholesky_solve(Lk.mT @ r, inner)
    return (r - Lk @ t / noise) / noise


def cg(mvm, b, precond=None, max_iter=200, tol=1e-8):
    xk = torch.zeros_like(b)
    r = b - mvm(xk)
    z = precond(r) if precond else r
    p = z.clone()
    rz = (r * z).sum(0, keepdim=True)
    norms = []
    for it in range(max_iter):
        Ap = mvm(p)
        alpha = rz / (p * Ap).sum(0, keepdim=True)
        xk = xk + alpha * p
        r = r - alpha * Ap
        norms.append(torch.linalg.vector_norm(r, dim=0).max().item())
        if norms[-1] < tol:
            break
        z = precond(r) if precond else r
        rz_new = (r * z).sum(0, keepdim=True)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return xk, it + 1, norms


b = torch.randn(n, 3, dtype=f64)
x_exact = torch.linalg.solve(A, b)
x_plain, it_plain, _ = cg(lambda v: A @ v, b)
x_pre, it_pre, norms = cg(lambda v: A @ v, b, precond_solve)
print("cg iters plain", it_plain > it_pre, "precond", it_pre <= 15)
print("cg err", (x_plain - x_exact).abs().max().item() < 1e-6, (x_pre - x_exact).abs().max().item() < 1e-6)
print("residual decreasing", all(a >= b_ * 0.5 for a, b_ in zip(norms, norms[1:])) or norms[-1] < 1e-8)
pc = precond_solve(torch.eye(n, dtype=f64))
print("precond sym", torch.allclose(pc, pc.mT, atol=1e-8), "spd", bool(torch.linalg.eigvalsh(pc).min() > 0))
cond_before = torch.linalg.cond(A).item()
PA = torch.linalg.cholesky(torch.linalg.inv(pc))
M = torch.linalg.solve_triangular(PA, torch.linalg.solve_triangular(PA, A, upper=False), upper=False, left=False)
print("condition number drop", cond_before > 10 * torch.linalg.cond(M).item())
print(
    "logdet via pivchol",
    round(torch.logdet(Lk @ Lk.mT + noise * torch.eye(n, dtype=f64)).item(), 3),
    "exact",
    round(torch.logdet(A).item(), 3),
)
sign, lad = torch.linalg.slogdet(A)
print("slogdet", sign.item(), round(lad.item(), 3), lad.dtype)
d = A.diagonal()
print("jacobi precond iters", cg(lambda v: A @ v, b, lambda r: r / d.unsqueeze(-1))[1] >= it_pre)
Ab = torch.stack([A, 2 * A])
xb = torch.linalg.solve(Ab, b)
print("batched exact", xb.shape, xb.stride(), torch.allclose(xb[1] * 2, xb[0]))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    row = K[[0, slice(None)]]
print("list key", row.shape, [(m.category.__name__, str(m.message)[:50]) for m in w])
