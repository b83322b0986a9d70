"""Embeddings for numeric features (Gorishniy et al.): piecewise-linear encodings over quantile bins, periodic
embeddings, and a rank-Gauss transform."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
X = torch.cat([torch.randn(50, 1), torch.rand(50, 1) * 10, torch.randn(50, 1).exp()], 1)

# quantile bins per feature
n_bins = 4
qs = torch.linspace(0, 1, n_bins + 1)
edges = torch.quantile(X, qs, dim=0).T.contiguous()  # features x (bins + 1)
print("edges", tuple(edges.shape), edges[1].round(decimals=4).tolist())
print("quantile dtype", torch.quantile(X.double(), qs.double(), dim=0).dtype)


def ple(x, edges):
    """Piecewise-linear encoding: 1 for bins left of x, the fraction inside x's bin, 0 to the right."""
    left, right = edges[:, :-1], edges[:, 1:]
    frac = (x[..., None] - left) / (right - left)
    idx = torch.searchsorted(edges[:, 1:-1].contiguous(), x.T.contiguous()).T  # bin per value
    bins = torch.arange(edges.shape[1] - 1)
    enc = torch.where(
        bins < idx[..., None], torch.ones_like(frac), torch.where(bins > idx[..., None], torch.zeros_like(frac), frac)
    )
    return enc.clamp(0, 1), idx


enc, idx = ple(X[:6], edges)
print("ple", tuple(enc.shape), enc[0].round(decimals=4).tolist())
print("bin idx", idx.tolist())
b1 = torch.bucketize(X[:6, 0].contiguous(), edges[0, 1:-1])
print("bucketize matches searchsorted", torch.equal(b1, idx[:, 0]), b1.dtype)
print(
    "bucketize right",
    torch.bucketize(edges[0], edges[0, 1:-1], right=True).tolist(),
    torch.bucketize(edges[0], edges[0, 1:-1]).tolist(),
)
print("searchsorted side", torch.searchsorted(edges[0].contiguous(), edges[0], side="right").tolist())
print("searchsorted out_int32", torch.searchsorted(edges[0].contiguous(), X[:3, 0].contiguous(), out_int32=True).dtype)


class Periodic(nn.Module):
    def __init__(self, n_features, k, sigma):
        super().__init__()
        self.coef = nn.Parameter(torch.randn(n_features, k) * sigma)

    def forward(self, x):
        v = 2 * math.pi * self.coef[None] * x[..., None]
        return torch.cat([torch.cos(v), torch.sin(v)], -1)


per = Periodic(3, 4, 0.1)
pe = per(X[:5])
print("periodic", tuple(pe.shape), pe.grad_fn.name(), round(pe.pow(2).sum(-1).mean().item(), 4))
head = nn.Sequential(nn.Flatten(1), nn.Linear(3 * 8, 16), nn.ReLU(), nn.Linear(16, 1))
y = (X[:, 0] * X[:, 1]).tanh()
opt = torch.optim.Adam(list(per.parameters()) + list(head.parameters()), lr=0.01)
for step in range(15):
    opt.zero_grad()
    loss = F.mse_loss(head(per(X)).squeeze(-1), y)
    loss.backward()
    opt.step()
print("periodic loss", round(loss.item(), 4), per.coef.grad.abs().sum().item() > 0)

# rank-Gauss: ranks -> uniform -> erfinv
ranks = X.argsort(0).argsort(0).float()
u = (ranks + 0.5) / X.shape[0] * 2 - 1
g = torch.erfinv(u.clamp(-1 + 1e-6, 1 - 1e-6)) * math.sqrt(2)
print("rank-gauss", g.mean(0).abs().max().item() < 1e-5, g.std(0).round(decimals=4).tolist(), g.dtype)
print("special.ndtri", torch.special.ndtri(torch.tensor([0.025, 0.5, 0.975])).round(decimals=4).tolist())
print("special.ndtr", torch.special.ndtr(torch.tensor([-1.96, 0.0, 1.0])).round(decimals=4).tolist())
print("erfinv edges", torch.erfinv(torch.tensor([-1.0, 1.0, 1.5])).tolist())
print("log1p/expm1", torch.log1p(X[:3, 2]).round(decimals=4).tolist(), torch.expm1(torch.tensor([1e-8])).item() > 0)
# Box-Cox and Yeo-Johnson for a skewed feature
lam = 0.5
bc = (X[:, 2].pow(lam) - 1) / lam
yj = torch.where(X[:, 0] >= 0, ((X[:, 0] + 1).pow(lam) - 1) / lam, -((-X[:, 0] + 1).pow(2 - lam) - 1) / (2 - lam))
print("box-cox", round(bc.mean().item(), 4), "yeo-johnson", round(yj.std().item(), 4))
# clipping outliers at quantiles, with a tensor min/max per feature
lo, hi = torch.quantile(X, torch.tensor([0.05, 0.95]), dim=0)
clipped = X.clamp(min=lo, max=hi)
print("clipped", (clipped == X).float().mean().item(), torch.equal(clipped.amax(0), hi))
print("clip_ tensor", X.clone().clip_(lo, hi).sum().round(decimals=4).item() == clipped.sum().round(decimals=4).item())
for name, fn in [
    ("searchsorted unsorted dims", lambda: torch.searchsorted(edges, X[:3])),
    ("bucketize bad boundary dim", lambda: torch.bucketize(X[:3], edges)),
    ("erfinv int", lambda: torch.erfinv(torch.tensor([0, 1])).dtype),
    ("clamp none", lambda: X.clamp()),
    ("quantile q>1", lambda: torch.quantile(X, torch.tensor([0.5, 1.2]), dim=0)),
]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
