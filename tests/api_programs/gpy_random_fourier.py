"""Random Fourier features for RBF and Matern kernels as written by hand: spectral samples from Normal and
StudentT, cos/sin feature maps, Bayesian linear regression on the features, and Thompson-sampling draws."""

import math

import torch
from torch.distributions import Chi2, MultivariateNormal, Normal, StudentT

torch.manual_seed(21)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64

d, D = 2, 2000
ls = torch.tensor([0.5, 1.0], dtype=f64)
x = torch.rand(30, d, dtype=f64)


def rbf(a, b):
    return torch.exp(-0.5 * torch.cdist(a / ls, b / ls).pow(2))


omega = Normal(torch.zeros(d, dtype=f64), 1.0 / ls).sample((D,))
print("omega", tuple(omega.shape), omega.dtype, "std", (omega.std(0) * ls).round(decimals=1))
b = torch.rand(D, dtype=f64) * 2 * math.pi
phi = math.sqrt(2.0 / D) * torch.cos(x @ omega.mT + b)
print("rff err", (phi @ phi.mT - rbf(x, x)).abs().max().item() < 0.1)
phi2 = torch.cat([torch.cos(x @ omega.mT), torch.sin(x @ omega.mT)], -1) / math.sqrt(D)
print("cos/sin err", (phi2 @ phi2.mT - rbf(x, x)).abs().max().item() < 0.1, phi2.shape)

nu = 2.5
t = StudentT(torch.tensor(2 * nu, dtype=f64)).sample((D, d)) / ls
chi = Chi2(torch.tensor(2 * nu, dtype=f64)).sample((D, 1))
g = torch.randn(D, d, dtype=f64)
omega_m = g * torch.sqrt(2 * nu / chi) / ls
print("student-t omega", t.shape, t.dtype, "chi2 mean", round(chi.mean().item(), 1))
r = torch.cdist(x / ls, x / ls)
matern = (1 + math.sqrt(5) * r + 5 / 3 * r**2) * torch.exp(-math.sqrt(5) * r)
phim = math.sqrt(2.0 / D) * torch.cos(x @ omega_m.mT + b)
print("matern rff err", (phim @ phim.mT - matern).abs().max().item() < 0.12)

y = torch.sin(3 * x[:, 0]) * torch.cos(2 * x[:, 1]) + 0.05 * torch.randn(30, dtype=f64)
noise = 0.05**2
Dm = 300
Phi = phi[:, :Dm] * math.sqrt(D / Dm)
A = Phi.mT @ Phi + noise * torch.eye(Dm, dtype=f64)
L = torch.linalg.cholesky(A)
w_mean = torch.cholesky_solve((Phi.mT @ y).unsqueeze(-1), L).squeeze(-1)
w_cov = noise * torch.cholesky_inverse(L)
print("w", tuple(w_mean.shape), "cov sym", torch.allclose(w_cov, w_cov.mT))
pred = Phi @ w_mean
print("train rmse small", (pred - y).pow(2).mean().sqrt().item() < 0.1)
post = MultivariateNormal(w_mean, scale_tril=torch.linalg.cholesky(w_cov + 1e-10 * torch.eye(Dm, dtype=f64)))
draws = post.rsample((4,))
print("thompson draws", tuple(draws.shape), post.batch_shape, post.event_shape)
xs = torch.rand(100, d, dtype=f64)
Phis = math.sqrt(2.0 / D) * torch.cos(xs @ omega[:Dm].mT + b[:Dm]) * math.sqrt(D / Dm)
f = draws @ Phis.mT
print("argmax per draw", f.argmax(-1).shape, f.shape)
print("log_prob finite", torch.isfinite(post.log_prob(w_mean)).item())
feat = torch.nn.Linear(d, 64).double()
with torch.no_grad():
    feat.weight.copy_(omega[:64])
    feat.bias.copy_(b[:64])
z = math.sqrt(2 / 64) * torch.cos(feat(x))
print("linear features", z.shape, feat.weight.requires_grad, z.requires_grad)
print(feat)
