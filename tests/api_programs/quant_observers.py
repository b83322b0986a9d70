"""Observers written by hand as post-training-quantization code does: running min/max, moving-average min/max,
per-channel ranges with aminmax, a histogram observer on torch.histc that searches the clipping range minimizing
quantization error, percentile calibration, and qparams for symmetric/affine schemes with reduce_range."""

import torch

torch.manual_seed(0)


def calc_qparams(mn, mx, qmin, qmax, symmetric=False):
    mn = torch.minimum(mn, torch.zeros_like(mn))
    mx = torch.maximum(mx, torch.zeros_like(mx))
    eps = torch.finfo(torch.float32).eps
    if symmetric:
        amax = torch.maximum(-mn, mx)
        scale = torch.clamp(amax / ((qmax - qmin) / 2), min=eps)
        zp = torch.full_like(scale, (qmin + qmax + 1) // 2, dtype=torch.int64)
    else:
        scale = torch.clamp((mx - mn) / float(qmax - qmin), min=eps)
        zp = torch.clamp(qmin - torch.round(mn / scale).to(torch.int64), qmin, qmax)
    return scale, zp


class MinMax:
    def __init__(self):
        self.min_val = torch.tensor(float("inf"))
        self.max_val = torch.tensor(float("-inf"))

    def __call__(self, x):
        mn, mx = torch.aminmax(x.detach())
        self.min_val = torch.min(mn, self.min_val)
        self.max_val = torch.max(mx, self.max_val)


class MovingAverage(MinMax):
    def __init__(self, c=0.01):
        super().__init__()
        self.c = c

    def __call__(self, x):
        mn, mx = torch.aminmax(x.detach())
        if torch.isinf(self.min_val):
            self.min_val, self.max_val = mn, mx
        else:
            self.min_val = torch.lerp(self.min_val, mn, self.c)
            self.max_val = self.max_val + self.c * (mx - self.max_val)


batches = [torch.randn(32, 8) * (1 + i * 0.5) + 0.2 * i for i in range(5)]
obs, ema = MinMax(), MovingAverage(0.1)
for b in batches:
    obs(b)
    ema(b)
print("minmax", round(obs.min_val.item(), 4), round(obs.max_val.item(), 4))
print("ema", round(ema.min_val.item(), 4), round(ema.max_val.item(), 4))
for name, (qmin, qmax) in {"quint8": (0, 255), "qint8": (-128, 127), "reduce_range": (0, 127)}.items():
    s, z = calc_qparams(obs.min_val, obs.max_val, qmin, qmax)
    print(name, "affine", round(s.item(), 6), z.item())
s, z = calc_qparams(obs.min_val, obs.max_val, -128, 127, symmetric=True)
print("qint8 symmetric", round(s.item(), 6), z.item(), z.dtype)
s, z = calc_qparams(obs.min_val, obs.max_val, 0, 255, symmetric=True)
print("quint8 symmetric", round(s.item(), 6), z.item())

# per-channel (axis 0 of a linear weight)
W = torch.randn(6, 10) * torch.linspace(0.1, 2.0, 6).unsqueeze(1)
mn, mx = torch.aminmax(W, dim=1)
print("aminmax dim", type(torch.aminmax(W, dim=1)).__name__, mn.shape)
s, z = calc_qparams(mn, mx, -128, 127, symmetric=True)
print("per-channel scales", s.round(decimals=5).tolist())
print("amin/amax keepdim", W.amin(1, keepdim=True).shape, torch.equal(W.amax(dim=-1), mx))
# all-zero channel is guarded by eps
s0, z0 = calc_qparams(torch.zeros(2), torch.tensor([0.0, 1.0]), 0, 255)
print("zero channel", s0.tolist(), z0.tolist())

# histogram observer: pick the clipping threshold minimizing L2 error
data = torch.cat([torch.randn(4000), torch.tensor([12.0, -9.0])])
bins = 256
lo, hi = torch.aminmax(data)
hist = torch.histc(data, bins=bins, min=lo.item(), max=hi.item())
print("hist sum", hist.sum().item(), "dtype", hist.dtype, "nonzero bins", int((hist > 0).sum()))
edges = torch.linspace(lo.item(), hi.item(), bins + 1)
centers = (edges[:-1] + edges[1:]) / 2
best = None
for t in torch.linspace(1.0, 12.0, 45):
    s = t / 127
    q = torch.clamp(torch.round(centers / s), -128, 127) * s
    err = (hist * (q - centers) ** 2).sum() / hist.sum()
    if best is None or err < best[1]:
        best = (t.item(), err.item())
print("best clip", round(best[0], 4), "mse", round(best[1], 6))

# percentile calibration
for p in (0.99, 0.999, 0.9999):
    print(
        "percentile",
        p,
        round(torch.quantile(data.abs(), p).item(), 4),
        round(torch.kthvalue(data.abs(), int(p * data.numel())).values.item(), 4),
    )

# histc edge cases
print("histc auto range", torch.histc(torch.tensor([1.0, 2, 2, 4]), bins=3).tolist())
print("histc constant", torch.histc(torch.full((4,), 3.0), bins=4).tolist())
print("histc outside", torch.histc(torch.tensor([-1.0, 0.5, 2.0]), bins=2, min=0, max=1).tolist())
print("histc float64", torch.histc(torch.tensor([0.1, 0.9], dtype=torch.float64), bins=2, min=0, max=1).dtype)
for bad in (
    lambda: torch.histc(torch.arange(4), bins=2),
    lambda: torch.histc(torch.rand(4), bins=-1),
    lambda: torch.histc(torch.rand(4), bins=2, min=1, max=0),
    lambda: torch.aminmax(torch.empty(0)),
    lambda: torch.aminmax(torch.empty(2, 0), dim=1),
):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
print("aminmax empty dim0", [t.shape for t in torch.aminmax(torch.empty(0, 3), dim=1)])
print("aminmax int", torch.aminmax(torch.tensor([[3, -1], [7, 2]], dtype=torch.int8), dim=0, keepdim=True))
