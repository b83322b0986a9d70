"""Implicit MAML (Rajeswaran et al.): the inner problem is regularized toward the meta-parameters, so the meta-
gradient is (I + H/lambda)^-1 applied to the query gradient, solved by conjugate gradient with Hessian-vector
products from double backward; checked against the explicit Hessian from torch.func.hessian, torch.linalg.solve,
and the unrolled inner loop's exact gradient in the limit."""

import torch
from torch.func import functional_call, hessian

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

model = nn.Sequential(nn.Linear(2, 6), nn.Tanh(), nn.Linear(6, 1))
names = [n for n, _ in model.named_parameters()]
shapes = [p.shape for p in model.parameters()]
sizes = [p.numel() for p in model.parameters()]
print("parameters", dict(zip(names, [tuple(s) for s in shapes])), "total", sum(sizes))


def unflatten(flat):
    return {n: t.view(s) for n, t, s in zip(names, flat.split(sizes), shapes)}


def loss_fn(flat, x, y):
    return F.mse_loss(functional_call(model, unflatten(flat), (x,)), y)


def sample_task(gen):
    a = torch.randn(2, 1, generator=gen)
    xs, xq = torch.randn(12, 2, generator=gen), torch.randn(12, 2, generator=gen)
    return xs, torch.sin(xs @ a), xq, torch.sin(xq @ a)


def inner_solve(phi, xs, ys, lam, steps=60, lr=0.1):
    """argmin_theta L(theta) + lam/2 |theta - phi|^2 by gradient descent (no graph kept)."""
    theta = phi.detach().clone().requires_grad_()
    for _ in range(steps):
        obj = loss_fn(theta, xs, ys) + 0.5 * lam * (theta - phi.detach()).pow(2).sum()
        (g,) = torch.autograd.grad(obj, theta)
        theta = (theta - lr * g).detach().requires_grad_()
    return theta


def hvp(theta, xs, ys, v):
    (g,) = torch.autograd.grad(loss_fn(theta, xs, ys), theta, create_graph=True)
    (hv,) = torch.autograd.grad(g, theta, grad_outputs=v)
    return hv


def conjugate_gradient(Av, b, iters=20, tol=1e-12):
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rs = r.dot(r)
    for i in range(iters):
        Ap = Av(p)
        alpha = rs / p.dot(Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r.dot(r)
        if rs_new.sqrt() < tol:
            return x, i + 1
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, iters


gen = torch.Generator().manual_seed(5)
phi = torch.cat([p.detach().flatten() for p in model.parameters()]).requires_grad_()
lam = 2.0
xs, ys, xq, yq = sample_task(gen)
theta = inner_solve(phi, xs, ys, lam)
(stationary,) = torch.autograd.grad(loss_fn(theta, xs, ys) + 0.5 * lam * (theta - phi).pow(2).sum(), theta)
print("inner stationarity", stationary.norm().item() < 1e-4)

(gq,) = torch.autograd.grad(loss_fn(theta, xq, yq), theta)
meta_cg, iters = conjugate_gradient(lambda v: v + hvp(theta, xs, ys, v) / lam, gq)
print("cg iterations", iters, "meta-grad norm", round(meta_cg.norm().item(), 4))

H = hessian(loss_fn)(theta.detach(), xs, ys)
print("hessian", tuple(H.shape), H.dtype, "symmetric", torch.allclose(H, H.T))
A = torch.eye(H.shape[0]) + H / lam
meta_exact = torch.linalg.solve(A, gq)
print("cg == solve", torch.allclose(meta_cg, meta_exact, atol=1e-8))
print("hvp == H @ v", torch.allclose(hvp(theta, xs, ys, gq), H @ gq, atol=1e-10))
evals = torch.linalg.eigvalsh(A)
print("A eigenvalues min/max", round(evals.min().item(), 4), round(evals.max().item(), 4))

# the implicit gradient against differentiating the unrolled solver (equal once the inner loop converges)
theta_u = phi
for _ in range(200):
    obj = loss_fn(theta_u, xs, ys) + 0.5 * lam * (theta_u - phi).pow(2).sum()
    (g,) = torch.autograd.grad(obj, theta_u, create_graph=True)
    theta_u = theta_u - 0.1 * g
(meta_unrolled,) = torch.autograd.grad(loss_fn(theta_u, xq, yq), phi)
print("implicit vs unrolled", round((meta_unrolled - meta_cg).norm().item(), 4),
      "cosine", round(F.cosine_similarity(meta_unrolled, meta_cg, dim=0).item(), 4))

# an outer loop: Adam on phi with implicit meta-gradients over a stream of tasks
opt = torch.optim.Adam([phi], lr=0.02)
for it in range(4):
    xs, ys, xq, yq = sample_task(gen)
    theta = inner_solve(phi, xs, ys, lam)
    (gq,) = torch.autograd.grad(loss_fn(theta, xq, yq), theta)
    g_meta, n = conjugate_gradient(lambda v: v + hvp(theta, xs, ys, v) / lam, gq, iters=10)
    opt.zero_grad()
    phi.grad = g_meta
    opt.step()
    print(f"outer {it} query {loss_fn(theta, xq, yq).item():.4f} cg-iters {n}")

for bad in [lambda: torch.linalg.solve(A, gq[:-1]),
            lambda: torch.autograd.grad(loss_fn(theta, xs, ys), theta, grad_outputs=torch.ones(2)),
            lambda: hessian(loss_fn, argnums=3)(theta.detach(), xs, ys)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
