"""Gaussian mixture posteriors with MixtureSameFamily: densities, moments, cdf, sampling shapes, fitting."""

import torch

D = torch.distributions
nn = torch.nn


def r(t):
    return t.detach().round(decimals=4).tolist()


mix = D.Categorical(torch.tensor([0.3, 0.5, 0.2]))
comp = D.Normal(torch.tensor([-2.0, 0.0, 3.0]), torch.tensor([0.5, 1.0, 0.8]))
gmm = D.MixtureSameFamily(mix, comp)
print(gmm)
print("shapes", gmm.batch_shape, gmm.event_shape, gmm.mixture_distribution.probs.shape)
x = torch.linspace(-3, 4, 6)
print("log_prob", r(gmm.log_prob(x)))
print("cdf", r(gmm.cdf(x)))
print(
    "mean", round(gmm.mean.item(), 4), "variance", round(gmm.variance.item(), 4), "stddev", round(gmm.stddev.item(), 4)
)
print("support", gmm.support, "has_rsample", gmm.has_rsample)
torch.manual_seed(0)
s = gmm.sample((5, 2))
print("sample", s.shape, s.dtype)

# posterior responsibilities: log p(k | x)
lp = comp.log_prob(x.unsqueeze(-1)) + mix.logits
resp = torch.softmax(lp, -1)
print("resp", r(resp))

# 2-D mixture of diagonal Gaussians, batched over 4 datasets
mix2 = D.Categorical(logits=torch.zeros(4, 3))
comp2 = D.Independent(D.Normal(torch.arange(24.0).reshape(4, 3, 2) / 10, torch.ones(4, 3, 2)), 1)
gmm2 = D.MixtureSameFamily(mix2, comp2)
print("gmm2", gmm2.batch_shape, gmm2.event_shape)
print("gmm2 log_prob", r(gmm2.log_prob(torch.zeros(4, 2))))
print("gmm2 mean", r(gmm2.mean[0]), "variance", r(gmm2.variance[1]))
print("gmm2 sample", gmm2.sample((7,)).shape)
ex = gmm2.expand(torch.Size([2, 4]))
print("expand", ex.batch_shape, ex.log_prob(torch.zeros(2, 4, 2)).shape)

# mixture of full-covariance Gaussians
covs = torch.stack([torch.eye(2), torch.tensor([[1.0, 0.6], [0.6, 2.0]])])
gm3 = D.MixtureSameFamily(
    D.Categorical(torch.tensor([0.4, 0.6])), D.MultivariateNormal(torch.tensor([[0.0, 0.0], [2.0, 1.0]]), covs)
)
print("mvn mix", r(gm3.log_prob(torch.tensor([[0.5, 0.5], [2.0, 2.0]]))), r(gm3.mean), r(gm3.variance))

# fit a 2-component 1-D mixture by maximum likelihood
torch.manual_seed(0)
data = torch.cat([torch.randn(200) * 0.5 - 1.5, torch.randn(300) * 0.7 + 2.0])
logits = nn.Parameter(torch.zeros(2))
locs = nn.Parameter(torch.tensor([-0.5, 0.5]))
log_scales = nn.Parameter(torch.zeros(2))
opt = torch.optim.Adam([logits, locs, log_scales], lr=0.05)
for step in range(150):
    model = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(locs, log_scales.exp()))
    nll = -model.log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 50 == 0:
        print(step, round(nll.item(), 4))
print("fit weights", r(torch.softmax(logits, 0)), "locs", r(locs), "scales", r(log_scales.exp()))

# misuse
for build in [
    lambda: D.MixtureSameFamily(D.Categorical(torch.ones(3)), D.Normal(torch.zeros(4), 1.0)),
    lambda: D.MixtureSameFamily(torch.ones(3), D.Normal(torch.zeros(3), 1.0)),
    lambda: D.MixtureSameFamily(D.Categorical(torch.ones(3)), torch.zeros(3)),
    lambda: D.MixtureSameFamily(D.Categorical(torch.ones(2, 3)), D.Normal(torch.zeros(5, 3), 1.0)),
    lambda: gmm.rsample(),
]:
    try:
        build()
    except Exception as e:
        print(type(e).__name__, e)
