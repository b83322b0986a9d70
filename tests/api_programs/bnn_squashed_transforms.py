"""Transformed distributions: tanh-squashed Gaussians, log-normal via ExpTransform, stick breaking."""

import math

import torch

D = torch.distributions
T = torch.distributions.transforms


def r(t):
    return t.detach().round(decimals=4).tolist()


base = D.Normal(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 0.3]))
squash = D.TransformedDistribution(base, [T.TanhTransform(cache_size=1), T.AffineTransform(0.0, 2.0)])
print("batch/event", squash.batch_shape, squash.event_shape)
print("support", squash.support)
a = torch.tensor([[0.5, -1.2], [1.9, 0.0]])
print("log_prob", r(squash.log_prob(a)))
# manual: a = 2 tanh(u)  => log p(a) = log N(u) - log|2 (1 - tanh^2 u)|
u = torch.atanh(a / 2)
man = base.log_prob(u) - torch.log(2 * (1 - torch.tanh(u) ** 2))
print("manual", r(man))
torch.manual_seed(0)
s = squash.rsample((4000,))
print("in range", bool((s.abs() < 2).all()), s.shape, type(s.grad_fn).__name__ if s.grad_fn else None)
print("mean approx", r(s.mean(0).round(decimals=1)))

comp = T.ComposeTransform([T.AffineTransform(1.0, 3.0), T.ExpTransform()])
y = comp(torch.tensor([0.25, -0.5]))
print("compose", r(y), r(comp.inv(y)), r(comp.log_abs_det_jacobian(torch.tensor([0.25, -0.5]), y)))
print("compose repr", comp.parts[0], comp.parts[1])
print("inv repr", T.ExpTransform().inv, T.ExpTransform().inv.inv)
print("sign", T.ExpTransform().sign, T.AffineTransform(0.0, -2.0).sign)
print(
    "bijective",
    T.SigmoidTransform().bijective,
    "domain",
    T.SigmoidTransform().domain,
    "codomain",
    T.SigmoidTransform().codomain,
)

ln_manual = D.TransformedDistribution(D.Normal(0.2, 0.5), [T.ExpTransform()])
ln = D.LogNormal(0.2, 0.5)
v = torch.tensor([0.5, 1.0, 3.0])
print("lognormal", r(ln_manual.log_prob(v)), r(ln.log_prob(v)))
print("lognormal moments", round(ln.mean.item(), 4), round(ln.variance.item(), 4), round(ln.entropy().item(), 4))
print("lognormal cdf", r(ln.cdf(v)), r(ln.icdf(torch.tensor([0.1, 0.5, 0.9]))))
print("lognormal loc/scale", ln.loc.item(), ln.scale.item(), type(ln.base_dist).__name__)

sig = D.TransformedDistribution(D.Normal(0.0, 1.0), T.SigmoidTransform())
print("logit-normal", r(sig.log_prob(torch.tensor([0.1, 0.5, 0.9]))))
print("sigmoid cdf", r(sig.cdf(torch.tensor([0.25, 0.5]))), r(sig.icdf(torch.tensor([0.3, 0.7]))))

sb = T.StickBreakingTransform()
z = torch.tensor([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])
p = sb(z)
print("stick", r(p), r(p.sum(-1)))
print("stick inv", r(sb.inv(p)))
print("stick ladj", r(sb.log_abs_det_jacobian(z, p)))
print("stick shapes", sb.forward_shape((5, 3)), sb.inverse_shape((5, 4)), sb.domain.event_dim, sb.codomain)
print("simplex check", D.constraints.simplex.check(p).tolist())

bt = D.biject_to(D.constraints.positive)
print("biject positive", type(bt).__name__, r(bt(torch.tensor([-1.0, 2.0]))))
tt = D.transform_to(D.constraints.interval(-1.0, 3.0))
print("transform interval", r(tt(torch.tensor([0.0, 10.0]))))
ts = D.transform_to(D.constraints.simplex)
print("transform simplex", type(ts).__name__, r(ts(torch.zeros(3))))
tl = D.transform_to(D.constraints.lower_cholesky)
print("lower_cholesky", r(tl(torch.tensor([[0.0, 5.0], [1.0, math.log(2.0)]]))))

cat = T.CatTransform([T.ExpTransform(), T.identity_transform], dim=0, lengths=[2, 1])
print("cat", r(cat(torch.tensor([0.0, 1.0, -3.0]))))
stack = T.StackTransform([T.ExpTransform(), T.AbsTransform()], dim=1)
print("stack", r(stack(torch.tensor([[0.0, -2.0], [1.0, -3.0]]))))
pw = T.PowerTransform(torch.tensor(2.0))
print("power", r(pw(torch.tensor([3.0]))), r(pw.log_abs_det_jacobian(torch.tensor([3.0]), torch.tensor([9.0]))))
ind = T.IndependentTransform(T.ExpTransform(), 1)
xx = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print("independent ladj", r(ind.log_abs_det_jacobian(xx, ind(xx))))
rs = T.ReshapeTransform((4,), (2, 2))
print("reshape", rs(torch.arange(4.0)).shape, rs.inverse_shape((7, 2, 2)))
sm = T.SoftmaxTransform()
print("softmax", r(sm(torch.tensor([1.0, 2.0, 3.0]))))
try:
    sm.log_abs_det_jacobian(torch.zeros(3), torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.TransformedDistribution(base, T.StickBreakingTransform())
except Exception as e:
    print(type(e).__name__, e)
