"""Time-series anomaly scoring: rolling windows with Tensor.unfold (views, strides, step > size), rolling mean/std
z-scores with correction=, robust MAD scores via median/nanmedian, EWMA by cumprod weights, cummax drawdowns,
point-adjusted F1 over anomaly segments, and LSTM-autoencoder window reconstruction errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

T = 40
t = torch.arange(T, dtype=torch.float32)
x = torch.sin(t / 3) + 0.1 * torch.randn(T)
x[17] += 3.0
x[30:33] -= 2.5
w = x.unfold(0, 5, 1)
print("windows", w.shape, w.stride(), w.is_contiguous(), w._base is x if hasattr(w, "_base") else None)
print(
    "step>size", x.unfold(0, 3, 5).shape, x.unfold(0, 3, 5).stride(), x.unfold(0, 40, 1).shape, x.unfold(0, 0, 2).shape
)
x2 = torch.stack([x, -x], 1)
print("2d unfold", x2.unfold(0, 4, 2).shape, x2.unfold(0, 4, 2).stride(), x2.t().unfold(1, 4, 2).stride())
mu = w.mean(-1)
sd = w.std(-1)
sd0 = w.std(-1, correction=0)
print("std", sd[:3], sd0[:3], torch.std_mean(w[:2], dim=-1, unbiased=False))
z = (x[4:] - mu) / (sd + 1e-8)
print("z", z[10:16])
past = F.pad(x, (5, 0), mode="constant", value=float("nan")).unfold(0, 5, 1)[:-1]
pm = past.nanmean(-1)
print("nanmean", pm[:7], past[:2])
print("top z", z.abs().topk(3).indices + 4)
med = w.median(-1)
print("median", med.values[:4], med.indices[:4], torch.median(torch.tensor([1.0, 3.0, 2.0, 4.0])))
mad = (w - med.values.unsqueeze(-1)).abs().median(-1).values
robust = 0.6745 * (x[4:] - med.values) / (mad + 1e-6)
print("robust", robust.abs().argmax().item() + 4, robust[12:15])
print(
    "nanmedian",
    torch.nanmedian(torch.tensor([float("nan"), 1.0, 5.0, 2.0])),
    torch.tensor([float("nan"), 1.0]).median(),
    torch.nanmedian(torch.tensor([[float("nan"), float("nan")], [1.0, 2.0]]), dim=1),
)
alpha = 0.3
k = torch.arange(T - 1, -1, -1, dtype=torch.float32)
ew = alpha * (1 - alpha) ** k
ewma = torch.stack([(x[: i + 1] * ew[-(i + 1) :]).sum() + (1 - alpha) ** (i + 1) * x[0] for i in range(T)])
print("ewma", ewma[15:19])
cum = torch.cumprod(torch.full((5,), 1 - alpha), 0)
print("cumprod", cum, torch.cumprod(torch.tensor([2, 3, 0, 4]), 0), torch.cumprod(torch.tensor([True, True, False]), 0))
peak = torch.cummax(x, 0)
print("cummax", peak.values[15:19], peak.indices[15:19], torch.cummin(torch.tensor([3, 1, 1, 2]), 0))
print("cummax ties nan", torch.cummax(torch.tensor([1.0, float("nan"), 2.0, 2.0]), 0))
print("logcumsumexp", torch.logcumsumexp(torch.tensor([0.0, float("-inf"), 1.0]), 0))

# point-adjusted F1: a detected point inside a true segment marks the whole segment
label = torch.zeros(T, dtype=torch.bool)
label[17] = True
label[30:33] = True
pred = torch.zeros(T, dtype=torch.bool)
pred[4:] = z.abs() > 1.5
edges = torch.diff(label.int(), prepend=torch.tensor([0]), append=torch.tensor([0]))
starts, ends = torch.nonzero(edges == 1).flatten(), torch.nonzero(edges == -1).flatten()
print("segments", starts.tolist(), ends.tolist())
adj = pred.clone()
for s, e in zip(starts.tolist(), ends.tolist()):
    if pred[s:e].any():
        adj[s:e] = True
tp = (adj & label).sum()
prec = tp / adj.sum().clamp(min=1)
rec = tp / label.sum()
print(
    "pa-f1", pred.sum().item(), adj.sum().item(), round((2 * prec * rec / (prec + rec)).item(), 4), tp.dtype, prec.dtype
)


class LSTMAE(nn.Module):
    def __init__(self, hidden=6):
        super().__init__()
        self.enc = nn.LSTM(1, hidden, batch_first=True)
        self.dec = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, s):
        _, (h, _) = self.enc(s)
        rep = h[-1].unsqueeze(1).repeat(1, s.shape[1], 1)
        y, _ = self.dec(rep)
        return self.out(y)


win = x.unfold(0, 8, 4).unsqueeze(-1)
ae = LSTMAE()
rec_ = ae(win)
err = (rec_ - win).pow(2).mean(dim=(1, 2))
print("lstm-ae", win.shape, rec_.shape, err.argmax().item(), err.shape)
err.mean().backward()
print("grad norm", round(ae.enc.weight_ih_l0.grad.norm().item(), 4))
for bad in [
    lambda: x.unfold(0, 41, 1),
    lambda: x.unfold(0, 3, 0),
    lambda: x.unfold(1, 3, 1),
    lambda: torch.median(torch.tensor([]), 0),
    lambda: torch.tensor([1, 2]).std(),
    lambda: torch.cummax(torch.tensor(1.0), 1),
]:
    try:
        print(bad())
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
print(torch.tensor(1.0).unfold(0, 1, 1), torch.tensor([5.0]).std(), torch.tensor([5.0]).var(correction=0))
