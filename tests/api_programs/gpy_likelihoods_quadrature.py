"""Non-Gaussian GP likelihoods as written by hand: Student-t and Bernoulli (probit and logit) expected log
likelihoods by Gauss-Hermite quadrature, closed-form checks, predictive probabilities, and their gradients."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch.distributions import Bernoulli, Normal, StudentT

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(4)
f64 = torch.float64

locs, weights = np.polynomial.hermite.hermgauss(30)
locs = torch.tensor(locs, dtype=f64)
weights = torch.tensor(weights, dtype=f64)


def gh_expect(fn, mean, var):
    f = mean.unsqueeze(-1) + math.sqrt(2.0) * var.sqrt().unsqueeze(-1) * locs
    return (fn(f) * weights).sum(-1) / math.sqrt(math.pi)


mean = torch.tensor([-2.0, -0.5, 0.0, 0.7, 3.0], dtype=f64, requires_grad=True)
var = torch.tensor([0.1, 0.5, 1.0, 2.0, 0.3], dtype=f64, requires_grad=True)
y = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0], dtype=f64)

probit = Bernoulli(probs=torch.special.ndtr(torch.tensor(0.3, dtype=f64)))
print(probit, probit.probs.dtype, round(probit.logits.item(), 4))
ell = gh_expect(lambda f: Bernoulli(probs=torch.special.ndtr(f)).log_prob(y.unsqueeze(-1).expand_as(f)), mean, var)
print("probit ell", ell.round(decimals=4))
pred = torch.special.ndtr(mean / torch.sqrt(1 + var))
pred_gh = gh_expect(lambda f: torch.special.ndtr(f), mean, var)
print("probit predictive closed vs gh", (pred - pred_gh).abs().max().item() < 1e-6, pred.round(decimals=4))
ell.sum().backward()
print("grads", mean.grad.round(decimals=4), var.grad.round(decimals=4))

logit_ell = gh_expect(
    lambda f: -F.binary_cross_entropy_with_logits(f, y.unsqueeze(-1).expand_as(f), reduction="none"),
    mean.detach(),
    var.detach(),
)
logit_ell2 = gh_expect(
    lambda f: Bernoulli(logits=f).log_prob(y.unsqueeze(-1).expand_as(f)), mean.detach(), var.detach()
)
print("logit ell", logit_ell.round(decimals=4), torch.allclose(logit_ell, logit_ell2))
print(
    "log_ndtr form",
    torch.allclose(
        Bernoulli(probs=torch.special.ndtr(mean.detach())).log_prob(y),
        torch.where(y > 0, torch.special.log_ndtr(mean.detach()), torch.special.log_ndtr(-mean.detach())),
    ),
)

nu, scale = torch.tensor(4.0, dtype=f64), torch.tensor(0.5, dtype=f64)
t = StudentT(nu, torch.zeros((), dtype=f64), scale)
print(t, "mean", t.mean.item(), "var", round(t.variance.item(), 4), "entropy", round(t.entropy().item(), 4))
yt = torch.tensor([0.1, -3.0, 0.5, 8.0, 2.0], dtype=f64)
t_ell = gh_expect(lambda f: StudentT(nu, f, scale).log_prob(yt.unsqueeze(-1)), mean.detach(), var.detach())
print("student-t ell", t_ell.round(decimals=4))
mc = (
    StudentT(
        nu, mean.detach().unsqueeze(-1) + var.detach().sqrt().unsqueeze(-1) * torch.randn(5, 20000, dtype=f64), scale
    )
    .log_prob(yt.unsqueeze(-1))
    .mean(-1)
)
print("mc close", (mc - t_ell).abs().max().item() < 0.05)
heavy = StudentT(torch.tensor([0.8, 1.5, 2.5]))
print("heavy mean", heavy.mean, "variance", heavy.variance)
print(
    "t vs normal tails",
    StudentT(3.0).log_prob(torch.tensor(6.0)).item() > Normal(0.0, 1.0).log_prob(torch.tensor(6.0)).item(),
)
s = StudentT(torch.tensor([3.0], requires_grad=True)).rsample((4,))
print("rsample", s.shape, s.requires_grad, s.grad_fn is not None)
try:
    StudentT(torch.tensor([-1.0]))
except ValueError as e:
    print(type(e).__name__, str(e)[:140])
try:
    Bernoulli(probs=torch.tensor([0.2]), logits=torch.tensor([0.0]))
except ValueError as e:
    print(type(e).__name__, e)
try:
    Bernoulli(probs=torch.tensor([0.2])).log_prob(torch.tensor([0.5]))
except ValueError as e:
    print(type(e).__name__, str(e)[:140])
b = Bernoulli(logits=torch.tensor([[-20.0, 0.0, 20.0]]))
print("entropy", b.entropy(), "support", b.support, "enumerate", b.enumerate_support().shape)
print("expanded", b.expand((2, 3)).batch_shape, b.sample((2,)).shape, b.mean, b.variance)
