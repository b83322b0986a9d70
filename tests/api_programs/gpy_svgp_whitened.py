"""SVGP with inducing points by hand: a whitened variational distribution q(u) = N(m, S S^T), the KL to N(0, I)
through triangular solves and MultivariateNormal, Gauss-Hermite expected log-likelihood, and an Adam-fitted ELBO."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import MultivariateNormal, Normal, kl_divergence

torch.manual_seed(1)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def rbf(a, b, ls):
    return torch.exp(-0.5 * torch.cdist(a / ls, b / ls).pow(2))


class SVGP(nn.Module):
    def __init__(self, Z):
        super().__init__()
        m = Z.shape[0]
        self.Z = nn.Parameter(Z.clone())
        self.q_mu = nn.Parameter(torch.zeros(m, dtype=f64))
        self.q_sqrt_raw = nn.Parameter(torch.eye(m, dtype=f64) * 0.5)
        self.raw_ls = nn.Parameter(torch.tensor(0.0, dtype=f64))
        self.raw_noise = nn.Parameter(torch.tensor(-1.0, dtype=f64))
        mask = torch.tril(torch.ones(m, m, dtype=torch.bool))
        self.register_buffer("mask", mask, persistent=False)

    def q_sqrt(self):
        S = self.q_sqrt_raw * self.mask
        return S - torch.diag_embed(S.diagonal()) + torch.diag_embed(F.softplus(S.diagonal()))

    def predict(self, X):
        ls = F.softplus(self.raw_ls)
        Kzz = rbf(self.Z, self.Z, ls) + 1e-6 * torch.eye(len(self.Z), dtype=f64)
        Lz = torch.linalg.cholesky(Kzz)
        A = torch.linalg.solve_triangular(Lz, rbf(self.Z, X, ls), upper=False)  # m x n
        S = self.q_sqrt()
        mean = A.mT @ self.q_mu
        SA = S.mT @ A
        var = 1.0 - A.pow(2).sum(0) + SA.pow(2).sum(0)
        return mean, var

    def kl(self):
        S = self.q_sqrt()
        m = len(self.q_mu)
        logdet = 2 * S.diagonal().abs().log().sum()
        return 0.5 * (S.pow(2).sum() + self.q_mu @ self.q_mu - m - logdet)


x = torch.linspace(-3, 3, 40, dtype=f64).unsqueeze(-1)
y = torch.sin(x[:, 0]) + 0.2 * torch.randn(40, dtype=f64)
model = SVGP(torch.linspace(-2.5, 2.5, 6, dtype=f64).unsqueeze(-1))
print("non-persistent buffer absent", "mask" not in model.state_dict(), list(model.state_dict()))

S = model.q_sqrt().detach()
q = MultivariateNormal(model.q_mu.detach(), scale_tril=S)
p = MultivariateNormal(torch.zeros(6, dtype=f64), torch.eye(6, dtype=f64))
print("kl closed form", round(model.kl().item(), 6), "dist kl", round(kl_divergence(q, p).item(), 6))
print(q, q.batch_shape, q.event_shape)
print("entropy", round(q.entropy().item(), 4), "log_prob", round(q.log_prob(torch.ones(6, dtype=f64)).item(), 4))
print(
    "cov strides",
    q.covariance_matrix.stride(),
    "precision sym",
    torch.allclose(q.precision_matrix, q.precision_matrix.mT),
)

gh_x, gh_w = np.polynomial.hermite.hermgauss(20)
gh_x, gh_w = torch.from_numpy(gh_x), torch.from_numpy(gh_w)
print("gh", gh_x.dtype, round(gh_w.sum().item(), 6), round(math.sqrt(math.pi), 6))


def expected_log_lik(y, mean, var, noise):
    f = mean.unsqueeze(-1) + torch.sqrt(2 * var).unsqueeze(-1) * gh_x
    ll = Normal(f, noise.sqrt()).log_prob(y.unsqueeze(-1))
    return (ll * gh_w).sum(-1) / math.sqrt(math.pi)


mean, var = model.predict(x)
noise = F.softplus(model.raw_noise)
gh = expected_log_lik(y, mean, var, noise)
exact = -0.5 * torch.log(2 * math.pi * noise) - 0.5 * ((y - mean) ** 2 + var) / noise
print("gh vs exact", (gh - exact).abs().max().item() < 1e-8)

opt = torch.optim.Adam(model.parameters(), lr=0.03)
for it in range(60):
    opt.zero_grad()
    mean, var = model.predict(x)
    elbo = expected_log_lik(y, mean, var, F.softplus(model.raw_noise)).sum() - model.kl()
    (-elbo).backward()
    opt.step()
    if it % 20 == 19:
        print(it, round(elbo.item(), 3), "kl", round(model.kl().item(), 3))
with torch.no_grad():
    mean, var = model.predict(torch.tensor([[0.0], [1.5], [5.0]], dtype=f64))
print("pred mean", mean.round(decimals=2), "var", var.round(decimals=2))
print("Z moved", (model.Z.detach().squeeze() - torch.linspace(-2.5, 2.5, 6, dtype=f64)).abs().max().item() > 0)
print("q_sqrt lower", torch.equal(model.q_sqrt().detach().triu(1), torch.zeros(6, 6, dtype=f64)))
try:
    MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 1.0], [0.0, 1.0]]))
except ValueError as e:
    print(type(e).__name__, str(e)[:120])
try:
    MultivariateNormal(torch.zeros(3), torch.eye(2))
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)
