"""Normalizing flow (RealNVP affine coupling, log-det sums, MultivariateNormal/Normal base, TransformedDistribution)
and Gaussian-process regression (cdist RBF kernel, cholesky, cholesky_solve, marginal likelihood with Adam)."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import distributions as D
from torch.distributions import transforms as Tr

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class Coupling(nn.Module):
    def __init__(self, dim, hidden, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, dim), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, dim))

    def forward(self, x):
        xm = x * self.mask
        s = self.s(xm) * (1 - self.mask)
        t = self.t(xm) * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return y, s.sum(dim=1)

    def inverse(self, y):
        ym = y * self.mask
        s = self.s(ym) * (1 - self.mask)
        t = self.t(ym) * (1 - self.mask)
        return ym + (1 - self.mask) * ((y - t) * torch.exp(-s))


class RealNVP(nn.Module):
    def __init__(self, dim=2, hidden=8, n=4):
        super().__init__()
        masks = [torch.tensor([i % 2, 1 - i % 2], dtype=torch.float32) for i in range(n)]
        self.layers = nn.ModuleList([Coupling(dim, hidden, m) for m in masks])
        self.base = D.MultivariateNormal(torch.zeros(dim), torch.eye(dim))

    def forward(self, x):
        logdet = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet

    def inverse(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z

    def log_prob(self, x):
        z, logdet = self(x)
        return self.base.log_prob(z) + logdet


flow = RealNVP()
with torch.no_grad():
    for p in flow.parameters():
        p.copy_(T(*p.shape) * 0.3)
theta = torch.from_numpy(rng.uniform(0, 2 * math.pi, 64).astype(np.float32))
data = torch.stack([torch.cos(theta), torch.sin(theta)], 1) * 2 + 0.1 * T(64, 2)
opt = torch.optim.Adam(flow.parameters(), lr=5e-3)
for step in range(4):
    loss = -flow.log_prob(data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("nll", step, round(loss.item(), 4))
z, ld = flow(data[:4])
print("roundtrip", round((flow.inverse(z) - data[:4]).abs().max().item(), 5), r(ld))
mvn = D.MultivariateNormal(torch.tensor([0.5, -0.5]), covariance_matrix=torch.tensor([[1.0, 0.3], [0.3, 0.5]]))
print("mvn", round(mvn.log_prob(torch.tensor([0.1, 0.2])).item(), 4), r(mvn.scale_tril), round(mvn.entropy().item(), 4))
print("mvn_shapes", mvn.batch_shape, mvn.event_shape, mvn.sample((3,)).shape, r(mvn.precision_matrix), r(mvn.variance))
mvn2 = D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 2.0]]))
print("kl_mvn", round(D.kl_divergence(mvn, mvn2).item(), 4), r(mvn2.covariance_matrix))
iso = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
print("independent", iso.batch_shape, iso.event_shape, round(iso.log_prob(torch.tensor([0.3, -0.2])).item(), 4))

base = D.Normal(torch.zeros(3), torch.ones(3))
tfs = [Tr.AffineTransform(loc=1.0, scale=2.0), Tr.ExpTransform()]
lognormal = D.TransformedDistribution(base, tfs)
v = torch.tensor([0.5, 1.0, 4.0])
print("transformed", r(lognormal.log_prob(v)), r(D.LogNormal(1.0, 2.0).log_prob(v)))
sig = D.TransformedDistribution(D.Uniform(torch.zeros(2), torch.ones(2)), [Tr.SigmoidTransform().inv])
print("logistic", r(sig.log_prob(torch.tensor([0.0, 1.5]))))
comp = Tr.ComposeTransform([Tr.AffineTransform(0.0, 3.0), Tr.TanhTransform()])
xx = torch.tensor([0.1, -0.2])
yy = comp(xx)
print("compose", r(yy), r(comp.inv(yy)), r(comp.log_abs_det_jacobian(xx, yy)))
print("biject", r(D.transform_to(D.constraints.positive)(torch.tensor([-1.0, 2.0]))),
      r(D.biject_to(D.constraints.unit_interval)(torch.tensor([0.0]))))

# Gaussian process regression
Xtr = torch.linspace(-3, 3, 12, dtype=torch.float64).unsqueeze(1)
ytr = torch.sin(Xtr).squeeze(1) + 0.1 * torch.from_numpy(rng.standard_normal(12))
Xte = torch.linspace(-3, 3, 5, dtype=torch.float64).unsqueeze(1)


class GP(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_ls = nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.log_sf = nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.raw_noise = nn.Parameter(torch.tensor(-2.0, dtype=torch.float64))

    def kernel(self, a, b):
        d = torch.cdist(a, b, p=2.0)
        return self.log_sf.exp() ** 2 * torch.exp(-0.5 * d.pow(2) / self.log_ls.exp() ** 2)

    def nll(self, X, y):
        n = X.shape[0]
        K = self.kernel(X, X) + (F.softplus(self.raw_noise) + 1e-6) * torch.eye(n, dtype=X.dtype)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        return 0.5 * (y @ alpha.squeeze(-1)) + torch.log(torch.diagonal(L)).sum() + 0.5 * n * math.log(2 * math.pi)

    def predict(self, X, y, Xs):
        K = self.kernel(X, X) + F.softplus(self.raw_noise) * torch.eye(X.shape[0], dtype=X.dtype)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(X, Xs)
        alpha = torch.cholesky_solve(y[:, None], L)
        mean = Ks.T @ alpha
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        var = self.kernel(Xs, Xs).diagonal() - (v**2).sum(0)
        return mean.squeeze(-1), var


gp = GP()
print("cdist", r(torch.cdist(Xtr[:3], Xte[:2])), r(torch.cdist(Xtr[:2], Xte[:2], p=1)))
gopt = torch.optim.Adam(gp.parameters(), lr=0.1)
for it in range(15):
    gopt.zero_grad()
    l = gp.nll(Xtr, ytr)
    l.backward()
    gopt.step()
print("gp_nll", round(l.item(), 4), round(gp.log_ls.exp().item(), 4), round(F.softplus(gp.raw_noise).item(), 4))
with torch.no_grad():
    mu, var = gp.predict(Xtr, ytr, Xte)
print("gp_pred", r(mu), r(var.clamp_min(0).sqrt()))
K = gp.kernel(Xtr, Xtr).detach() + 0.1 * torch.eye(12, dtype=torch.float64)
L = torch.linalg.cholesky(K)
print("chol", round((L @ L.mT - K).abs().max().item(), 8), round(torch.logdet(K).item(), 4),
      round(2 * L.diagonal().log().sum().item(), 4))
Lu = torch.linalg.cholesky(K, upper=True)
print("chol_upper", round((Lu.mT @ Lu - K).abs().max().item(), 8), r(torch.cholesky_solve(ytr[:, None], Lu,
                                                                                          upper=True)))
Lx, info = torch.linalg.cholesky_ex(K)
print("chol_ex", info.item(), info.dtype)
try:
    torch.linalg.cholesky(-K)
except torch.linalg.LinAlgError as e:
    print("linalg_err", type(e).__name__, str(e)[:60])
print("mvn_gp", round(D.MultivariateNormal(torch.zeros(12, dtype=torch.float64), scale_tril=L).log_prob(ytr).item(), 4))
