"""Rounding as quantizers need it: torch.round half-to-even with decimals over dtypes, round-half-away and
round-half-up by hand, floor/ceil/trunc/fix, stochastic rounding to a grid and to bfloat16 through int32 bit views,
with the statistics showing its unbiasedness, and the rounding errors PyTorch refuses."""

import torch

torch.manual_seed(0)
h = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5])
print("round", torch.round(h).tolist())
print("half away", (torch.sign(h) * torch.floor(h.abs() + 0.5)).tolist())
print("half up", torch.floor(h + 0.5).tolist())
print("floor/ceil", torch.floor(h).tolist(), torch.ceil(h).tolist())
print("trunc/fix", torch.trunc(h).tolist(), torch.fix(h).tolist())
v = torch.tensor([1.23456, -9.87654, 1234.5678, 0.000151, 2.675])
for d in (0, 1, 2, 3, -1, -2):
    print("decimals", d, torch.round(v, decimals=d).tolist())
print("float64 decimals", torch.round(v.double(), decimals=2).tolist())
print("half decimals", torch.round(v.half(), decimals=1).tolist(), torch.round(v.half(), decimals=1).dtype)
print("bf16 round", torch.round(v.bfloat16()).tolist())
ints = torch.tensor([7, -3])
print("method", v.round(decimals=1).tolist(), ints.round().tolist(), ints.round().dtype)
out = torch.empty(5)
torch.round(v, decimals=2, out=out)
print("out=", out.tolist())
w = v.clone()
w.round_(decimals=1)
print("round_", w.tolist())


def stochastic_round(x, step, gen):
    lo = torch.floor(x / step)
    p = x / step - lo
    return (lo + (torch.rand(x.shape, generator=gen) < p).float()) * step


g = torch.Generator().manual_seed(123)
x = torch.full((20000,), 0.3)
sr = stochastic_round(x, 1.0, g)
print(
    "stochastic mean",
    round(sr.mean().item(), 2),
    "values",
    torch.unique(sr).tolist(),
    "nearest",
    torch.round(x[:1]).item(),
)
small = torch.full((4000,), 1e-3)
acc_n, acc_s = torch.zeros(()), torch.zeros(())
for i in range(0, 4000, 400):
    acc_n = torch.round((acc_n + small[i : i + 400].sum()) / 0.25) * 0.25
    acc_s = stochastic_round(acc_s + small[i : i + 400].sum(), 0.25, g)
print("accumulate 4.0 on a 0.25 grid: nearest", acc_n.item(), "stochastic", acc_s.item())


def bf16_stochastic(x, gen):
    bits = x.view(torch.int32)
    noise = torch.randint(0, 1 << 16, x.shape, generator=gen, dtype=torch.int32)
    return ((bits + noise) & -65536).view(torch.float32)


y = torch.full((10000,), 1.0 + 2**-9)
b = bf16_stochastic(y, g)
bias = (b.double().mean() - y.double().mean()).item()
print("bf16 SR levels", torch.unique(b).tolist(), "mean err", round(bias * 1e4, 2), "e-4")
print("bf16 RNE", torch.unique(y.to(torch.bfloat16).float()).tolist())
print("-65536 mask", hex(-65536 & 0xFFFFFFFF), (torch.tensor([0x3F80FFFF], dtype=torch.int32) & -65536).item())
for bad in (
    lambda: torch.round(torch.tensor([1, 2]), decimals=1),
    lambda: torch.round(torch.tensor([1.5]), decimals=1.5),
    lambda: torch.round(torch.tensor([1.5 + 1j])),
    lambda: torch.round(torch.tensor([1.0]), out=torch.empty(1, dtype=torch.long)),
    lambda: torch.floor(torch.tensor([1.5]), out=torch.empty(1, dtype=torch.float64)),
    lambda: torch.round(torch.tensor([1.25]), decimals=1, out=torch.empty(1, dtype=torch.float64)),
):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
