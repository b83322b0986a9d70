"""Curvature with torch.func as optimisation research writes it: Hutchinson's Hessian trace, Hessian-vector
products three ways, Gauss-Newton products, the empirical NTK, and a Jacobian-trace regulariser."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacrev, jvp, vjp, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
params = {k: v.detach() for k, v in model.named_parameters()}
X = torch.randn(16, 3)
Y = torch.randint(0, 2, (16,))
print("targets", Y.tolist())


def loss_fn(p):
    return F.cross_entropy(functional_call(model, p, (X,)), Y)


# flatten the params for dense curvature
names = list(params)
shapes = [params[k].shape for k in names]
sizes = [params[k].numel() for k in names]
flat0 = torch.cat([params[k].flatten() for k in names])
print("num params", flat0.numel())


def unflatten(flat):
    return {k: t.view(s) for k, t, s in zip(names, flat.split(sizes), shapes)}


def flat_loss(flat):
    return loss_fn(unflatten(flat))


H = hessian(flat_loss)(flat0)
print("hessian", tuple(H.shape), "trace", round(H.trace().item(), 4), "sym", torch.allclose(H, H.T, atol=1e-5))
eig = torch.linalg.eigvalsh(H.double())
print("extreme eigenvalues", round(eig[0].item(), 4), round(eig[-1].item(), 4))

# hvp: forward-over-reverse, reverse-over-reverse, and the dense product
v = torch.randn(flat0.numel())
hvp_fwd = jvp(grad(flat_loss), (flat0,), (v,))[1]
hvp_rev = vjp(grad(flat_loss), flat0)[1](v)[0]
print("hvp agree", torch.allclose(hvp_fwd, H @ v, atol=1e-4), torch.allclose(hvp_rev, H @ v, atol=1e-4))
print("hvp head", hvp_fwd[:4])

# Hutchinson: E[v^T H v] = tr(H) with Rademacher probes, batched by vmap
probes = torch.randint(0, 2, (64, flat0.numel())).float() * 2 - 1
hvps = vmap(lambda u: jvp(grad(flat_loss), (flat0,), (u,))[1])(probes)
estimates = (probes * hvps).sum(1)
print("hutchinson", round(estimates.mean().item(), 3), "exact", round(H.trace().item(), 3),
      "std", round(estimates.std().item(), 3))

# Gauss-Newton: J^T H_out J, with J the output Jacobian per sample
def out_fn(flat, x):
    return functional_call(model, unflatten(flat), (x.unsqueeze(0),)).squeeze(0)


Js = vmap(jacrev(out_fn), in_dims=(None, 0))(flat0, X)
print("per-sample jacobians", tuple(Js.shape))
logits = model(X).detach()
probs = logits.softmax(-1)
H_out = torch.diag_embed(probs) - probs.unsqueeze(2) * probs.unsqueeze(1)
GN = torch.einsum("nop,noq,nqr->pr", Js, H_out, Js) / X.shape[0]
print("GN psd", bool(torch.linalg.eigvalsh(GN.double()).min() > -1e-6), "trace", round(GN.trace().item(), 4))
print("GN vs H trace ratio", round((GN.trace() / H.trace()).item(), 4))

# empirical NTK between two batches: J1 J2^T summed over parameters
def ntk(x1, x2):
    j1 = vmap(jacrev(out_fn), in_dims=(None, 0))(flat0, x1)
    j2 = vmap(jacrev(out_fn), in_dims=(None, 0))(flat0, x2)
    return torch.einsum("iap,jbp->ijab", j1, j2)


K = ntk(X[:3], X[3:5])
print("ntk", tuple(K.shape))
print("ntk trace part", K.diagonal(dim1=2, dim2=3).sum(-1))
Kself = ntk(X[:4], X[:4]).diagonal(dim1=2, dim2=3).sum(-1)
print("ntk self psd", bool(torch.linalg.eigvalsh(Kself.double()).min() > -1e-5))

# Jacobian-trace regulariser on the input (as in contractive/flow regularisers), trained for a few steps
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    out = model(X)
    ce = F.cross_entropy(out, Y)
    Jx = vmap(jacrev(lambda x: model(x)))(X)
    reg = Jx.pow(2).sum(dim=(1, 2)).mean()
    (ce + 0.1 * reg).backward()
    opt.step()
    print(f"reg step {step} ce {ce.item():.4f} jac-frob {reg.item():.4f}")
