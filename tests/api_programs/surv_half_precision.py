"""Survival curves in reduced precision as mixed-precision training produces them: cumprod/cumsum/logcumsumexp of
float16 and bfloat16 hazards, autocast on CPU around a hazard head, int time arithmetic and dtype promotion rules."""

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(2)

h = torch.linspace(0.01, 0.2, 12)
for dt in (torch.float16, torch.bfloat16):
    hd = h.to(dt)
    s = torch.cumprod(1 - hd, 0)
    print(dt, s.dtype, s[-3:], torch.cumsum(hd, 0)[-1], torch.logcumsumexp(hd.log(), 0)[-1])
    print(torch.exp(-torch.cumsum(hd, 0))[-1], torch.log1p(-hd).sum(), torch.prod(1 - hd))
    print((1 - hd).log().cumsum(0, dtype=torch.float32)[-1], hd.sum(dtype=torch.float64).dtype)
    print(hd.mean(), hd.std(), hd.var(unbiased=False), hd.max(), hd.argmax(), hd.median())
big = torch.full((3000,), 0.001, dtype=torch.float16)
print("f16 long cumsum", big.cumsum(0)[-1], big.sum(), big.float().sum())
bb = torch.full((3000,), 0.001, dtype=torch.bfloat16)
print("bf16 long cumsum", bb.cumsum(0)[-1], bb.sum(), bb.mean())
print(torch.tensor([65504.0], dtype=torch.float16) * 2, torch.tensor([1e-8], dtype=torch.float16))
print(torch.tensor([3.0e38], dtype=torch.bfloat16) * 2, torch.tensor([1 / 3], dtype=torch.bfloat16).item())

head = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 6))
x = torch.randn(3, 4)
with torch.autocast("cpu", dtype=torch.bfloat16):
    logits = head(x)
    haz = torch.sigmoid(logits)
    surv = torch.cumprod(1 - haz, 1)
    lse = torch.logsumexp(logits, 1)
    ls = torch.log_softmax(logits, 1)
    cs = torch.cumsum(logits, 1)
print(logits.dtype, haz.dtype, surv.dtype, lse.dtype, ls.dtype, cs.dtype)
print(surv.float().round(decimals=2))
loss = -surv.float().log().mean()
loss.backward()
print(head[0].weight.grad.dtype, head[0].weight.grad.shape)

# integer durations mixed with floats
t = torch.tensor([3, 7, 7, 12], dtype=torch.int32)
t64 = torch.tensor([3, 7], dtype=torch.int64)
print((t / 2).dtype, (t // 2).dtype, (t * 0.5).dtype, (t + t64[0]).dtype, (t + torch.tensor(1.5)).dtype)
print((t.to(torch.int16) + torch.tensor(1, dtype=torch.int8)).dtype, (t + torch.tensor([1], dtype=torch.int8)).dtype)
print((t.half() + 1.5).dtype, (t + torch.tensor(1.5, dtype=torch.float16)).dtype, (t.bfloat16() * t.half()).dtype)
print(torch.tensor([1, 2], dtype=torch.uint8) - 3, torch.tensor([250], dtype=torch.uint8) + 10)
print(
    torch.tensor([7], dtype=torch.int32) // -2,
    torch.tensor([7], dtype=torch.int32) % -2,
    torch.fmod(torch.tensor([-7]), 2),
)
print(
    torch.div(t, 5, rounding_mode="floor"),
    torch.div(t, 5, rounding_mode="trunc"),
    torch.div(-t, 5, rounding_mode="floor"),
)
print(
    torch.floor_divide(t.float(), 5),
    torch.remainder(-t, 5),
    t.float().div(0),
    (-t).div(0),
    t.div(0, rounding_mode="floor") if False else "",
)
try:
    torch.div(t, 0, rounding_mode="floor")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    t // 0
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.true_divide(t, t), torch.tensor(5) / torch.tensor(2), torch.tensor(5) // torch.tensor(2.0))
print(
    torch.result_type(t, 1.0),
    torch.result_type(t, torch.tensor(1.0, dtype=torch.float64)),
    torch.promote_types(torch.int32, torch.float16),
)
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16))
try:
    t.add_(0.5)
except RuntimeError as e:
    print(type(e).__name__, e)
tt = t.clone()
tt += torch.tensor(2, dtype=torch.int64)
print(tt, tt.dtype)
print(h.half().cumprod(0).dtype, torch.cumprod(t, 0), torch.cumprod(t, 0, dtype=torch.float64))
print(torch.cumsum(torch.tensor([True, True, False]), 0), torch.tensor([1, 2]).cumsum(0, dtype=torch.int8).dtype)
