"""Deep Survival Machines: a mixture of Weibull/log-normal experts via MixtureSameFamily and Categorical logits, the
censored loss through logsumexp of log survivals, cdf/log_prob of mixtures, and mixture quantiles by bisection."""

import torch
import torch.distributions as D
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(21)

k = 3
t = torch.tensor([0.4, 1.1, 2.3, 0.9, 3.7, 1.8, 5.2, 0.2], dtype=torch.float64)
e = torch.tensor([1, 1, 0, 1, 0, 1, 1, 0], dtype=torch.float64)
x = torch.randn(8, 4, dtype=torch.float64)


class DSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU6())
        self.shape = nn.Linear(16, k)
        self.scale = nn.Linear(16, k)
        self.gate = nn.Linear(16, k, bias=False)
        self.base_shape = nn.Parameter(-torch.ones(k))
        self.base_scale = nn.Parameter(-torch.ones(k))

    def forward(self, x):
        h = self.body(x)
        return (
            self.base_shape + torch.tanh(self.shape(h)),
            self.base_scale + torch.tanh(self.scale(h)),
            self.gate(h) / 1000.0,
        )


def weibull_logs(shape, scale, t):
    """log pdf and log survival of Weibull(k=exp(shape), lambda=exp(-scale)) at t (DSM's parameterisation)."""
    k_, b_ = shape.exp(), scale
    log_s = -torch.exp(b_ + k_ * torch.log(t)[:, None])
    log_f = b_ + shape + (k_ - 1) * torch.log(t)[:, None] + log_s
    return log_f, log_s


def dsm_loss(model, x, t, e, alpha=1.0):
    shape, scale, logits = model(x)
    log_f, log_s = weibull_logs(shape, scale, t)
    w = F.log_softmax(logits, dim=1)
    ll_unc = torch.logsumexp(w + log_f, 1)
    ll_cen = torch.logsumexp(w + log_s, 1)
    return -(e * ll_unc + alpha * (1 - e) * ll_cen).mean()


model = DSM().double()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for it in range(60):
    loss = dsm_loss(model, x, t, e)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 20 == 0:
        print(it, round(loss.item(), 4))
print("final", round(dsm_loss(model, x, t, e).item(), 4))
print(sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_parameters()][-2:])

# the same mixture through torch.distributions
with torch.no_grad():
    shape, scale, logits = model(x[:2])
    comp = D.Weibull(scale=torch.exp(-scale / shape.exp()), concentration=shape.exp())
    mix = D.MixtureSameFamily(D.Categorical(logits=logits), comp)
    print(mix.batch_shape, mix.event_shape, mix.mixture_distribution.probs.shape)
    grid = torch.tensor([[0.5], [1.0], [2.0]], dtype=torch.float64)
    print("mix cdf", mix.cdf(grid))
    print("mix log_prob", mix.log_prob(grid))
    log_s = -torch.exp(scale[None] + shape.exp()[None] * torch.log(grid)[:, :, None])
    print("by hand S", torch.exp(torch.logsumexp(F.log_softmax(logits, 1)[None] + log_s, -1)))
    print("mean", mix.mean, "var", mix.variance)
    # median by bisection on the mixture cdf
    lo, hi = torch.zeros(2, dtype=torch.float64), torch.full((2,), 50.0, dtype=torch.float64)
    for _ in range(60):
        mid = (lo + hi) / 2
        below = mix.cdf(mid) < 0.5
        lo, hi = torch.where(below, mid, lo), torch.where(below, hi, mid)
    print("median", mid)

ln = D.MixtureSameFamily(
    D.Categorical(probs=torch.tensor([0.3, 0.7])), D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 0.25]))
)
print(ln.cdf(torch.tensor([1.0, 2.7183])), ln.log_prob(torch.tensor(1.0)))
print(ln.sample((4,)).shape, ln)
print(
    D.Categorical(logits=torch.tensor([0.0, float("-inf")])).probs, D.Categorical(probs=torch.tensor([2.0, 2.0])).logits
)
try:
    D.MixtureSameFamily(D.Categorical(probs=torch.ones(3) / 3), D.Normal(torch.zeros(2), torch.ones(2)))
except ValueError as err:
    print(type(err).__name__, err)
try:
    D.MixtureSameFamily(torch.ones(3), D.Normal(torch.zeros(3), torch.ones(3)))
except ValueError as err:
    print(type(err).__name__, err)
ind = D.Independent(D.Weibull(torch.ones(2, 3), torch.ones(2, 3)), 1)
print(ind.batch_shape, ind.event_shape, ind.log_prob(torch.ones(2, 3)))
try:
    ind.cdf(torch.ones(2, 3))
except NotImplementedError as err:
    print(type(err).__name__, err)
