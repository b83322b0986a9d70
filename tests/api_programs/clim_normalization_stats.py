"""Per-variable normalisation of ERA5-like fields: means/stds over (time, lat, lon) with keepdim, std_mean/var_mean
with corrections, streaming Welford statistics in float64, residual (tendency) stds, buffers, and saved stats."""

import io
import warnings

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)
T, V, H, W = 6, 4, 5, 8
scales = torch.tensor([1.0, 10.0, 1000.0, 0.01])
offsets = torch.tensor([273.0, 0.0, 50000.0, 0.0])
x = torch.randn(T, V, H, W) * scales.view(1, V, 1, 1) + offsets.view(1, V, 1, 1)
mean = x.mean(dim=(0, 2, 3), keepdim=True)
std = x.std(dim=(0, 2, 3), keepdim=True)
print("mean", mean.shape, mean.flatten())
print("std", std.flatten(), x.std(dim=(0, 2, 3), unbiased=False).flatten())
s, m = torch.std_mean(x, dim=(0, 2, 3), correction=0)
v, m2 = torch.var_mean(x, dim=(0, 2, 3), keepdim=True)
print("std_mean", s, torch.equal(m, m2.flatten()), v.shape)
print("float64 stats", x.double().std(dim=(0, 2, 3)), x.double().mean(dim=(0, 2, 3)).dtype)
xn = (x - mean) / std
print("normed", xn.mean(dim=(0, 2, 3)).abs().max() < 1e-5, xn.std(dim=(0, 2, 3)))
tend = x[1:] - x[:-1]
print("tendency std", tend.std(dim=(0, 2, 3)).shape, (tend.std(dim=(0, 2, 3)) / std.flatten()).round(decimals=2))
ch_first = x.permute(1, 0, 2, 3).reshape(V, -1)
print("flat stats", torch.allclose(ch_first.mean(1), mean.flatten()), ch_first.is_contiguous(), ch_first.shape)


class Welford:
    def __init__(self, n_vars):
        self.n = 0
        self.mean = torch.zeros(n_vars, dtype=torch.float64)
        self.m2 = torch.zeros(n_vars, dtype=torch.float64)

    def update(self, batch):
        b = batch.double().transpose(0, 1).reshape(batch.shape[1], -1)
        nb = b.shape[1]
        bm = b.mean(1)
        bv = b.var(1, unbiased=False) * nb
        delta = bm - self.mean
        tot = self.n + nb
        self.mean += delta * nb / tot
        self.m2 += bv + delta.pow(2) * self.n * nb / tot
        self.n = tot

    def std(self):
        return (self.m2 / (self.n - 1)).sqrt()


wf = Welford(V)
for chunk in x.split(2, dim=0):
    wf.update(chunk)
print("welford", wf.n, torch.allclose(wf.mean.float(), mean.flatten()), torch.allclose(wf.std().float(), std.flatten()))


class Normalizer(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean.view(1, -1, 1, 1))
        self.register_buffer("std", std.view(1, -1, 1, 1))
        self.register_buffer("count", torch.tensor(0), persistent=False)

    def forward(self, x):
        return (x - self.mean) / self.std

    def inverse(self, x):
        return x * self.std + self.mean


norm = Normalizer(mean.flatten(), std.flatten())
print(norm, list(norm.state_dict().keys()), [n for n, _ in norm.named_buffers()])
buf = io.BytesIO()
torch.save(norm.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
norm2 = Normalizer(torch.zeros(V), torch.ones(V))
print(norm2.load_state_dict(sd))
print("roundtrip", torch.allclose(norm2.inverse(norm2(x)), x, rtol=1e-5), norm2.mean.dtype)
norm2.double()
print("double", norm2.std.dtype, norm2.count.dtype, norm2(x.double()).dtype)
print("half", norm.half().mean.dtype, norm.float().mean.dtype)

# degenerate statistics
c = torch.full((3, 4), 2.0)
print("const std", c.std(dim=0), (c - c.mean(0)) / c.std(0))
print("eps", (c - c.mean(0)) / (c.std(0) + 1e-6))
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    one = torch.ones(1, 3).std(dim=0)
    one_m = torch.std_mean(torch.ones(1, 3), dim=0)
print("single sample", one, one_m[0], [str(w.message) for w in ws])
print("empty var", torch.empty(0, 2).var(dim=0), torch.empty(0, 2).mean(dim=0))
print("nan std", torch.tensor([1.0, float("nan"), 3.0]).std(), torch.tensor([1.0, float("inf")]).std())
print("int stats", torch.arange(6).float().var(), torch.arange(6, dtype=torch.float16).std())
try:
    torch.arange(6).std()
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    x.std(dim=(0, 2, 3), correction=1, unbiased=True)
except TypeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    x.mean(dim=4)
except IndexError as e:
    print(type(e).__name__, e)
try:
    norm2.load_state_dict({"mean": torch.zeros(1, V, 1, 1)})
except RuntimeError as e:
    print(type(e).__name__, e)
