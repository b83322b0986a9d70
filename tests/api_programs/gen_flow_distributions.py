"""Flows built from torch.distributions as Pyro/nflows-style code does: a custom Transform subclass (planar and
affine-coupling bijections with log_abs_det_jacobian and caching), TransformedDistribution over a
MixtureSameFamily base, ComposeTransform/StackTransform/CatTransform, orthogonal layers via
parametrizations.orthogonal, invertible linear layers solved with lu_factor/lu_solve, and the transform
errors and reprs people meet."""


import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import (Categorical, Independent, MixtureSameFamily, Normal, TransformedDistribution,
                                 constraints)
from torch.distributions import transforms as T
from torch.nn.utils import parametrizations

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


class AffineCouplingTransform(T.Transform):
    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(self, net, split, cache_size=1):
        super().__init__(cache_size=cache_size)
        self.net, self.split = net, split
        self.calls = 0

    def _call(self, x):
        self.calls += 1
        x1, x2 = x[..., :self.split], x[..., self.split:]
        log_s, t = self.net(x1).chunk(2, -1)
        log_s = torch.tanh(log_s)
        self._cached_log_s = log_s
        return torch.cat([x1, x2 * log_s.exp() + t], -1)

    def _inverse(self, y):
        y1, y2 = y[..., :self.split], y[..., self.split:]
        log_s, t = self.net(y1).chunk(2, -1)
        log_s = torch.tanh(log_s)
        return torch.cat([y1, (y2 - t) * (-log_s).exp()], -1)

    def log_abs_det_jacobian(self, x, y):
        log_s, _ = self.net(x[..., :self.split]).chunk(2, -1)
        return torch.tanh(log_s).sum(-1)


class Permute(T.Transform):
    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True
    volume_preserving = True

    def __init__(self, perm):
        super().__init__()
        self.perm, self.inv_perm = perm, torch.argsort(perm)

    def __eq__(self, other):
        return isinstance(other, Permute) and torch.equal(self.perm, other.perm)

    def _call(self, x):
        return x[..., self.perm]

    def _inverse(self, y):
        return y[..., self.inv_perm]

    def log_abs_det_jacobian(self, x, y):
        return torch.zeros(x.shape[:-1])


class PlanarTransform(T.Transform):
    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(self, u, w, b):
        super().__init__(cache_size=1)
        self.u, self.w, self.b = u, w, b

    def _u_hat(self):
        wu = self.w @ self.u
        return self.u + (-1 + F.softplus(wu) - wu) * self.w / self.w.pow(2).sum()

    def _call(self, z):
        return z + self._u_hat() * torch.tanh(z @ self.w + self.b).unsqueeze(-1)

    def log_abs_det_jacobian(self, z, y):
        psi = (1 - torch.tanh(z @ self.w + self.b) ** 2).unsqueeze(-1) * self.w
        return torch.log(torch.abs(1 + psi @ self._u_hat()))


def det_init_(module, scale=0.3):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.43 + 0.07 * k) + k).view_as(p))


D = 4
mix = MixtureSameFamily(Categorical(logits=torch.tensor([0.0, 0.5])),
                        Independent(Normal(torch.tensor([[-1.0] * D, [1.0] * D]), torch.full((2, D), 0.7)), 1))
print("base batch/event", mix.batch_shape, mix.event_shape, "mean", r(mix.mean, 4))
net1 = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
net2 = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
det_init_(net1)
det_init_(net2, 0.2)
perm = torch.tensor([2, 3, 0, 1])
c1 = AffineCouplingTransform(net1, 2)
c2 = AffineCouplingTransform(net2, 2)
planar = PlanarTransform(torch.tensor([0.5, -0.3, 0.2, 0.1]), torch.tensor([0.4, 0.4, -0.2, 0.3]), torch.tensor(0.1))
flow = [c1, Permute(perm), c2, planar]
dist = TransformedDistribution(mix, flow)
print("flow event", dist.event_shape, "transforms", [type(t).__name__ for t in dist.transforms])

x = torch.stack([torch.linspace(-2, 2, 5), torch.linspace(1, -1, 5), torch.sin(torch.arange(5.0)),
                 torch.cos(torch.arange(5.0))], 1)
y = x
total_ladj = torch.zeros(5)
for t in flow:
    y_next = t(y)
    total_ladj = total_ladj + t.log_abs_det_jacobian(y, y_next)
    y = y_next
print("y", r(y[0], 4), "ladj", r(total_ladj, 4))
dist3 = TransformedDistribution(mix, flow[:3])
y3 = c2(Permute(perm)(c1(x)))
lp = dist3.log_prob(y3)
ladj3 = c1.log_abs_det_jacobian(x, c1(x)) + c2.log_abs_det_jacobian(Permute(perm)(c1(x)), y3)
print("log_prob", r(lp, 4), "== base - ladj", torch.allclose(lp, mix.log_prob(x) - ladj3, atol=1e-5))
print("sample shape", dist.sample((2, 3)).shape, "has rsample", dist.has_rsample)
xr = c1.inv(c1(x))
print("coupling invertible", torch.allclose(xr, x, atol=1e-6), "cached inverse is x", c1.inv(c1(x)) is x)
calls = c1.calls
c1(x)
c1(x)
print("cache_size=1 reuses the last call", c1.calls - calls)

# exact log_prob of an affine flow against the change-of-variables formula
A = torch.tensor([[1.5, 0.2, 0.0, 0.0], [0.0, 0.8, 0.3, 0.0], [0.1, 0.0, 1.2, 0.0], [0.0, 0.0, 0.4, 0.9]])
LU, piv = torch.linalg.lu_factor(A)
z = torch.linalg.lu_solve(LU, piv, x.T).T
print("lu_solve inverse", torch.allclose(z @ A.T, x, atol=1e-5), "logdet", round(torch.linalg.slogdet(A)[1].item(), 4))
base = Independent(Normal(torch.zeros(D), torch.ones(D)), 1)
manual = base.log_prob(z) - torch.linalg.slogdet(A)[1]
print("affine flow log p(x)", r(manual, 4))

# transforms the library ships
ct = T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.SigmoidTransform()])
u = torch.tensor([-1.0, 0.0, 1.5])
print(ct, "| inv∘f", torch.allclose(ct.inv(ct(u)), u, atol=1e-6), "ladj", r(ct.log_abs_det_jacobian(u, ct(u)), 4))
st = T.StackTransform([T.ExpTransform(), T.TanhTransform(), T.SoftplusTransform()], dim=-1)
v = torch.tensor([[0.5, 0.5, 0.5], [-1.0, 2.0, -3.0]])
print("stack", st(v), "ladj", st.log_abs_det_jacobian(v, st(v)))
cat = T.CatTransform([T.ExpTransform(), T.AbsTransform()], dim=0, lengths=[1, 2])
print("cat", cat(torch.tensor([1.0, -2.0, 3.0])), "sign", T.AffineTransform(0.0, -2.0).sign,
      "bijective", cat.bijective)
sb = T.StickBreakingTransform()
simplex = sb(torch.tensor([0.2, -0.4, 1.0]))
print("stick-breaking", simplex, simplex.sum().item(), "inv", sb.inv(simplex))
print("biject_to(positive)", torch.distributions.biject_to(constraints.positive),
      "transform_to(simplex)", type(torch.distributions.transform_to(constraints.simplex)).__name__)
print("ind", T.IndependentTransform(T.ExpTransform(), 1).log_abs_det_jacobian(v, v.exp()))

# orthogonal linear layers: log|det| = 0, inverse = transpose
lin = parametrizations.orthogonal(nn.Linear(D, D, bias=False))
with torch.no_grad():
    lin.weight = torch.linalg.matrix_exp(torch.triu(torch.ones(D, D), 1) * 0.3 - torch.tril(torch.ones(D, D), -1) * 0.3)
W = lin.weight
print("orthogonal", torch.allclose(W @ W.T, torch.eye(D), atol=1e-5), "|det|", round(torch.det(W).abs().item(), 4),
      list(lin.parametrizations.weight.original.shape))
print("inverse by transpose", torch.allclose(lin(x) @ W, x, atol=1e-5))

# errors
for bad in [lambda: T.AffineTransform(0.0, 1.0).log_abs_det_jacobian(torch.ones(2), torch.ones(3)),
            lambda: TransformedDistribution(Normal(0.0, 1.0), [T.StickBreakingTransform()]),
            lambda: T.Transform()(torch.ones(2)),
            lambda: AffineCouplingTransform(net1, 2, cache_size=2),
            lambda: T.CatTransform([T.ExpTransform()], dim=0, lengths=[1, 2])]:
    try:
        out = bad()
        print("ok", out if not torch.is_tensor(out) else r(out))
    except Exception as e:
        print(type(e).__name__ + ":", str(e).split("\n")[0])
