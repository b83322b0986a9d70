"""torch.distributions sampling under a seed, as a probabilistic-modelling notebook does it: draws from
Normal, Categorical, Gamma, Beta, Dirichlet, Poisson, Bernoulli, MultivariateNormal and mixtures, their
Monte Carlo moments against the analytic ones, rsample gradients, and a seeded ELBO estimate."""
import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.flatten().tolist()]


torch.manual_seed(0)
normal = D.Normal(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5]))
s = normal.sample((4,))
print("normal sample", s.shape, r(s))
big = normal.sample((5000,))
print("normal mc mean", r(big.mean(0)), "std", r(big.std(0)), "analytic", r(normal.mean), r(normal.stddev))
print("log_prob", r(normal.log_prob(s[:2])))

cat = D.Categorical(logits=torch.tensor([1.0, 0.0, -1.0, 2.0]))
cs = cat.sample((20,))
print("categorical", cs.tolist())
print("categorical freq", r(torch.bincount(cat.sample((4000,)), minlength=4).float() / 4000), r(cat.probs))
bcat = D.Categorical(probs=torch.tensor([[0.5, 0.5, 0.0], [0.1, 0.1, 0.8]]))
print("batched categorical", bcat.sample((5,)).tolist(), "entropy", r(bcat.entropy()))

gamma = D.Gamma(torch.tensor([0.5, 2.0, 9.0]), torch.tensor([1.0, 2.0, 0.5]))
gs = gamma.sample((3,))
print("gamma", r(gs))
gm = gamma.sample((4000,))
print("gamma mc mean", r(gm.mean(0)), "analytic", r(gamma.mean))
beta = D.Beta(torch.tensor([2.0, 0.5]), torch.tensor([5.0, 0.5]))
print("beta", r(beta.sample((3,))))
print("beta mc mean", r(beta.sample((4000,)).mean(0)), "analytic", r(beta.mean))
dir_ = D.Dirichlet(torch.tensor([1.0, 2.0, 3.0]))
ds = dir_.sample((3,))
print("dirichlet", r(ds), "row sums", r(ds.sum(-1)))
print("dirichlet mc mean", r(dir_.sample((3000,)).mean(0)), "analytic", r(dir_.mean))

pois = D.Poisson(torch.tensor([0.5, 3.0, 20.0]))
ps = pois.sample((4,))
print("poisson", ps.tolist())
print("poisson mc mean", r(pois.sample((3000,)).mean(0)))
bern = D.Bernoulli(probs=torch.tensor([0.1, 0.5, 0.9]))
print("bernoulli", bern.sample((4,)).tolist())
bl = D.Bernoulli(logits=torch.tensor([-2.0, 0.0, 3.0]))
print("bernoulli logits mc", r(bl.sample((4000,)).mean(0)), r(bl.probs))

torch.manual_seed(1)
cov = torch.tensor([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
mvn = D.MultivariateNormal(torch.tensor([1.0, -1.0, 0.0]), covariance_matrix=cov)
ms = mvn.sample((3,))
print("mvn", r(ms))
mbig = mvn.sample((6000,))
emp = torch.cov(mbig.T)
print("mvn empirical cov", r(emp))
print("mvn log_prob", r(mvn.log_prob(ms)))
mvn_t = D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 0.3]]))
print("mvn scale_tril", r(mvn_t.rsample((2,))))
lr = D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.full((3,), 0.5))
print("lowrank", r(lr.sample((2,))))

mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])),
                          D.Normal(torch.tensor([-2.0, 3.0]), torch.tensor([0.5, 1.0])))
xs = mix.sample((8,))
print("mixture", r(xs))
print("mixture mc mean", round(mix.sample((5000,)).mean().item(), 4), "analytic", round(mix.mean.item(), 4))
print("mixture log_prob", r(mix.log_prob(xs[:3])))
gmm2d = D.MixtureSameFamily(D.Categorical(logits=torch.zeros(3)),
                            D.Independent(D.Normal(torch.tensor([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]]),
                                                   torch.ones(3, 2)), 1))
print("gmm 2d", r(gmm2d.sample((3,))), gmm2d.batch_shape, gmm2d.event_shape)

torch.manual_seed(2)
mu = torch.tensor([0.5, -0.5], requires_grad=True)
log_sigma = torch.tensor([0.0, -1.0], requires_grad=True)
q = D.Normal(mu, log_sigma.exp())
z = q.rsample((1000,))
loss = (z ** 2).sum(-1).mean()
loss.backward()
print("rsample loss", round(loss.item(), 4), "grad mu", r(mu.grad), "grad log_sigma", r(log_sigma.grad))
prior = D.Normal(torch.zeros(2), torch.ones(2))
x_obs = torch.tensor([1.0, 0.0])
with torch.no_grad():
    zs = q.rsample((2000,))
    lik = D.Normal(zs, 0.5).log_prob(x_obs).sum(-1)
    elbo = (lik + prior.log_prob(zs).sum(-1) - q.log_prob(zs).sum(-1)).mean()
print("elbo", round(elbo.item(), 4), "kl", r(D.kl_divergence(q, prior)))
rg = D.Gamma(torch.tensor([3.0], requires_grad=True), torch.tensor([1.0]))
gsamp = rg.rsample((500,))
gsamp.mean().backward()
print("gamma rsample", round(gsamp.mean().item(), 4), "dconc", r(rg.concentration.grad))
