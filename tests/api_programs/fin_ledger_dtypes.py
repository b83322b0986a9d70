"""Money arithmetic as trading and accounting systems do it in tensors: prices in int64 cents and ticks, integer
division and remainder with rounding modes, banker's rounding with round(decimals=), float32 accumulation drift
against float64 and Kahan-style sums, basis-point conversions, fee schedules by bucketize, cumulative positions
with cumsum on int32, overflow-prone products caught by an int64 upgrade, and the printed reprs of money tensors."""

import torch

torch.set_printoptions(precision=2, sci_mode=False)
px_cents = torch.tensor([10012, 10013, 9999, 10050, 10001], dtype=torch.int64)
qty = torch.tensor([100, -50, 200, -250, 30], dtype=torch.int32)
print(px_cents, qty.dtype)
notional = px_cents * qty
print("notional", notional.tolist(), notional.dtype)
pos = torch.cumsum(qty, 0)
print("position", pos.tolist(), pos.dtype, torch.cumsum(qty, 0, dtype=torch.int16).dtype)
cash = -torch.cumsum(notional, 0)
print("cash", cash.tolist())

tick = 5
print("floor ticks", torch.div(px_cents, tick, rounding_mode="floor").tolist())
print(
    "trunc negative",
    torch.div(-px_cents, tick, rounding_mode="trunc").tolist()[:2],
    torch.div(-px_cents, tick, rounding_mode="floor").tolist()[:2],
)
print("true div", torch.div(px_cents, tick).dtype, (px_cents / tick)[:2].tolist())
print("remainder", torch.remainder(-px_cents, tick).tolist(), torch.fmod(-px_cents, tick).tolist())
snapped = px_cents - torch.remainder(px_cents, tick)
print("snapped", snapped.tolist(), (px_cents // tick * tick).equal(snapped))

dollars = px_cents.double() / 100
print("dollars", dollars)
half = torch.tensor([0.125, 0.135, 2.5, 3.5, -2.5, 1.005], dtype=torch.float64)
print("round half even", torch.round(half, decimals=2).tolist(), torch.round(half).tolist())
print("round float32", torch.round(half.float(), decimals=1).tolist())
print("ceil/floor cents", torch.ceil(half * 100).tolist(), torch.floor(half * 100).long().tolist())

small = torch.full((100000,), 0.01, dtype=torch.float32)
acc = torch.zeros((), dtype=torch.float32)
s, c = 0.0, 0.0
for v in small[:1000].tolist():
    y = v - c
    t = s + y
    c = (t - s) - y
    s = t
print("sum float32", round(small.sum().item(), 2), "float64", round(small.double().sum().item(), 2))
print("cumsum drift", round((small.cumsum(0)[-1] - 1000).abs().item(), 2) < 1.0, "kahan", round(s, 10))
print("sum dtype arg", small.sum(dtype=torch.float64).dtype, round(small.sum(dtype=torch.float64).item(), 4))

bps = torch.tensor([1.5, 2.0, 0.25], dtype=torch.float64)
fees = notional.abs()[:3].double() * bps / 1e4
print("fees", fees.round(decimals=4).tolist())
tiers = torch.tensor([1_000_000, 5_000_000, 20_000_000])
monthly = torch.tensor([500_000, 1_000_000, 7_500_000, 30_000_000])
rate_bps = torch.tensor([3.0, 2.5, 2.0, 1.0])[torch.bucketize(monthly, tiers, right=True)]
print("tier rates", rate_bps.tolist())

big = torch.tensor([2_000_000_000], dtype=torch.int32)
print("int32 overflow wraps", (big * 2).tolist(), (big.long() * 2).tolist())
print("iinfo", torch.iinfo(torch.int64).max, torch.iinfo(torch.int32).min)
print("promotion", (qty * 1.5).dtype, (qty * px_cents).dtype, (qty + torch.tensor(1, dtype=torch.int64)).dtype)
print("mixed", torch.tensor([1, 2], dtype=torch.int32) // torch.tensor([2], dtype=torch.int64))
print(torch.tensor([[1234567.891, 0.5], [-12.345, 100.0]], dtype=torch.float64))
print(torch.tensor([1e-5, 1.0]))
torch.set_printoptions(profile="default")
print(torch.tensor([1e-5, 1.0]))
print(torch.tensor([10012, -5], dtype=torch.int64))
for bad in [
    lambda: torch.div(px_cents, tick, rounding_mode="round"),
    lambda: px_cents // 0,
    lambda: torch.remainder(px_cents, 0),
    lambda: qty.add_(1.5),
    lambda: torch.cumsum(qty, 0, dtype=torch.float32).dtype,
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
