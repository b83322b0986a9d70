"""Transforms and bijectors as flows and constrained-parameter code use them: TransformedDistribution over
Affine/Exp/Sigmoid/Tanh/Compose/StickBreaking chains, log_abs_det_jacobian against autograd, inverses and caching,
biject_to/transform_to for constraints (an unconstrained optimiser fitting constrained parameters), and the
tanh-squashed Gaussian policy of SAC."""
import torch
import torch.distributions as D
import torch.distributions.transforms as T
from torch.distributions import biject_to, constraints, transform_to

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


x = torch.tensor([-1.5, -0.2, 0.0, 0.7, 2.0])
for tr in (T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform(), T.AffineTransform(1.0, -2.0),
           T.SoftplusTransform(), T.PowerTransform(torch.tensor(3.0)), T.AbsTransform()):
    y = tr(x)
    print(f"{tr!s:34s} y={r(y)}")
    if tr.bijective:
        print("   inv", r(tr.inv(y)), "ladj", r(tr.log_abs_det_jacobian(x, y)))
    print("   domain", tr.domain, "codomain", tr.codomain, "sign", getattr(tr, "sign", None) if tr.bijective else "-")

# log|det J| against autograd for elementwise transforms
for tr in (T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform(), T.SoftplusTransform()):
    xg = torch.tensor([-0.8, 0.1, 1.3], requires_grad=True)
    y = tr(xg)
    (g,) = torch.autograd.grad(y.sum(), xg)
    print(type(tr).__name__, "ladj matches autograd", torch.allclose(g.abs().log(), tr.log_abs_det_jacobian(xg, y),
                                                                        atol=1e-5))

# compose and inverse chains
chain = T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.SigmoidTransform(), T.AffineTransform(-1.0, 4.0)])
y = chain(x)
print("compose", r(y), "inv", r(chain.inv(y)))
print("compose ladj", r(chain.log_abs_det_jacobian(x, y)))
print("compose codomain", chain.codomain, "inv type", type(chain.inv).__name__)
print("inv of inv is self", chain.inv.inv is chain)
print("event_dim", T.StickBreakingTransform().domain.event_dim, T.StickBreakingTransform().codomain.event_dim)

# stick breaking: R^{K-1} <-> simplex
sb = T.StickBreakingTransform()
u = torch.tensor([[0.3, -1.0, 2.0], [0.0, 0.0, 0.0]])
p = sb(u)
print("stick breaking", r(p), "sums", r(p.sum(-1)))
print("stick inv", r(sb.inv(p)), "ladj", r(sb.log_abs_det_jacobian(u, p)))
print("forward_shape", sb.forward_shape((5, 3)), "inverse_shape", sb.inverse_shape((5, 4)))

# a LogNormal built by hand equals the library's
base = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
ln = D.TransformedDistribution(base, [T.ExpTransform()])
ref = D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
v = torch.tensor([0.5, 3.0])
print("lognormal", r(ln.log_prob(v)), r(ref.log_prob(v)), "cdf", r(ln.cdf(v)), "icdf", r(ln.icdf(torch.tensor([0.25,
                                                                                                               0.9]))))
print("batch/event", ln.batch_shape, ln.event_shape, ln.support)
# logit-normal on (a, b)
lo, hi = 2.0, 5.0
bounded = D.TransformedDistribution(D.Normal(0.0, 1.0), [T.SigmoidTransform(), T.AffineTransform(lo, hi - lo)])
torch.manual_seed(0)
bs = bounded.sample((6,))
print("bounded sample", r(bs), "log_prob", r(bounded.log_prob(bs)))
print("bounded support", bounded.support)

# Independent over a transformed distribution (multivariate event)
flow = D.TransformedDistribution(D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1),
                                 [T.AffineTransform(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, 1.0, 2.0]),
                                                    event_dim=1)])
pt = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
print("flow event", flow.event_shape, "log_prob", r(flow.log_prob(pt)))

# SAC's squashed Gaussian: tanh(N(mu, sigma)) with cache_size=1
mu = torch.tensor([[0.2, -0.5]], requires_grad=True)
log_std = torch.tensor([[-0.3, 0.1]], requires_grad=True)
pol = D.TransformedDistribution(D.Normal(mu, log_std.exp()), [T.TanhTransform(cache_size=1)])
torch.manual_seed(1)
a = pol.rsample()
lp = pol.log_prob(a).sum(-1)
print("sac action", r(a), "log_prob", r(lp))
# the numerically stable formula that SAC papers write by hand
torch.manual_seed(1)
pre = D.Normal(mu, log_std.exp()).rsample()
manual = D.Normal(mu, log_std.exp()).log_prob(pre) - 2 * (torch.log(torch.tensor(2.0)) - pre -
                                                          torch.nn.functional.softplus(-2 * pre))
print("manual", r(manual.sum(-1)))
(lp.mean() + a.pow(2).sum()).backward()
print("grads mu", r(mu.grad), "log_std", r(log_std.grad))

# biject_to / transform_to: optimise constrained parameters in unconstrained space
for c in (constraints.positive, constraints.unit_interval, constraints.interval(-1.0, 3.0), constraints.simplex,
          constraints.greater_than(2.0), constraints.real, constraints.lower_cholesky,
          constraints.positive_definite):
    try:
        b = biject_to(c)
        print(c, "->", type(b).__name__, "| transform_to:", type(transform_to(c)).__name__)
    except NotImplementedError as e:
        print(c, "-> NotImplementedError", str(e)[:60], "| transform_to:", type(transform_to(c)).__name__)

unc = torch.tensor([0.3, -0.4, 1.1], requires_grad=True)
print("simplex via transform_to", r(transform_to(constraints.simplex)(unc)))
L = transform_to(constraints.lower_cholesky)(torch.tensor([[0.1, 0.5], [-0.3, 0.2]]))
print("lower_cholesky", r(L))
S = transform_to(constraints.positive_definite)(torch.tensor([[0.1, 0.5], [-0.3, 0.2]]))
print("positive_definite", r(S), constraints.positive_definite.check(S).item())

torch.manual_seed(2)
data = D.Gamma(3.0, 2.0).sample((200,))
raw = {k: torch.zeros((), requires_grad=True) for k in ("conc", "rate")}
opt = torch.optim.Adam(raw.values(), lr=0.1)
pos = biject_to(constraints.positive)
for step in range(150):
    opt.zero_grad()
    nll = -D.Gamma(pos(raw["conc"]), pos(raw["rate"])).log_prob(data).mean()
    nll.backward()
    opt.step()
    if step % 50 == 0:
        print("gamma fit step", step, round(nll.item(), 4))
print("fitted", round(pos(raw["conc"]).item(), 3), round(pos(raw["rate"]).item(), 3), "data mean",
      round(data.mean().item(), 4))
