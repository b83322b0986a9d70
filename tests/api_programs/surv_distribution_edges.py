"""Edge cases of the distributions behind parametric survival models: Weibull/Gamma/LogNormal/Gumbel at 0 and inf,
icdf at 0 and 1, gradients of cdfs (and Gamma's missing one), expand/batch shapes, KL terms, and Gumbel AFT errors."""

import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(13)


def show(f):
    try:
        print(f())
    except Exception as err:  # noqa: BLE001
        print(type(err).__name__, str(err).split("\n")[0][:150])


edge = torch.tensor([0.0, 1e-30, 1.0, 1e30, float("inf")])
for k in (0.5, 1.0, 3.0):
    w = D.Weibull(torch.tensor(2.0), torch.tensor(k), validate_args=False)
    print("weibull k", k, w.log_prob(edge), w.cdf(edge))
show(lambda: D.Weibull(2.0, 1.5).icdf(torch.tensor([0.0, 0.5, 1.0])))
show(lambda: D.Weibull(2.0, 1.5).log_prob(torch.tensor(0.0)))
show(lambda: D.LogNormal(0.0, 1.0).log_prob(torch.tensor(0.0)))
show(lambda: D.LogNormal(0.0, 1.0, validate_args=False).log_prob(torch.tensor([0.0, -1.0])))
show(lambda: D.LogNormal(0.0, 1.0).icdf(torch.tensor([0.0, 1.0])))
show(lambda: D.Gamma(2.0, 1.0).cdf(torch.tensor([0.0, float("inf")])))
show(lambda: D.Gamma(torch.tensor([0.5]), torch.tensor([1.0])).log_prob(torch.tensor([0.0])))
show(lambda: D.Gamma(2.0, 1.0).icdf(torch.tensor(0.5)))
show(lambda: D.Exponential(2.0).cdf(torch.tensor([-1.0])))
show(lambda: D.Exponential(2.0, validate_args=False).cdf(torch.tensor([-1.0, 0.0])))
show(lambda: D.Gumbel(0.0, 1.0).cdf(torch.tensor([-50.0, 0.0, 50.0])))
show(lambda: D.Gumbel(0.0, 1.0).log_prob(torch.tensor([-50.0, 0.0, 50.0])))
show(lambda: D.Gumbel(torch.tensor([0.0, 1.0]), 2.0).icdf(torch.tensor([0.5, 0.9])))
show(lambda: (D.Gumbel(0.0, 1.0).mean, D.Gumbel(0.0, 1.0).stddev, D.Gumbel(0.0, 1.0).entropy()))

# gradients of survival functions w.r.t. parameters
k = torch.tensor(1.5, requires_grad=True)
lam = torch.tensor(2.0, requires_grad=True)
t = torch.tensor([0.5, 1.0, 3.0])
logS = torch.log1p(-D.Weibull(lam, k).cdf(t))
logS.sum().backward()
print("weibull dlogS", k.grad, lam.grad)
mu = torch.tensor(0.3, requires_grad=True)
D.LogNormal(mu, 1.0).cdf(t).sum().backward()
print("lognormal dcdf", mu.grad)
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
cdf = D.Gamma(a, b).cdf(t)
print(cdf.grad_fn is not None)
show(lambda: torch.autograd.grad(cdf.sum(), a, retain_graph=True))
show(lambda: torch.autograd.grad(cdf.sum(), b))
xg = torch.tensor([0.5, 2.0], requires_grad=True)
torch.special.gammainc(torch.tensor(2.0), xg).sum().backward()
print("igamma dx", xg.grad)
show(lambda: torch.special.gammaincc(torch.tensor(2.0, requires_grad=True), torch.tensor(1.0)).backward())
r = D.Gamma(a, b).rsample((3,))
r.sum().backward()
print(r.shape, a.grad is not None)

# shapes
w = D.Weibull(torch.ones(3), torch.tensor([0.5, 1.0, 2.0]))
we = w.expand((2, 3))
print(we.batch_shape, we.log_prob(torch.ones(2, 3)).shape, we.sample().shape, we.cdf(torch.ones(1)).shape)
show(lambda: w.log_prob(torch.ones(2)))
show(lambda: D.Weibull(torch.ones(3), torch.ones(2)))
show(lambda: D.Weibull(torch.ones(3), torch.ones(3), validate_args=True).log_prob(torch.tensor([1.0, -1.0, 1.0])))
print(D.kl_divergence(D.Exponential(1.0), D.Gamma(2.0, 1.0)), D.kl_divergence(D.Gamma(2.0, 1.0), D.Exponential(1.0)))
print(
    D.kl_divergence(D.LogNormal(0.0, 1.0), D.LogNormal(1.0, 2.0)),
    D.kl_divergence(D.Exponential(1.0), D.Exponential(3.0)),
)
show(lambda: D.kl_divergence(D.Weibull(1.0, 1.0), D.Gamma(1.0, 1.0)))
show(lambda: D.kl_divergence(D.Gumbel(0.0, 1.0), D.Gumbel(1.0, 2.0)))

# AFT with Gumbel errors: log T = mu + sigma * eps
logt = torch.log(torch.tensor([0.5, 1.0, 2.0, 4.0]))
ev = torch.tensor([1.0, 0.0, 1.0, 0.0])
mu_, sig = torch.tensor(0.2, requires_grad=True), torch.tensor(0.8, requires_grad=True)
z = (logt - mu_) / sig
min_gumbel = D.TransformedDistribution(D.Gumbel(0.0, 1.0), [D.transforms.AffineTransform(0.0, -1.0)])
ll = ev * (min_gumbel.log_prob(z) - sig.log()) + (1 - ev) * (-torch.exp(z))
(-ll.sum()).backward()
print("gumbel aft", ll, mu_.grad, sig.grad)
show(lambda: min_gumbel.cdf(torch.tensor(0.0)))
show(lambda: min_gumbel.icdf(torch.tensor(0.5)))
show(lambda: D.TransformedDistribution(D.Exponential(1.0), [D.transforms.PowerTransform(torch.tensor(0.5))]).cdf(t))
print(D.transforms.AffineTransform(0.0, -1.0).sign, D.transforms.ExpTransform().sign, D.transforms.PowerTransform(2.0))
