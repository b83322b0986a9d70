"""RWKV-4 time mixing: token shift with nn.ZeroPad2d and torch.lerp, the WKV recurrence with a running maximum for
numerical stability (torch.maximum, exp), the naive quadratic form for comparison, channel mixing with squared ReLU,
and the state passed between chunks."""

import torch
import torch.nn as nn

torch.manual_seed(0)
B, T, C = 2, 7, 6


class TimeMix(nn.Module):
    def __init__(self, C):
        super().__init__()
        self.time_decay = nn.Parameter(torch.linspace(-2, 1, C))
        self.time_first = nn.Parameter(torch.full((C,), 0.3))
        self.time_mix_k = nn.Parameter(torch.rand(1, 1, C))
        self.time_mix_v = nn.Parameter(torch.rand(1, 1, C))
        self.time_mix_r = nn.Parameter(torch.rand(1, 1, C))
        self.time_shift = nn.ZeroPad2d((0, 0, 1, -1))
        self.key = nn.Linear(C, C, bias=False)
        self.value = nn.Linear(C, C, bias=False)
        self.receptance = nn.Linear(C, C, bias=False)
        self.output = nn.Linear(C, C, bias=False)

    def wkv(self, w, u, k, v, state=None):
        w = -torch.exp(w)
        B, T, C = k.shape
        if state is None:
            aa = torch.zeros(B, C)
            bb = torch.zeros(B, C)
            pp = torch.full((B, C), -1e38)
        else:
            aa, bb, pp = state
        out = []
        for t in range(T):
            kt, vt = k[:, t], v[:, t]
            ww = u + kt
            p = torch.maximum(pp, ww)
            e1, e2 = torch.exp(pp - p), torch.exp(ww - p)
            out.append((e1 * aa + e2 * vt) / (e1 * bb + e2))
            ww = pp + w
            p = torch.maximum(ww, kt)
            e1, e2 = torch.exp(ww - p), torch.exp(kt - p)
            aa, bb, pp = e1 * aa + e2 * vt, e1 * bb + e2, p
        return torch.stack(out, 1), (aa, bb, pp)

    def forward(self, x, state=None):
        xx = self.time_shift(x)
        xk = torch.lerp(xx, x, self.time_mix_k)
        xv = x * self.time_mix_v + xx * (1 - self.time_mix_v)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k, v, r = self.key(xk), self.value(xv), torch.sigmoid(self.receptance(xr))
        y, state = self.wkv(self.time_decay, self.time_first, k, v, state)
        return self.output(r * y), (k, v, state)


tm = TimeMix(C)
print(tm.time_shift)
x = torch.randn(B, T, C, requires_grad=True)
xx = tm.time_shift(x)
print("shift", tuple(xx.shape), xx[0, 0].abs().sum().item(), torch.equal(xx[:, 1:], x[:, :-1]))
y, (k, v, st) = tm(x)
print("y", tuple(y.shape), round(y.sum().item(), 4), y[0, -1].round(decimals=4).tolist())

# naive O(T^2) WKV
w = -torch.exp(tm.time_decay)
u = tm.time_first
naive = []
for t in range(T):
    i = torch.arange(t)
    wts = torch.exp((t - 1 - i).float()[:, None] * w + k[:, :t])
    num = (wts * v[:, :t]).sum(1) + torch.exp(u + k[:, t]) * v[:, t]
    den = wts.sum(1) + torch.exp(u + k[:, t])
    naive.append(num / den)
naive = torch.stack(naive, 1)
wkv, _ = tm.wkv(tm.time_decay, tm.time_first, k, v)
print("wkv==naive", torch.allclose(wkv, naive, atol=1e-5))

# chunked with carried state (token shift needs the last token too)
y1, (_, _, s1) = tm(x[:, :4])
xs = torch.cat([x[:, 3:4], x[:, 4:]], 1)
y2, _ = tm(xs, s1)
print("stateful", torch.allclose(torch.cat([y1, y2[:, 1:]], 1)[:, :4], y[:, :4], atol=1e-5))

# channel mix
key, value, recep = nn.Linear(C, 4 * C, bias=False), nn.Linear(4 * C, C, bias=False), nn.Linear(C, C, bias=False)
kk = torch.square(torch.relu(key(x)))
cm = torch.sigmoid(recep(x)) * value(kk)
print("channel mix", tuple(cm.shape), round(cm.abs().mean().item(), 4))
(y.sum() + cm.sum()).backward()
print(
    "grads",
    round(x.grad.abs().sum().item(), 4),
    round(tm.time_decay.grad.abs().sum().item(), 4),
    tm.time_first.grad.shape,
    tm.time_mix_k.grad.shape,
)

print(
    "lerp",
    torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor([0.0, 0.5, 2.0])).tolist(),
    torch.lerp(torch.zeros(2), torch.tensor([4.0, 8.0]), 0.25).tolist(),
)
a = torch.tensor([1.0, float("nan"), 3.0])
b = torch.tensor([2.0, 0.0, float("nan")])
print("maximum nan", torch.maximum(a, b).tolist(), torch.fmax(a, b).tolist(), torch.max(a, b).tolist())
print(nn.ZeroPad2d((0, 0, 1, -1))(torch.arange(6.0).view(1, 3, 2)).tolist())
print(nn.ZeroPad1d(2), nn.ConstantPad1d((1, 0), 0.5)(torch.ones(1, 2)).tolist())
try:
    torch.lerp(torch.zeros(3), torch.ones(3, dtype=torch.float64), 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.maximum(torch.zeros(3), torch.zeros(2))
except Exception as e:
    print(type(e).__name__, e)
