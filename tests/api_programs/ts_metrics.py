"""Forecast evaluation as benchmark code writes it: MAE/RMSE/MAPE/sMAPE/MASE/WAPE with masks and zero guards,
pinball loss over quantile grids, CRPS three ways (closed form for a Gaussian with erf and the normal pdf, the
energy form over samples with cdist, and the quantile-loss approximation), interval coverage and the Winkler score,
calibration via ndtr/ndtri and the PIT histogram (histc), and per-series metric tables with aminmax and argsort."""

import math

import torch
from torch.distributions import Normal

torch.set_printoptions(precision=4, sci_mode=False)

T = 24
t = torch.arange(T, dtype=torch.float32)
y = torch.stack([10 + 3 * torch.sin(2 * math.pi * t / 12), 5 + 0.2 * t,
                 torch.where(t % 5 == 0, 0.0, 2.0 + torch.cos(t))])
yhat = y + 0.4 * torch.cos(1.3 * t) - 0.1
sigma = torch.tensor([0.5, 1.0, 0.8]).unsqueeze(-1).expand_as(y)
insample = torch.stack([10 + 3 * torch.sin(2 * math.pi * (t - T) / 12), 5 + 0.2 * (t - T), 2.0 + torch.cos(t - T)])


def mae(p, a):
    return (p - a).abs().mean(-1)


def rmse(p, a):
    return torch.sqrt(torch.mean((p - a) ** 2, dim=-1))


def mape(p, a):
    m = a != 0
    return 100 * torch.where(m, (p - a).abs() / a.abs(), 0.0).sum(-1) / m.sum(-1)


def smape(p, a):
    den = p.abs() + a.abs()
    return 200 * torch.where(den > 0, (p - a).abs() / den, torch.zeros_like(den)).mean(-1)


def mase(p, a, ins, m=5):
    scale = (ins[:, m:] - ins[:, :-m]).abs().mean(-1)
    return mae(p, a) / scale


def wape(p, a):
    return (p - a).abs().sum(-1) / a.abs().sum(-1)


table = torch.stack([mae(yhat, y), rmse(yhat, y), mape(yhat, y), smape(yhat, y), mase(yhat, y, insample),
                     wape(yhat, y)], dim=-1)
print("metrics table\n", table)
print("aminmax mape", torch.aminmax(table[:, 2]), "rank by smape", table[:, 3].argsort(descending=True))
print("naive mape with zeros", (100 * ((yhat - y).abs() / y.abs()).mean(-1)))

qs = torch.linspace(0.05, 0.95, 19)
dist = Normal(yhat, sigma)
qpred = dist.icdf(qs.view(-1, 1, 1))
print("quantile preds", tuple(qpred.shape), qpred[[0, 9, 18], 0, 0])


def pinball(qp, a, q):
    diff = a - qp
    return torch.maximum(q * diff, (q - 1) * diff)


pl = pinball(qpred, y, qs.view(-1, 1, 1))
print("pinball by q", pl.mean(dim=(1, 2))[[0, 4, 9, 14, 18]])
crps_q = 2 * pl.mean(0).mean(-1)
z = (y - yhat) / sigma
pdf = torch.exp(-0.5 * z ** 2) / math.sqrt(2 * math.pi)
cdf = 0.5 * (1 + torch.erf(z / math.sqrt(2)))
crps_closed = (sigma * (z * (2 * cdf - 1) + 2 * pdf - 1 / math.sqrt(math.pi))).mean(-1)
print("crps closed", crps_closed, "quantile approx", crps_q)
print("ndtr==cdf", torch.allclose(torch.special.ndtr(z), cdf, atol=1e-6),
      "log_ndtr", torch.special.log_ndtr(torch.tensor([-3.0, 0.0, 3.0])))

# energy-form CRPS from an ensemble of deterministic members
members = yhat.unsqueeze(-1) + sigma.unsqueeze(-1) * torch.special.ndtri(torch.linspace(0.02, 0.98, 25))
term1 = (members - y.unsqueeze(-1)).abs().mean(-1)
flat = members.reshape(-1, 25, 1)
term2 = torch.cdist(flat, flat, p=1).mean(dim=(-1, -2)).view_as(y)
crps_ens = (term1 - 0.5 * term2).mean(-1)
print("crps ensemble", crps_ens, "cdist shape", tuple(torch.cdist(flat, flat).shape))
srt, _ = members.sort(-1)
i = torch.arange(1, 26, dtype=torch.float32)
term2_sorted = (2 * (2 * i - 25 - 1) * srt).sum(-1) / (25 * 25)
print("sorted formula agrees", torch.allclose(term2_sorted, term2, atol=1e-4))

lo, hi = dist.icdf(torch.tensor(0.05)), dist.icdf(torch.tensor(0.95))
inside = (y >= lo) & (y <= hi)
print("coverage 90%", inside.float().mean(-1), "width", (hi - lo).mean(-1))
alpha = 0.1
winkler = (hi - lo) + (2 / alpha) * ((lo - y).clamp(min=0) + (y - hi).clamp(min=0))
print("winkler", winkler.mean(-1))
pit = dist.cdf(y)
hist = torch.histc(pit, bins=5, min=0, max=1)
print("pit hist", hist, hist.sum().item())
counts = torch.bincount((pit * 5).long().clamp(max=4).flatten(), minlength=5)
print("bincount==histc", torch.equal(counts.float(), hist))
print("ndtri", torch.special.ndtri(torch.tensor([0.025, 0.5, 0.975])), "erfinv", torch.erfinv(torch.tensor([0.0, 0.5])))
print("log-score", (-dist.log_prob(y)).mean(-1))
bad = y.clone()
bad[0, 3] = float("nan")
print("nan metric", mae(yhat, bad), torch.nanmean((yhat - bad).abs(), dim=-1))
