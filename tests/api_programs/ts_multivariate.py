"""Multivariate probabilistic forecasting heads (GPVar/DeepVAR style): a LowRankMultivariateNormal whose factor
and diagonal come from an LSTM state (softplus diagonal), its log_prob against the full MultivariateNormal built
from covariance_matrix, Cholesky-based sampling made deterministic by feeding fixed normals through scale_tril,
a Gaussian copula from empirical ranks (argsort twice) and ndtri, the energy score and the variogram score of
deterministic ensembles, and the validation errors of covariance parameters."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import LowRankMultivariateNormal, MultivariateNormal, Normal

torch.set_printoptions(precision=4, sci_mode=False)


def det_(module, scale=0.3):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.57 + 0.9 * i).view_as(p) * scale)
    return module


N, T, R, Hd = 4, 10, 2, 6
t = torch.arange(T, dtype=torch.float32)
series = torch.stack([torch.sin(t / 2 + k) * (1 + 0.2 * k) for k in range(N)], -1).unsqueeze(0)
print("series", tuple(series.shape))


class LowRankHead(nn.Module):
    def __init__(self, hidden, n, rank):
        super().__init__()
        self.n, self.rank = n, rank
        self.mu = nn.Linear(hidden, n)
        self.factor = nn.Linear(hidden, n * rank)
        self.diag = nn.Linear(hidden, n)

    def forward(self, h):
        mu = self.mu(h)
        cov_factor = self.factor(h).view(*h.shape[:-1], self.n, self.rank)
        cov_diag = F.softplus(self.diag(h)) + 1e-3
        return LowRankMultivariateNormal(mu, cov_factor, cov_diag)


rnn = det_(nn.LSTM(N, Hd, batch_first=True))
head = det_(LowRankHead(Hd, N, R))
h, _ = rnn(series[:, :-1])
dist = head(h)
print("batch/event", tuple(dist.batch_shape), tuple(dist.event_shape), type(dist).__name__)
target = series[:, 1:]
lp = dist.log_prob(target)
print("log_prob", lp[0, :4])
full = MultivariateNormal(dist.loc, covariance_matrix=dist.covariance_matrix)
print("matches full MVN", torch.allclose(full.log_prob(target), lp, atol=1e-4))
print("cov symmetric", torch.allclose(dist.covariance_matrix, dist.covariance_matrix.transpose(-1, -2)))
print("variance == diag(cov)", torch.allclose(dist.variance, torch.diagonal(dist.covariance_matrix, dim1=-2, dim2=-1)))
print("entropy", dist.entropy()[0, :3], "precision", tuple(dist.precision_matrix.shape))
print("scale_tril", dist.scale_tril[0, 0])
loss = -lp.mean()
loss.backward()
print("nll", round(loss.item(), 4), "factor grad norm", round(head.factor.weight.grad.norm().item(), 4))

# deterministic sampling: fixed standard normals through the Cholesky factor
eps = torch.special.ndtri(torch.linspace(0.05, 0.95, 9)).view(9, 1).expand(9, N) * torch.tensor([1.0, -1.0, 0.5, -0.5])
with torch.no_grad():
    L = dist.scale_tril[0, -1]
    ens = dist.loc[0, -1] + eps @ L.T
print("ensemble", tuple(ens.shape), ens.mean(0))
print("rsample shape", tuple(dist.rsample((5,)).shape), "sample requires_grad", dist.rsample().requires_grad)

# Gaussian copula from empirical ranks
obs = torch.stack([series[0, :, k] ** (k + 1) for k in range(N)], -1)
ranks = obs.argsort(0).argsort(0).float()
u = (ranks + 1) / (T + 1)
z = torch.special.ndtri(u)
print("copula u", u[:3], "z std", z.std(0))
corr = torch.corrcoef(z.T)
print("copula corr", corr)
print("rank ties", torch.tensor([3.0, 1.0, 3.0, 2.0]).argsort(stable=True).argsort())

y = target[0, -1]


def energy_score(samples, obs, beta=1.0):
    d1 = torch.linalg.vector_norm(samples - obs, dim=-1).pow(beta).mean()
    d2 = torch.cdist(samples, samples).pow(beta).mean()
    return d1 - 0.5 * d2


def variogram_score(samples, obs, p=0.5):
    vo = (obs[:, None] - obs[None, :]).abs().pow(p)
    vs = (samples[:, :, None] - samples[:, None, :]).abs().pow(p).mean(0)
    return ((vo - vs) ** 2).sum()


print("energy", round(energy_score(ens, y).item(), 4), "variogram", round(variogram_score(ens, y).item(), 4))
print("energy of a point", round(energy_score(y[None], y).item(), 4))

mvn = MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[2.0, 0.0], [1.0, 0.5]]))
print("mvn cov", mvn.covariance_matrix, "mahalanobis lp", mvn.log_prob(torch.tensor([1.0, 1.0])))
prec = MultivariateNormal(torch.zeros(2), precision_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print("from precision", prec.covariance_matrix, prec.scale_tril)
indep = Normal(torch.zeros(3), torch.ones(3))
print("diag mvn == indep", torch.allclose(MultivariateNormal(torch.zeros(3), torch.eye(3)).log_prob(torch.ones(3)),
                                           indep.log_prob(torch.ones(3)).sum()))
for bad in (lambda: MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
            lambda: MultivariateNormal(torch.zeros(2)),
            lambda: LowRankMultivariateNormal(torch.zeros(3), torch.ones(2, 1), torch.ones(3)),
            lambda: LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), -torch.ones(2)),
            lambda: MultivariateNormal(torch.zeros(3), scale_tril=torch.eye(2))):
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:150])
print("log 2pi", round(math.log(2 * math.pi), 4))
