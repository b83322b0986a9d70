"""Neural-operator training infrastructure as the FNO reference repos write it: UnitGaussianNormalizer with encode/
decode, relative LpLoss with h-scaling, a TensorDataset/DataLoader of (a, u) pairs, a Darcy-like 1-D operator
trained with Adam + OneCycleLR, spectral dropout on the real view of the retained modes, count_params over complex
weights, checkpoint resume, and the mistakes such code meets (out= with grad, complex dropout, 1/0j)."""

import io
import math
from functools import reduce
import operator

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class UnitGaussianNormalizer:
    def __init__(self, x, eps=1e-5):
        self.mean = torch.mean(x, 0)
        self.std = torch.std(x, 0)
        self.eps = eps

    def encode(self, x):
        return (x - self.mean) / (self.std + self.eps)

    def decode(self, x):
        return x * (self.std + self.eps) + self.mean


class LpLoss:
    def __init__(self, d=1, p=2, size_average=True):
        self.d, self.p, self.size_average = d, p, size_average

    def abs(self, x, y):
        n = x.size(0)
        h = 1.0 / (x.size(1) - 1.0)
        norms = (h ** (self.d / self.p)) * torch.norm(x.view(n, -1) - y.view(n, -1), self.p, 1)
        return torch.mean(norms) if self.size_average else torch.sum(norms)

    def rel(self, x, y):
        n = x.size(0)
        diff = torch.norm(x.reshape(n, -1) - y.reshape(n, -1), self.p, 1)
        return torch.mean(diff / torch.norm(y.reshape(n, -1), self.p, 1))

    def __call__(self, x, y):
        return self.rel(x, y)


def count_params(model):
    return sum(reduce(operator.mul, list(p.size() + (2,) if p.is_complex() else p.size())) for p in model.parameters())


class SpectralBlock(nn.Module):
    def __init__(self, width, modes, p_drop=0.1):
        super().__init__()
        self.modes = modes
        self.w = nn.Parameter(torch.randn(width, width, modes, dtype=torch.cfloat) / width)
        self.skip = nn.Conv1d(width, width, 1)
        self.drop = nn.Dropout(p_drop)

    def forward(self, x):
        x_ft = torch.fft.rfft(x)[..., : self.modes]
        x_ft = torch.view_as_complex(self.drop(torch.view_as_real(x_ft)).contiguous())
        y_ft = torch.einsum("bix,iox->box", x_ft, self.w)
        return F.gelu(torch.fft.irfft(y_ft, n=x.size(-1)) + self.skip(x))


class Operator(nn.Module):
    def __init__(self, width=8, modes=6):
        super().__init__()
        self.lift = nn.Linear(2, width)
        self.blocks = nn.Sequential(SpectralBlock(width, modes), SpectralBlock(width, modes))
        self.proj = nn.Linear(width, 1)

    def forward(self, a):
        grid = torch.linspace(0, 1, a.size(1)).expand(a.size(0), -1)
        x = self.lift(torch.stack([a, grid], -1)).transpose(1, 2)
        return self.proj(self.blocks(x).transpose(1, 2)).squeeze(-1)


s = 32
xs = torch.linspace(0, 1, s)
coef = torch.rand(24, 3) * 2 - 1
a = sum(coef[:, k : k + 1] * torch.sin((k + 1) * math.pi * xs) for k in range(3)) + 1.5
u = torch.cumsum(1 / a, dim=1) / s
u = u - u.mean(1, keepdim=True)
a_norm, u_norm = UnitGaussianNormalizer(a[:16]), UnitGaussianNormalizer(u[:16])
train = TensorDataset(a_norm.encode(a[:16]), u_norm.encode(u[:16]))
test_a, test_u = a_norm.encode(a[16:]), u[16:]
print(
    "normalizer",
    round(a_norm.mean.mean().item(), 4),
    round(u_norm.std.mean().item(), 4),
    torch.allclose(u_norm.decode(u_norm.encode(u)), u, atol=1e-5),
)
loader = DataLoader(train, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(1))

model = Operator()
print("count_params", count_params(model), sum(p.numel() for p in model.parameters()))
opt = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=3 * len(loader))
lp = LpLoss(size_average=False)
for ep in range(3):
    model.train()
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        out = u_norm.decode(model(xb))
        loss = lp(out, u_norm.decode(yb))
        loss.backward()
        opt.step()
        sched.step()
        total += loss.item()
    model.eval()
    with torch.no_grad():
        test = lp(u_norm.decode(model(test_a)), test_u).item()
        abs_err = lp.abs(u_norm.decode(model(test_a)), test_u).item()
    print(
        "epoch", ep, round(total / len(loader), 4), round(test, 4), round(abs_err, 4), round(sched.get_last_lr()[0], 6)
    )

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
m2 = Operator()
m2.load_state_dict(ck["model"])
opt2 = torch.optim.Adam(m2.parameters(), lr=5e-3)
opt2.load_state_dict(ck["opt"])
st = opt2.state_dict()["state"][2]
print(
    "resume",
    ck["epoch"],
    st["exp_avg"].dtype,
    tuple(st["exp_avg"].shape),
    round(st["exp_avg_sq"].abs().sum().item(), 8) > 0,
)
m2.eval()
print("same eval", torch.allclose(m2(test_a), model(test_a)))

spec = torch.fft.rfft(test_a)
print("dropout eval complex", F.dropout(spec, 0.3, training=False) is spec, nn.Dropout(0.3).eval()(spec).dtype)
print("dropout p=1 complex", F.dropout(spec, 1.0).abs().sum().item())
for name, fn in [
    ("complex dropout", lambda: F.dropout(spec, 0.3)),
    ("int dropout", lambda: F.dropout(torch.arange(4), 0.5)),
    ("out with grad", lambda: torch.fft.rfft(test_a.requires_grad_(), out=torch.empty(0, dtype=torch.cfloat))),
    ("irfft out with grad", lambda: torch.fft.irfft(spec.requires_grad_(), out=torch.empty(0))),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, e)
test_a.requires_grad_(False)
print("1/0j", torch.reciprocal(torch.zeros(2, dtype=torch.cfloat)), torch.rsqrt(torch.tensor([0j, 4 + 0j])))
with torch.no_grad():
    out = torch.empty(0, dtype=torch.cfloat)
    torch.fft.rfft(test_a, out=out)
print("out no_grad", tuple(out.shape), out.dtype)
