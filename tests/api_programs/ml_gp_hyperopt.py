"""Gaussian-process regression fitted by gradient: an RBF (and Matern-5/2) kernel with softplus-constrained
hyperparameters, the log marginal likelihood via Cholesky (and checked against slogdet/logdet and
MultivariateNormal.log_prob), Adam on the negative LML, the posterior mean and variance, and sampling from the
posterior with a jittered Cholesky."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import MultivariateNormal

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

n = 25
x = torch.sort(torch.rand(n, 1, dtype=dt) * 6 - 3, dim=0).values
y = torch.sin(1.5 * x).squeeze(1) + 0.15 * torch.randn(n, dtype=dt)
xs = torch.linspace(-3.5, 3.5, 8, dtype=dt).unsqueeze(1)
print("train", x.shape, y.shape, "test", xs.shape, x.dtype)


class RBF(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_ls = nn.Parameter(torch.tensor(0.0, dtype=dt))
        self.raw_var = nn.Parameter(torch.tensor(0.0, dtype=dt))

    @property
    def lengthscale(self):
        return F.softplus(self.raw_ls)

    @property
    def variance(self):
        return F.softplus(self.raw_var)

    def forward(self, a, b):
        d2 = torch.cdist(a / self.lengthscale, b / self.lengthscale).pow(2)
        return self.variance * torch.exp(-0.5 * d2)


class Matern52(RBF):
    def forward(self, a, b):
        r = torch.cdist(a, b) / self.lengthscale
        s5 = math.sqrt(5.0)
        return self.variance * (1 + s5 * r + 5.0 / 3.0 * r ** 2) * torch.exp(-s5 * r)


class GP(nn.Module):
    def __init__(self, kernel):
        super().__init__()
        self.kernel = kernel
        self.raw_noise = nn.Parameter(torch.tensor(-2.0, dtype=dt))

    @property
    def noise(self):
        return F.softplus(self.raw_noise) + 1e-6

    def lml(self, x, y):
        K = self.kernel(x, x) + self.noise * torch.eye(len(x), dtype=dt)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(1), L).squeeze(1)
        return -0.5 * y @ alpha - L.diagonal().log().sum() - 0.5 * len(x) * math.log(2 * math.pi), K

    def predict(self, x, y, xs):
        K = self.kernel(x, x) + self.noise * torch.eye(len(x), dtype=dt)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(x, xs)
        alpha = torch.cholesky_solve(y.unsqueeze(1), L)
        mean = (Ks.T @ alpha).squeeze(1)
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        cov = self.kernel(xs, xs) - v.T @ v
        return mean, cov


gp = GP(RBF())
print(gp)
print("params", [(k, tuple(p.shape), p.dtype) for k, p in gp.named_parameters()])
lml0, K0 = gp.lml(x, y)
sign, logabs = torch.linalg.slogdet(K0)
mvn = MultivariateNormal(torch.zeros(n, dtype=dt), covariance_matrix=K0)
print("initial lml", round(lml0.item(), 4), "via mvn", round(mvn.log_prob(y).item(), 4))
print("slogdet", sign.item(), round(logabs.item(), 4), "logdet", round(torch.logdet(K0).item(), 4))

opt = torch.optim.Adam(gp.parameters(), lr=0.05)
for step in range(150):
    opt.zero_grad()
    loss = -gp.lml(x, y)[0]
    loss.backward()
    opt.step()
    if step % 30 == 0 or step == 149:
        print(f"step {step:3d} -lml {loss.item():.4f} ls {gp.kernel.lengthscale.item():.4f} "
              f"var {gp.kernel.variance.item():.4f} noise {gp.noise.item():.4f}")

grads = torch.autograd.grad(gp.lml(x, y)[0], list(gp.parameters()))
print("grad norms at end", [round(g.abs().item(), 4) for g in grads])

with torch.no_grad():
    mean, cov = gp.predict(x, y, xs)
std = cov.diagonal().clamp(min=0).sqrt()
print("posterior mean", mean)
print("posterior std", std)
print("truth", torch.sin(1.5 * xs).squeeze(1))
print("95% band covers truth", ((torch.sin(1.5 * xs).squeeze(1) - mean).abs() < 1.96 * std + 0.3).tolist())

jitter = 1e-8 * torch.eye(len(xs), dtype=dt)
Lpost, info = torch.linalg.cholesky_ex(cov + jitter)
print("posterior cholesky info", info.item())
torch.manual_seed(3)
eps = torch.randn(len(xs), 4, dtype=dt)
samples = mean.unsqueeze(1) + Lpost @ eps
print("posterior samples", samples.shape, samples[:3])
post = MultivariateNormal(mean, scale_tril=Lpost)
print("posterior entropy", round(post.entropy().item(), 4), "log_prob(mean)", round(post.log_prob(mean).item(), 4))

gp2 = GP(Matern52())
opt2 = torch.optim.LBFGS(gp2.parameters(), lr=0.5, max_iter=60, line_search_fn="strong_wolfe")


def closure():
    opt2.zero_grad()
    loss = -gp2.lml(x, y)[0]
    loss.backward()
    return loss


opt2.step(closure)
lml_m = gp2.lml(x, y)[0]
print("matern lml", round(lml_m.item(), 3), "ls", round(gp2.kernel.lengthscale.item(), 3),
      "noise", round(gp2.noise.item(), 4))
print("rbf vs matern: better", "rbf" if gp.lml(x, y)[0].item() > lml_m.item() else "matern")
print("state_dict", {k: round(v.item(), 3) for k, v in gp2.state_dict().items()})
