"""Bayes-by-backprop regression: Gaussian mean-field linear layers with softplus sigmas."""
import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out, prior_sigma=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.empty(n_out, n_in).uniform_(-0.2, 0.2))
        self.w_rho = nn.Parameter(torch.full((n_out, n_in), -3.0))
        self.b_mu = nn.Parameter(torch.zeros(n_out))
        self.b_rho = nn.Parameter(torch.full((n_out,), -3.0))
        self.prior = D.Normal(torch.tensor(0.0), torch.tensor(prior_sigma))

    def posterior(self):
        return (D.Normal(self.w_mu, F.softplus(self.w_rho)),
                D.Normal(self.b_mu, F.softplus(self.b_rho)))

    def forward(self, x):
        qw, qb = self.posterior()
        w = qw.rsample()
        b = qb.rsample()
        return F.linear(x, w, b)

    def kl(self):
        qw, qb = self.posterior()
        return D.kl_divergence(qw, self.prior).sum() + D.kl_divergence(qb, self.prior).sum()


class BNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = BayesLinear(1, 16)
        self.l2 = BayesLinear(16, 1)
        self.log_noise = nn.Parameter(torch.tensor(-1.0))

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))

    def kl(self):
        return sum(m.kl() for m in self.modules() if isinstance(m, BayesLinear))


torch.manual_seed(0)
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(2 * x) + 0.1 * torch.randn_like(x)
model = BNN()
print("params", sum(p.numel() for p in model.parameters()))
print([n for n, _ in model.named_parameters()][:4])

qw, _ = model.l1.posterior()
print("batch_shape", qw.batch_shape, "event_shape", qw.event_shape)
print("kl closed form", round(model.kl().item(), 3))
mc = (qw.log_prob(torch.stack([qw.sample() for _ in range(2000)])) -
      model.l1.prior.log_prob(torch.stack([qw.sample() for _ in range(1)]))).shape
print("mc shape", mc)
ind = D.Independent(qw, 2)
print("independent", ind.batch_shape, ind.event_shape, ind.log_prob(qw.mean).shape)

opt = torch.optim.Adam(model.parameters(), lr=0.03)
n = x.shape[0]
for step in range(150):
    opt.zero_grad()
    pred = model(x)
    lik = D.Normal(pred, model.log_noise.exp())
    nll = -lik.log_prob(y).sum()
    loss = nll + model.kl() / 1.0
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(step, "loss finite", bool(torch.isfinite(loss)), "grad_fn", type(loss.grad_fn).__name__)

with torch.no_grad():
    preds = torch.stack([model(x) for _ in range(200)])
    mean, std = preds.mean(0), preds.std(0)
    rmse = (mean - torch.sin(2 * x)).pow(2).mean().sqrt()
    print("rmse < 0.3", bool(rmse < 0.3))
    print("std positive", bool((std > 0).all()))
    print("noise sigma < 0.4", bool(model.log_noise.exp() < 0.4))
    sig = F.softplus(model.l1.w_rho)
    print("sigma dtype", sig.dtype, "min > 0", bool(sig.min() > 0))

# softplus with beta/threshold as used for sigma parameterisations
r = torch.tensor([-30.0, -1.0, 0.0, 1.0, 25.0])
print(F.softplus(r).round(decimals=4).tolist())
print(F.softplus(r, beta=2.0, threshold=5.0).round(decimals=4).tolist())
print(nn.Softplus(beta=0.5)(r).round(decimals=4).tolist())
print(repr(nn.Softplus(beta=0.5, threshold=10.0)))
# inverse softplus used to initialise rho from a target sigma
target = torch.tensor([0.01, 0.1, 1.0])
rho = target.expm1().log()
print(rho.round(decimals=4).tolist(), F.softplus(rho).round(decimals=4).tolist())
print(round(math.log(math.expm1(0.05)), 4))

# mismatch errors
try:
    D.Normal(torch.zeros(3), torch.ones(4))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0))
except Exception as e:
    print(type(e).__name__, e)
