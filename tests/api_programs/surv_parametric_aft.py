"""Parametric survival (Weibull/log-normal/log-logistic AFT and gamma) fitted with torch.distributions: censored
likelihoods by log_prob for events and log survival for the censored, cdf/icdf/mean/variance, and their edge cases."""

import math

import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

t = torch.tensor([0.5, 1.2, 2.0, 2.0, 3.5, 4.1, 6.0, 0.8], dtype=torch.float64)
e = torch.tensor([1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0], dtype=torch.float64)

w = D.Weibull(torch.tensor(2.0, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64))
print(w, w.batch_shape, w.event_shape)
print("mean", w.mean, "var", w.variance, "mode", w.mode)
print("log_prob", w.log_prob(t))
print("cdf", w.cdf(t))
print("entropy", w.entropy())
print("icdf", w.icdf(torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)))
logS = -((t / w.scale) ** w.concentration)
print("logS", logS)
print("1-cdf", torch.log1p(-w.cdf(t)))
print(w.support, w.arg_constraints)

ln = D.LogNormal(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 0.25]))
tt = torch.tensor([[1.0], [2.0], [0.0]])
print(ln.log_prob(tt.clamp_min(1e-6)))
print(ln.cdf(tt))
print(ln.mean, ln.variance, ln.entropy())
print(ln.icdf(torch.tensor(0.5)))
s = D.Normal(0, 1)
print("normal cdf", s.cdf(torch.tensor([-40.0, -5.0, 0.0, 5.0])))
print("log_ndtr", torch.special.log_ndtr(torch.tensor([-40.0, -5.0, 0.0, 5.0])))

g = D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 3.0]))
print(g.log_prob(torch.tensor([1.5, 0.2])), g.cdf(torch.tensor([1.5, 0.2])))
print("gammaincc", torch.special.gammaincc(torch.tensor([2.0, 0.5]), torch.tensor([1.5, 0.6])))
print(g.mean, g.variance, g.entropy())

# Log-logistic via TransformedDistribution of Logistic
base = D.TransformedDistribution(
    D.Uniform(torch.tensor(0.0), torch.tensor(1.0)),
    [D.transforms.SigmoidTransform().inv, D.transforms.AffineTransform(0.3, 0.5)],
)
ll = D.TransformedDistribution(base, [D.transforms.ExpTransform()])
print("loglogistic", ll.log_prob(torch.tensor([0.5, 1.0, 3.0])))

# fit a Weibull AFT with covariates
x = torch.randn(8, 2, dtype=torch.float64)
params = torch.zeros(4, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([params], lr=0.05)


def nll(p):
    log_k = p[0]
    scale = torch.exp(p[1] + x @ p[2:])
    dist = D.Weibull(scale, torch.exp(log_k))
    log_surv = -(t / scale).pow(torch.exp(log_k))
    return -(e * dist.log_prob(t) + (1 - e) * log_surv).mean()


for step in range(200):
    opt.zero_grad()
    loss = nll(params)
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(step, round(loss.item(), 4))
print("params", params.detach())

# lognormal censored likelihood with log survival via log_ndtr
mu = torch.tensor(0.6, dtype=torch.float64, requires_grad=True)
log_sigma = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
sigma = log_sigma.exp()
z = (torch.log(t) - mu) / sigma
ll_ev = D.LogNormal(mu, sigma).log_prob(t)
ll_cens = torch.special.log_ndtr(-z)
lnl = -(e * ll_ev + (1 - e) * ll_cens).sum()
lnl.backward()
print("lognormal nll", round(lnl.item(), 4), mu.grad, log_sigma.grad)

# validation errors
try:
    D.Weibull(torch.tensor(-1.0), torch.tensor(1.0))
except ValueError as err:
    print(type(err).__name__, err)
try:
    w.log_prob(torch.tensor(-1.0, dtype=torch.float64))
except ValueError as err:
    print(type(err).__name__, err)
print(D.Weibull(1.0, 1.0, validate_args=False).log_prob(torch.tensor([-1.0, 0.0])))
print(D.Exponential(torch.tensor(0.5)).log_prob(torch.tensor([0.0, 2.0])), D.Exponential(0.5).cdf(torch.tensor(2.0)))
print(D.Exponential(0.5).icdf(torch.tensor(0.5)), math.log(2) / 0.5)
print(D.Weibull(torch.tensor([1.0, 2.0]), torch.tensor(0.5)).sample((3,)).shape)
print(D.LogNormal(0.0, 1.0).rsample((2, 2)).shape, D.Gamma(2.0, 1.0).rsample().requires_grad)
