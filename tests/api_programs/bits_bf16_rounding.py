"""Rounding float32 to bfloat16 and float16 by hand through the bits, as mixed-precision and
low-precision optimizer code does: round-to-nearest-even, truncation, stochastic rounding with random
bits, and checks against PyTorch's own casts."""

import torch

torch.manual_seed(0)


def bf16_rne(x):
    """float32 -> bfloat16 bits with round-to-nearest-even; NaN kept quiet."""
    b = x.view(torch.int32)
    lsb = (b >> 16) & 1
    r = (b + 0x7FFF + lsb) >> 16
    r = torch.where(torch.isnan(x), torch.full_like(r, 0x7FC0), r)
    return r.to(torch.int16)


def bf16_trunc(x):
    return (x.view(torch.int32) >> 16).to(torch.int16)


def bf16_stochastic(x, gen):
    noise = torch.randint(0, 1 << 16, x.shape, generator=gen, dtype=torch.int32)
    return ((x.view(torch.int32) + noise) >> 16).to(torch.int16)


x = torch.tensor([1.0, 1.00390625, 1.005859375, 1.0078125, -2.71828, 3.14159, 1e-40, 3.4e38, float("inf"), -0.0])
ours = bf16_rne(x)
theirs = x.bfloat16().view(torch.int16)
print("rne bits", ours.tolist())
print("matches cast", torch.equal(ours, theirs), (ours != theirs).nonzero().flatten().tolist())
print("as values", ours.view(torch.bfloat16).float().tolist())
print("trunc", bf16_trunc(x).view(torch.bfloat16).float().tolist())

ties = torch.tensor([0x3F808000, 0x3F818000, 0x3F7F8000, 0x3F808001, 0x7F7FFFFF], dtype=torch.int32).view(torch.float32)
print("ties to even", bf16_rne(ties).tolist(), ties.bfloat16().view(torch.int16).tolist())
print("overflow to inf", ties[-1].bfloat16().item(), bf16_rne(ties[-1:]).view(torch.bfloat16).item())

g = torch.Generator().manual_seed(1)
v = torch.full((20000,), 1.0 + 2**-9)
sr = bf16_stochastic(v, g).view(torch.bfloat16).float()
print(
    "stochastic values",
    sorted(set(sr.tolist())),
    "mean",
    round(sr.double().mean().item(), 4),
    "rne",
    v.bfloat16().float()[0].item(),
)

h = torch.linspace(-3, 3, 13)
hb = h.half().view(torch.int16)
sign, exp, man = (hb >> 15) & 1, (hb >> 10) & 0x1F, hb & 0x3FF
rebuilt = (
    (1 - 2 * sign.float())
    * torch.where(exp > 0, 1 + man.float() / 1024, man.float() / 1024)
    * torch.pow(2.0, (exp.clamp(min=1) - 15).float())
)
print("half fields rebuild", torch.equal(rebuilt, h.half().float()))
print(
    "half ulp near 1", (torch.tensor([1.0], dtype=torch.float16).view(torch.int16) + 1).view(torch.float16).item() - 1
)
print("eps", torch.finfo(torch.float16).eps, torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float32).eps)
print(
    "tiny",
    torch.finfo(torch.float16).tiny,
    torch.finfo(torch.bfloat16).tiny,
    torch.finfo(torch.float16).smallest_normal,
)
print("max", torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).max, torch.finfo(torch.bfloat16).resolution)

acc16 = torch.zeros((), dtype=torch.bfloat16)
acc32 = torch.zeros(())
for _ in range(300):
    acc16 += torch.tensor(0.01, dtype=torch.bfloat16)
    acc32 += 0.01
print("bf16 accumulation stalls", acc16.item(), round(acc32.item(), 4))
kahan, comp = torch.zeros((), dtype=torch.bfloat16), torch.zeros((), dtype=torch.bfloat16)
for _ in range(300):
    y = torch.tensor(0.01, dtype=torch.bfloat16) - comp
    t = kahan + y
    comp = (t - kahan) - y
    kahan = t
print("kahan in bf16", kahan.item())
print(
    "sum of bf16 tensor",
    torch.full((300,), 0.01, dtype=torch.bfloat16).sum().item(),
    torch.full((300,), 0.01, dtype=torch.bfloat16).sum(dtype=torch.float32).item(),
)
print("half overflow", (torch.tensor([300.0], dtype=torch.float16) * 300).item(), torch.tensor([70000.0]).half().item())
print("bf16 int exactness", torch.tensor([255, 256, 257, 258]).bfloat16().long().tolist())
print("f16 int exactness", torch.tensor([2047, 2048, 2049, 2050]).half().long().tolist())
