"""Continuous normalizing flows as FFJORD writes them: the instantaneous change of variables d log p/dt = -tr(df/dz)
with the exact trace from one autograd.grad per dimension (create_graph for training), Hutchinson's estimator with
Gaussian (randn_like) and Rademacher (randint) probes, their mean and variance against the exact trace, log-densities
under a standard Normal base, and a few maximum-likelihood steps on a two-moons-like sample."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class CNFField(nn.Module):
    def __init__(self, dim=2, hidden=32):
        super().__init__()
        self.l1 = nn.Linear(dim + 1, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.l3 = nn.Linear(hidden, dim)

    def forward(self, t, z):
        tz = torch.cat([z, t.expand(z.shape[0], 1)], dim=1)
        h = F.softplus(self.l1(tz))
        h = F.softplus(self.l2(h))
        return self.l3(h)


def exact_trace(f, z, create_graph):
    tr = torch.zeros(z.shape[0])
    for i in range(z.shape[1]):
        tr = tr + torch.autograd.grad(f[:, i].sum(), z, create_graph=create_graph, retain_graph=True)[0][:, i]
    return tr


def hutchinson(f, z, eps, create_graph):
    (vjp,) = torch.autograd.grad(f, z, grad_outputs=eps, create_graph=create_graph, retain_graph=True)
    return (vjp * eps).sum(dim=1)


def rademacher(like):
    return torch.randint(0, 2, like.shape, dtype=like.dtype) * 2 - 1


def cnf_dynamics(field, t, z, logp, mode, create_graph, eps=None):
    with torch.enable_grad():
        z = z if z.requires_grad else z.requires_grad_(True)
        f = field(t, z)
        tr = exact_trace(f, z, create_graph) if mode == "exact" else hutchinson(f, z, eps, create_graph)
    return f, -tr


def integrate(field, z, n=8, mode="exact", create_graph=True, eps=None):
    logdet = torch.zeros(z.shape[0])
    h = 1.0 / n
    for k in range(n):
        t = torch.tensor([[k * h]])
        f1, d1 = cnf_dynamics(field, t, z, logdet, mode, create_graph, eps)
        zm = z + h / 2 * f1
        f2, d2 = cnf_dynamics(field, t + h / 2, zm, logdet, mode, create_graph, eps)
        z = z + h * f2
        logdet = logdet + h * d2
    return z, logdet


field = CNFField()
base = torch.distributions.Normal(torch.zeros(2), torch.ones(2))

x = torch.randn(6, 2)
z = x.clone().requires_grad_(True)
f = field(torch.tensor([[0.5]]), z)
tr = exact_trace(f, z, create_graph=False)
print("exact trace", tr.round(decimals=4).tolist())
jac = torch.stack(
    [torch.autograd.functional.jacobian(lambda v: field(torch.tensor([[0.5]]), v[None])[0], xi) for xi in x]
)
print("jacobian trace", torch.diagonal(jac, dim1=-2, dim2=-1).sum(-1).round(decimals=4).tolist())
print("jac", tuple(jac.shape), jac.dtype)

torch.manual_seed(1)
probes_g = torch.randn(2000, *z.shape)
probes_r = rademacher(probes_g)
print("rademacher values", probes_r.unique().tolist(), probes_r.dtype, round(probes_r.mean().item(), 2))
est_g = torch.stack([hutchinson(f, z, e, False) for e in probes_g[:200]])
est_r = torch.stack([hutchinson(f, z, e, False) for e in probes_r[:200]])
print("gauss mean err < 0.1", ((est_g.mean(0) - tr).abs() < 0.1).all().item())
print("rademacher mean err < 0.1", ((est_r.mean(0) - tr).abs() < 0.1).all().item())
print("rademacher variance smaller", bool(est_r.var(0).sum() < est_g.var(0).sum()))
eps = torch.randn_like(x)
print("randn_like", eps.shape, eps.dtype, eps.requires_grad)

z1, dlogp = integrate(field, x.clone().requires_grad_(True), mode="exact", create_graph=False)
logpx = base.log_prob(z1).sum(-1) - dlogp
print("log p(x)", logpx.round(decimals=4).tolist())
zh, dh = integrate(field, x.clone().requires_grad_(True), mode="hutch", create_graph=False, eps=rademacher(x))
print("hutchinson logdet close", ((dh - dlogp).abs() < 0.5).all().item(), tuple(zh.shape))
print("endpoints agree", torch.allclose(zh, z1))

theta = torch.rand(64) * math.pi
data = torch.stack([theta.cos(), theta.sin()], dim=1) * 1.5 + 0.1 * torch.randn(64, 2)
opt = torch.optim.Adam(field.parameters(), lr=5e-3)
for step in range(12):
    opt.zero_grad()
    zz, dl = integrate(field, data.clone().requires_grad_(True), n=4, create_graph=True)
    nll = -(base.log_prob(zz).sum(-1) - dl).mean()
    nll.backward()
    opt.step()
    if step % 4 == 3:
        print("step", step, round(nll.item(), 4), round(field.l1.weight.grad.norm().item(), 4))
print("nll grad_fn", nll.grad_fn.name(), dl.grad_fn.name())
try:
    torch.randint(0, 2, (3,), dtype=torch.float32).bernoulli_(1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    hutchinson(field(torch.tensor([[0.0]]), z), z, torch.randn(6, 3), False)
except Exception as e:
    print(type(e).__name__, e)
