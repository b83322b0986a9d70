"""Regression heads for tabular targets with uncertainty: multi-quantile pinball loss, Gaussian and
negative-binomial likelihoods, conformal intervals from calibration residuals."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
torch.manual_seed(0)
N = 120
X = torch.randn(N, 4)
noise = 0.2 + 0.5 * X[:, 1].abs()
y = X[:, 0] * 2 + noise * torch.randn(N)
Xtr, ytr, Xcal, ycal = X[:80], y[:80], X[80:], y[80:]

taus = torch.tensor([0.1, 0.5, 0.9])


def pinball(pred, target, taus):
    diff = target[:, None] - pred
    return torch.maximum(taus * diff, (taus - 1) * diff).mean()


qnet = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(qnet.parameters(), lr=0.02)
for step in range(60):
    opt.zero_grad()
    loss = pinball(qnet(Xtr), ytr, taus)
    loss.backward()
    opt.step()
print("pinball", round(loss.item(), 4))
with torch.no_grad():
    q = qnet(Xcal)
    q_sorted, _ = q.sort(dim=1)  # fix quantile crossing
print(
    "crossing",
    (q[:, 0] > q[:, 2]).sum().item(),
    "coverage",
    round(((ycal >= q_sorted[:, 0]) & (ycal <= q_sorted[:, 2])).float().mean().item(), 4),
)
print("torch.quantile check", torch.quantile(ytr, taus).round(decimals=4).tolist())

# heteroscedastic Gaussian head: gaussian_nll_loss and Normal.log_prob agree
gnet = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(gnet.parameters(), lr=0.02)
for step in range(60):
    out = gnet(Xtr)
    mu, var = out[:, 0], F.softplus(out[:, 1]) + 1e-4
    loss = F.gaussian_nll_loss(mu, ytr, var)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    out = gnet(Xtr)
    mu, var = out[:, 0], F.softplus(out[:, 1]) + 1e-4
    nll_f = F.gaussian_nll_loss(mu, ytr, var, full=True)
    nll_d = -D.Normal(mu, var.sqrt()).log_prob(ytr).mean()
print(
    "gaussian nll",
    round(nll_f.item(), 4),
    round(nll_d.item(), 4),
    round(F.gaussian_nll_loss(mu, ytr, var, eps=1e-2, reduction="sum").item(), 4),
)
dist = D.Normal(mu[:3], var[:3].sqrt())
print("normal", dist.batch_shape, dist.event_shape, dist.icdf(torch.tensor(0.975)).round(decimals=4).tolist())
print("cdf", dist.cdf(ytr[:3]).round(decimals=4).tolist(), dist.entropy().round(decimals=4).tolist())
ind = D.Independent(D.Normal(mu[:3], var[:3].sqrt()), 1)
print("independent", ind.batch_shape, ind.event_shape, round(ind.log_prob(ytr[:3]).item(), 4))

# count target: negative binomial and Poisson likelihoods
counts = torch.poisson(torch.exp(0.5 * X[:, 0] + 1), generator=torch.Generator().manual_seed(0))
print("counts", counts.dtype, counts[:8].tolist())
rate = torch.exp(0.5 * X[:, 0] + 1)
print(
    "poisson nll",
    round(F.poisson_nll_loss(rate.log(), counts).item(), 4),
    round(F.poisson_nll_loss(rate, counts, log_input=False, full=True).item(), 4),
)
print("Poisson lp", round(-D.Poisson(rate).log_prob(counts).mean().item(), 4))
nb = D.NegativeBinomial(total_count=torch.tensor(3.0), logits=(rate / 3).log())
print(
    "nb",
    round(nb.mean[:3].sum().item(), 4),
    round(nb.variance[:3].sum().item(), 4),
    round(nb.log_prob(counts).mean().item(), 4),
)
zi_pi = torch.tensor(0.2)
lp0 = torch.log(zi_pi + (1 - zi_pi) * torch.exp(D.Poisson(rate).log_prob(torch.zeros_like(rate))))
lpn = torch.log(1 - zi_pi) + D.Poisson(rate).log_prob(counts)
zip_ll = torch.where(counts == 0, lp0, lpn)
print("zero-inflated", round(zip_ll.mean().item(), 4), int((counts == 0).sum()))

# split conformal: residual quantile with the finite-sample correction
with torch.no_grad():
    res = (ycal - qnet(Xcal)[:, 1]).abs()
n = len(res)
level = min(1.0, (1 - 0.1) * (n + 1) / n)
qhat = torch.quantile(res, level, interpolation="higher")
print("conformal", round(level, 4), round(qhat.item(), 4), round((res <= qhat).float().mean().item(), 4))
print("kthvalue", round(res.kthvalue(int(torch.ceil(torch.tensor((n + 1) * 0.9)).item())).values.item(), 4))
for name, fn in [
    ("negative variance", lambda: F.gaussian_nll_loss(mu, ytr, -var)),
    ("var shape", lambda: F.gaussian_nll_loss(mu, ytr, var[:5])),
    ("normal bad scale", lambda: D.Normal(0.0, -1.0)),
    ("poisson bad value", lambda: D.Poisson(torch.tensor(1.0)).log_prob(torch.tensor(-1.0))),
    ("nb both", lambda: D.NegativeBinomial(3.0, probs=torch.tensor(0.5), logits=torch.tensor(0.0))),
    ("quantile bad interp", lambda: torch.quantile(res, 0.5, interpolation="upper")),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
