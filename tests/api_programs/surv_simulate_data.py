"""Simulating censored survival data for benchmarks (Bender et al. 2005): inverse-transform Weibull/Gompertz times
from torch.rand, sampler families of torch.distributions under seeds and Generators, censoring and event rates."""

import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

n = 8
x = torch.randn(n, 2)
beta = torch.tensor([0.7, -0.4])
lam, nu = 0.1, 1.5
u = torch.rand(n)
t_weib = (-torch.log(u) / (lam * torch.exp(x @ beta))).pow(1 / nu)
alpha = 0.2
t_gomp = torch.log1p(-alpha * torch.log(u) / (lam * torch.exp(x @ beta))) / alpha
print("weibull", t_weib)
print("gompertz", t_gomp)
c = torch.empty(n).exponential_(0.1)
print("censor", c)
t = torch.minimum(t_weib, c)
e = (t_weib <= c).long()
print("observed", t, e, "event rate", e.float().mean())
print("admin", torch.clamp(t_weib, max=10.0), torch.where(t_weib > 10.0, 0, e))

print(D.Weibull(torch.tensor(2.0), torch.tensor(1.5)).sample((3,)))
print(D.LogNormal(0.0, 1.0).sample((3,)))
print(D.Gamma(torch.tensor([2.0, 0.5]), 1.0).sample((2,)))
print(D.Exponential(torch.tensor([0.5, 2.0])).rsample((2,)))
print(D.Gumbel(0.0, 1.0).sample((3,)))
print(D.Categorical(logits=torch.tensor([0.1, 0.2, 0.3])).sample((5,)))
print(D.Uniform(0.0, 1.0).sample((2,)), torch.rand(2))
mix = D.MixtureSameFamily(
    D.Categorical(probs=torch.tensor([0.3, 0.7])), D.Weibull(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]))
)
print(mix.sample((4,)))
print(D.Weibull(torch.tensor(2.0, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64)).rsample((2,)))
print(D.Poisson(torch.tensor([3.0, 0.5])).sample((3,)))
print(D.Binomial(10, torch.tensor([0.3])).sample((3,)).flatten())
print(D.Geometric(torch.tensor([0.3])).sample((4,)).flatten())
g = torch.Generator().manual_seed(3)
print(torch.empty(4).exponential_(generator=g), torch.rand(2, generator=g).log().neg())
print(torch.multinomial(torch.tensor([0.2, 0.8]), 4, replacement=True, generator=g))
print(torch.randint(1, 10, (5,), generator=g), torch.randperm(5, generator=g))
state = torch.get_rng_state()
a = torch.rand(2)
torch.set_rng_state(state)
print(torch.equal(a, torch.rand(2)), g.initial_seed(), torch.initial_seed())
cause = torch.multinomial(torch.tensor([[0.5, 0.5], [0.9, 0.1]]), 1).squeeze(1)
print(cause, torch.bernoulli(torch.full((5,), 0.3)), torch.poisson(torch.tensor([1.0, 4.0])))
try:
    torch.empty(2).exponential_(-1.0)
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.multinomial(torch.tensor([0.0, 0.0]), 1)
except RuntimeError as err:
    print(type(err).__name__, err)
