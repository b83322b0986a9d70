"""Curvature code as optimisation research writes it: Hessian-vector products by double backward (Pearlmutter),
checked against torch.autograd.functional.hvp/vhp/hessian and finite differences, power iteration for the top
eigenvalue, Hutchinson's trace estimator, and a conjugate-gradient Newton step on a small model."""

import torch
import torch.nn as nn
from torch.autograd.functional import hessian, hvp, vhp

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

X = torch.randn(32, 3, dtype=torch.float64)
true_w = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64)
Y = (X @ true_w + 0.1 * torch.randn(32, dtype=torch.float64) > 0).double()


def loss_fn(w):
    logits = X @ w[:3] + w[3]
    return nn.functional.binary_cross_entropy_with_logits(logits, Y) + 0.01 * w.pow(2).sum()


w = torch.zeros(4, dtype=torch.float64, requires_grad=True)


def pearlmutter(f, params, v):
    (g,) = torch.autograd.grad(f(params), params, create_graph=True)
    (hv,) = torch.autograd.grad(g, params, grad_outputs=v)
    return hv


v = torch.tensor([1.0, 0.0, -1.0, 0.5], dtype=torch.float64)
hv1 = pearlmutter(loss_fn, w, v)
val, hv2 = hvp(loss_fn, w.detach(), v)
val3, vh3 = vhp(loss_fn, w.detach(), v)
H = hessian(loss_fn, w.detach())
print("loss at 0:", round(val.item(), 6), "vhp value same:", torch.equal(val, val3))
print("Hv (double backward):", hv1)
print("Hv (functional.hvp):", hv2)
print("vH (functional.vhp):", vh3)
print("H @ v:", H @ v)
print("H symmetric:", torch.allclose(H, H.T), "shape:", tuple(H.shape))

eps = 1e-5
(gp,) = torch.autograd.grad(loss_fn(w + eps * v), w)
(gm,) = torch.autograd.grad(loss_fn(w - eps * v), w)
print("finite-difference Hv close:", torch.allclose((gp - gm) / (2 * eps), hv1, atol=1e-6))

# power iteration for the top eigenvalue, against eigvalsh
torch.manual_seed(1)
q = torch.randn(4, dtype=torch.float64)
q /= q.norm()
for it in range(30):
    hq = pearlmutter(loss_fn, w, q)
    lam = torch.dot(q, hq).item()
    q = hq / hq.norm()
print("power-iteration top eigenvalue:", round(lam, 6))
print("eigvalsh:", torch.linalg.eigvalsh(H))

# Hutchinson trace with Rademacher probes
torch.manual_seed(2)
est = []
for _ in range(200):
    r = torch.randint(0, 2, (4,), dtype=torch.float64) * 2 - 1
    est.append(torch.dot(r, pearlmutter(loss_fn, w, r)).item())
print("hutchinson trace:", round(sum(est) / len(est), 4), "exact:", round(H.trace().item(), 4))

# Newton-CG: solve H d = -g with conjugate gradients using only Hessian-vector products
wk = w.detach().clone()
for newton_step in range(4):
    wk.requires_grad_(True)
    loss = loss_fn(wk)
    (g,) = torch.autograd.grad(loss, wk, create_graph=True)
    d = torch.zeros_like(wk)
    r = -g.detach()
    p = r.clone()
    rs = r.dot(r)
    for cg in range(10):
        (Hp,) = torch.autograd.grad(g, wk, grad_outputs=p, retain_graph=True)
        a = rs / p.dot(Hp)
        d = d + a * p
        r = r - a * Hp
        rs_new = r.dot(r)
        if rs_new.sqrt() < 1e-10:
            break
        p = r + (rs_new / rs) * p
        rs = rs_new
    wk = (wk + d).detach()
    print(f"newton {newton_step}: loss {loss.item():.6f} |g| {g.norm().item():.3e} cg iters {cg + 1}")
print("newton solution:", wk)

# Gauss-Newton vs Hessian for a small net: the GGN J^T H_out J via jvp/vjp, and the full Hessian's blocks
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
params = dict(net.named_parameters())
names = list(params)
flat = torch.cat([p.detach().reshape(-1) for p in params.values()])
shapes = [p.shape for p in params.values()]
print("param count:", flat.numel(), "names:", names)


def loss_of_flat(theta):
    chunks = theta.split([s.numel() for s in shapes])
    ps = {n: c.view(s) for n, c, s in zip(names, chunks, shapes)}
    out = torch.func.functional_call(net, ps, (X[:8],))
    return (out.squeeze(1) - Y[:8]).pow(2).mean()


Hn = hessian(loss_of_flat, flat)
print("net hessian:", tuple(Hn.shape), "trace:", round(Hn.trace().item(), 4),
      "max |H - H^T|:", round((Hn - Hn.T).abs().max().item(), 10))
evals = torch.linalg.eigvalsh(Hn)
print("smallest/largest eigenvalues:", [round(e, 4) for e in (evals[0].item(), evals[-1].item())])
u = torch.randn(flat.numel(), dtype=torch.float64)
_, hu = hvp(loss_of_flat, flat, u)
print("hvp == H u:", torch.allclose(hu, Hn @ u))
_, hu_g = hvp(loss_of_flat, flat, u, create_graph=False, strict=False)
print("hvp requires_grad:", hu_g.requires_grad)
