"""Pathwise gradients through rsample of Gamma, Beta, Dirichlet and friends, as VI with non-Gaussian posteriors uses."""

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


def leaf(*v):
    return torch.tensor(v if len(v) > 1 else v[0], requires_grad=True)


# Gamma: implicit reparameterisation gradient d sample / d concentration
torch.manual_seed(0)
a, b = leaf(0.5, 2.0, 7.0), leaf(1.0, 0.5, 2.0)
g = D.Gamma(a, b)
s = g.rsample()
print("gamma sample", r(s), s.grad_fn.__class__.__name__ if s.grad_fn else None)
s.sum().backward()
print("grad a", r(a.grad), "grad b", r(b.grad))

torch.manual_seed(1)
a2 = leaf(3.0)
m = D.Gamma(a2, 1.0).rsample((50000,)).mean()
m.backward()
print("E grad ~ 1", round(a2.grad.item(), 2))

# Beta and Dirichlet route through the Gamma sampler
torch.manual_seed(0)
c1, c0 = leaf(2.0, 0.8), leaf(3.0, 0.6)
bs = D.Beta(c1, c0).rsample()
bs.sum().backward()
print("beta sample", r(bs), "grads", r(c1.grad), r(c0.grad))

torch.manual_seed(0)
alpha = leaf(1.0, 2.0, 3.0)
ds = D.Dirichlet(alpha).rsample()
(ds * torch.tensor([1.0, -1.0, 2.0])).sum().backward()
print("dirichlet sample", r(ds), "grad", r(alpha.grad))

torch.manual_seed(0)
df = leaf(4.0)
D.Chi2(df).rsample((3,)).sum().backward()
print("chi2 grad", r(df.grad))

torch.manual_seed(0)
nu, loc, sc = leaf(5.0), leaf(1.0), leaf(2.0)
D.StudentT(nu, loc, sc).rsample((4,)).sum().backward()
print("studentT grads", r(nu.grad), r(loc.grad), r(sc.grad))

torch.manual_seed(0)
ka, kb = leaf(2.0), leaf(3.0)
D.Kumaraswamy(ka, kb).rsample((3,)).sum().backward()
print("kumaraswamy grads", r(ka.grad), r(kb.grad))

torch.manual_seed(0)
lam = leaf(1.5)
D.Exponential(lam).rsample((4,)).sum().backward()
print("exponential grad", r(lam.grad))

torch.manual_seed(0)
ig_a, ig_b = leaf(3.0), leaf(2.0)
D.InverseGamma(ig_a, ig_b).rsample((2,)).sum().backward()
print("inverse gamma grads", r(ig_a.grad), r(ig_b.grad))

# score-function quantities: log_prob and entropy gradients
for name, make, x in [
    ("gamma", lambda p: D.Gamma(p[0], p[1]), torch.tensor(1.3)),
    ("beta", lambda p: D.Beta(p[0], p[1]), torch.tensor(0.3)),
    ("studentT", lambda p: D.StudentT(p[0], 0.0, p[1]), torch.tensor(0.7)),
    ("weibull", lambda p: D.Weibull(p[1], p[0]), torch.tensor(0.9)),
    ("lognormal", lambda p: D.LogNormal(p[0], p[1]), torch.tensor(2.0)),
    ("halfnormal", lambda p: D.HalfNormal(p[0] * p[1]), torch.tensor(0.5)),
    ("pareto", lambda p: D.Pareto(p[1] * 0.2, p[0]), torch.tensor(1.5)),
    ("gumbel", lambda p: D.Gumbel(p[0], p[1]), torch.tensor(0.1)),
    ("fisher", lambda p: D.FisherSnedecor(p[0], p[1]), torch.tensor(1.1)),
]:
    p = leaf(2.5, 1.5)
    d = make(p)
    (gl,) = torch.autograd.grad(d.log_prob(x), p, retain_graph=True)
    try:
        (ge,) = torch.autograd.grad(d.entropy(), p)
        ent = r(ge)
    except NotImplementedError:
        ent = "n/a"
    print(name, round(d.log_prob(x).item(), 4), r(gl), ent)

# Dirichlet log_prob / entropy gradients (digamma, polygamma)
alpha = leaf(0.5, 1.5, 4.0)
dd = D.Dirichlet(alpha)
x = torch.tensor([0.2, 0.3, 0.5])
(g1,) = torch.autograd.grad(dd.log_prob(x), alpha, create_graph=True)
(g2,) = torch.autograd.grad(g1.sum(), alpha)
print("dirichlet lp grad", r(g1), "second", r(g2))
print(
    "dirichlet entropy",
    round(dd.entropy().item(), 4),
    "var",
    r(dd.variance),
    "mode",
    r(D.Dirichlet(torch.tensor([2.0, 3.0, 4.0])).mode),
)

# rsample on a distribution without it
for d in [D.Bernoulli(0.3), D.Poisson(2.0), D.VonMises(0.0, 1.0)]:
    try:
        d.rsample()
    except Exception as e:
        print(type(d).__name__, type(e).__name__, e)
