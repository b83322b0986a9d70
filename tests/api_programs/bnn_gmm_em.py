"""Gaussian mixture models: EM with responsibilities, then the same model fit by gradient through MixtureSameFamily."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t, d=4):
    return t.detach().round(decimals=d).tolist()


torch.manual_seed(0)
true_means = torch.tensor([[-3.0, 0.0], [2.0, 2.0], [2.0, -2.0]])
z = torch.multinomial(torch.tensor([0.5, 0.3, 0.2]), 600, replacement=True)
x = true_means[z] + 0.6 * torch.randn(600, 2)
print("counts", torch.bincount(z, minlength=3).tolist())

K, dim = 3, 2
means = x[torch.tensor([0, 1, 2])].clone()
means = torch.tensor([[-1.0, 0.0], [1.0, 1.0], [1.0, -1.0]])
covs = torch.eye(dim).repeat(K, 1, 1)
weights = torch.full((K,), 1.0 / K)
prev = -math.inf
for it in range(50):
    comp = D.MultivariateNormal(means, covariance_matrix=covs)
    log_r = comp.log_prob(x.unsqueeze(1)) + weights.log()
    ll = torch.logsumexp(log_r, 1).sum()
    resp = (log_r - torch.logsumexp(log_r, 1, keepdim=True)).exp()
    Nk = resp.sum(0)
    weights = Nk / Nk.sum()
    means = (resp.T @ x) / Nk.unsqueeze(1)
    diff = x.unsqueeze(1) - means
    covs = torch.einsum("nk,nki,nkj->kij", resp, diff, diff) / Nk.view(K, 1, 1) + 1e-4 * torch.eye(dim)
    if ll.item() - prev < 1e-4:
        break
    prev = ll.item()
print("converged before 50", it < 49, "monotone ll finite", math.isfinite(prev))
order = means[:, 0].argsort()
print("weights", r(weights[order], 2))
print("means", r(means[order], 1))
print("covs diag", r(torch.diagonal(covs[order], dim1=-2, dim2=-1), 1))

gmm = D.MixtureSameFamily(D.Categorical(probs=weights), D.MultivariateNormal(means, covariance_matrix=covs))
print("gmm", gmm.batch_shape, gmm.event_shape, gmm.mixture_distribution.probs.shape)
print("avg ll", round(gmm.log_prob(x).mean().item(), 2), round(ll.item() / 600, 2))
print("mean", r(gmm.mean, 2), "var shape", gmm.variance.shape)
torch.manual_seed(1)
s = gmm.sample((5000,))
print("sample", s.shape, r(s.mean(0), 1))
post = gmm.component_distribution.log_prob(x[:3].unsqueeze(1)) + gmm.mixture_distribution.logits
print("hard assignments consistent", torch.equal(post.argmax(-1), resp[:3].argmax(-1)))

# gradient-based fit with unconstrained parameters (logits, means, scale_tril via transform_to)
torch.manual_seed(2)
logits = torch.zeros(K, requires_grad=True)
mu = torch.randn(K, dim).mul(2).requires_grad_()
raw_tril = torch.zeros(K, dim, dim, requires_grad=True)
to_tril = D.transform_to(D.constraints.lower_cholesky)
opt = torch.optim.Adam([logits, mu, raw_tril], lr=0.05)
for step in range(300):
    model = D.MixtureSameFamily(D.Categorical(logits=logits), D.MultivariateNormal(mu, scale_tril=to_tril(raw_tril)))
    loss = -model.log_prob(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("sgd nll close to em", abs(loss.item() + gmm.log_prob(x).mean().item()) < 0.1)
print(
    "tril lower",
    bool((to_tril(raw_tril).triu(1) == 0).all()),
    "diag pos",
    bool((torch.diagonal(to_tril(raw_tril), dim1=-2, dim2=-1) > 0).all()),
)

# 1-D mixture: cdf, and a mixture of Independent components
m1 = D.MixtureSameFamily(
    D.Categorical(torch.tensor([0.3, 0.7])), D.Normal(torch.tensor([-1.0, 2.0]), torch.tensor([0.5, 1.0]))
)
print("cdf", r(m1.cdf(torch.tensor([-1.0, 0.0, 2.0, 10.0]))))
print("mean/var", round(m1.mean.item(), 4), round(m1.variance.item(), 4))
mi = D.MixtureSameFamily(
    D.Categorical(logits=torch.zeros(2, 4)), D.Independent(D.Normal(torch.zeros(2, 4, 3), torch.ones(2, 4, 3)), 1)
)
print("indep mixture", mi.batch_shape, mi.event_shape, mi.log_prob(torch.zeros(5, 2, 3)).shape)
print("repr", repr(m1).replace("\n", " ")[:140])
try:
    m1.rsample()
except Exception as e:
    print(type(e).__name__, e)
try:
    D.MixtureSameFamily(D.Categorical(logits=torch.zeros(2)), D.Normal(0.0, 1.0))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.tensor([0.5, 0.5]), 3)
except Exception as e:
    print(type(e).__name__, e)
