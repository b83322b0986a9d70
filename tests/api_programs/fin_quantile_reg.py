"""Quantile regression as return-forecasting and risk code uses it: the pinball loss for a grid of quantiles,
linear quantile regression by subgradient Adam and by an MLP with non-crossing quantiles (softplus increments and
cumsum), coverage and crossing checks, conditional-coverage of prediction intervals, the quantile Huber loss, a
sort-based rearrangement of crossing quantiles, and pinball loss against torch.quantile's empirical minimiser."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
n = 800
x = torch.linspace(-2, 2, n).unsqueeze(1)
noise_scale = 0.3 + 0.4 * (x.squeeze(1) + 2) / 4
y = 0.5 * x.squeeze(1) + torch.sin(2 * x.squeeze(1)) * 0.3 + noise_scale * torch.randn(n)
taus = torch.tensor([0.05, 0.25, 0.5, 0.75, 0.95])


def pinball(pred, target, taus):
    diff = target.unsqueeze(-1) - pred
    return torch.maximum(taus * diff, (taus - 1) * diff).mean()


c = torch.linspace(-1, 1, 201)
emp = torch.stack([pinball(torch.full((n, 1), v.item()), y, torch.tensor([0.9])) for v in c])
print("pinball argmin ~ quantile", round(c[emp.argmin()].item(), 2), round(torch.quantile(y, 0.9).item(), 2))

X = torch.cat([torch.ones(n, 1), x], dim=1)
B = torch.zeros(2, 5, requires_grad=True)
opt = torch.optim.Adam([B], lr=0.05)
for it in range(400):
    loss = pinball(X @ B, y, taus)
    opt.zero_grad()
    loss.backward()
    opt.step()
pred = (X @ B).detach()
cov = (y.unsqueeze(1) <= pred).float().mean(0)
print("linear coverage near taus", bool(((cov - taus).abs() < 0.06).all()), cov.dtype)
print("slopes increase", bool((B[1].detach().diff() > -0.05).all()), B.grad.shape)


class NonCrossing(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU())
        self.base = nn.Linear(32, 1)
        self.inc = nn.Linear(32, k - 1)

    def forward(self, x):
        h = self.body(x)
        return torch.cat([self.base(h), self.base(h) + torch.cumsum(F.softplus(self.inc(h)), dim=-1)], dim=-1)


net = NonCrossing(5)
opt = torch.optim.AdamW(net.parameters(), lr=0.01, weight_decay=1e-4)
for it in range(300):
    loss = pinball(net(x), y, taus)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    q = net(x)
print("no crossing", bool((q.diff(dim=-1) >= 0).all()), "loss", round(loss.item(), 1))
print("mlp coverage near taus", bool((((y.unsqueeze(1) <= q).float().mean(0) - taus).abs() < 0.06).all()))
width = q[:, -1] - q[:, 0]
print("interval widens", width[-100:].mean().item() > width[:100].mean().item())
inside = ((y >= q[:, 0]) & (y <= q[:, -1])).float()
by_bin = torch.stack([chunk.mean() for chunk in inside.chunk(4)])
print("conditional coverage", bool(((by_bin - 0.9).abs() < 0.1).all()), tuple(by_bin.shape))

crossed = torch.tensor([[0.1, 0.3, 0.2, 0.6, 0.5], [1.0, 0.9, 0.8, 0.7, 0.6]])
fixed, _ = torch.sort(crossed, dim=-1)
print("rearranged", fixed.tolist(), torch.sort(crossed, dim=-1, stable=True).indices.tolist())
print("cummax monotone", torch.cummax(crossed, dim=-1).values.tolist())


def quantile_huber(pred, target, taus, kappa=1.0):
    u = target.unsqueeze(-1) - pred
    hub = F.huber_loss(pred, target.unsqueeze(-1).expand_as(pred), reduction="none", delta=kappa)
    return ((taus - (u < 0).float()).abs() * hub / kappa).mean()


print("quantile huber", round(quantile_huber(pred, y, taus).item(), 1))
print(
    "smooth_l1 vs huber",
    torch.allclose(
        F.smooth_l1_loss(pred, y.unsqueeze(-1).expand_as(pred), beta=0.5) * 0.5,
        F.huber_loss(pred, y.unsqueeze(-1).expand_as(pred), delta=0.5),
    ),
)
for bad in [
    lambda: F.huber_loss(pred, y),
    lambda: F.huber_loss(pred, pred, delta=-1.0),
    lambda: F.smooth_l1_loss(pred, pred, beta=-0.5),
    lambda: torch.quantile(y, taus.double()),
]:
    try:
        r = bad()
        print("ok", tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)
