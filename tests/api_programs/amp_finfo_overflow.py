"""The limits of the reduced-precision dtypes as numerics code probes them: every torch.finfo field for float16,
bfloat16, float32 and float64 (and their reprs), torch.iinfo for the integer types, float16 overflow to inf and
bfloat16's float32-sized range, gradual underflow through the subnormals down to zero, rounding to nearest even
at the spacing boundaries, eps-based comparisons, nextafter, and the inf/nan checks a loss-scaling loop relies on."""

import math

import torch

torch.set_printoptions(precision=4)

for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    fi = torch.finfo(dt)
    print(dt, "bits", fi.bits, "eps", fi.eps, "max", fi.max, "min", fi.min)
    print("   tiny", fi.tiny, "smallest_normal", fi.smallest_normal, "resolution", fi.resolution, "dtype", fi.dtype)
print(repr(torch.finfo(torch.float16)))
print(repr(torch.finfo(torch.bfloat16)))
print("default finfo:", torch.finfo().dtype, torch.finfo() == torch.finfo(torch.float32))
for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
    ii = torch.iinfo(dt)
    print(dt, "bits", ii.bits, "min", ii.min, "max", ii.max, "dtype", ii.dtype)
print(repr(torch.iinfo(torch.int16)))
for bad in (lambda: torch.finfo(torch.int32), lambda: torch.iinfo(torch.float16)):
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)

# overflow: float16 saturates at 65504, bfloat16 keeps float32's exponent range
big = torch.tensor([60000.0, 65504.0, 65519.0, 65520.0, 1e5, 3e38, 3.4e38])
print("f16:", big.half())
print("bf16:", big.bfloat16())
h = torch.tensor([300.0], dtype=torch.float16)
print("300^2 f16:", h * h, "in f32:", h.float() * h.float(), "bf16:", h.bfloat16() * h.bfloat16())
print("exp(12) f16:", torch.exp(torch.tensor([11.0, 12.0], dtype=torch.float16)))
print("sum overflows?", torch.full((4,), 30000.0, dtype=torch.float16).sum(),
      torch.full((4,), 30000.0, dtype=torch.float16).float().sum())
print("inf - inf:", (h * h) - (h * h), "isfinite:", torch.isfinite(h * h), "isinf:", torch.isinf(h * h))

# underflow: float16 subnormals reach 2**-24; bfloat16 2**-133
for k in (14, 15, 20, 24, 25, 26):
    v = 2.0 ** -k
    print(f"2**-{k}: f16 {torch.tensor(v).half().item()!r:>24} bf16 {torch.tensor(v).bfloat16().item()!r}")
sub = torch.tensor([6.0e-5, 6.1e-5, 3e-8, 2.98e-8, 1e-8], dtype=torch.float16)
print("f16 near the bottom:", sub.tolist())
print("is subnormal:", [(abs(x) < torch.finfo(torch.float16).tiny) and x != 0 for x in sub.tolist()])
for k in (126, 127, 130, 133, 134):
    print(f"bf16 2**-{k}:", torch.tensor(2.0 ** -k).bfloat16().item(), torch.tensor(2.0 ** -k).item())
grad = torch.tensor([1e-3, 1e-5, 1e-7, 1e-9])
print("small grads f16:", grad.half())
print("scaled by 1024 then f16 and back:", (grad * 1024).half().float() / 1024)

# rounding to nearest even at the spacing boundaries
ones = torch.tensor([1.0, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 1.0 + 2 ** -10, 2048.0, 2049.0, 2051.0])
print("f16 ties:", ones.half().tolist())
bones = torch.tensor([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 256.0, 257.0, 259.0])
print("bf16 ties:", bones.bfloat16().tolist())
print("1 + eps/2 == 1:", (torch.tensor(1.0, dtype=torch.float16) + torch.finfo(torch.float16).eps / 2).item(),
      (torch.tensor(1.0, dtype=torch.bfloat16) + torch.finfo(torch.bfloat16).eps).item())
print("integers beyond 2048 in f16:", torch.arange(2045, 2054, dtype=torch.float32).half().tolist())
print("integers beyond 256 in bf16:", torch.arange(253, 262, dtype=torch.float32).bfloat16().tolist())

# spacing, nextafter and eps comparisons
one16 = torch.tensor([1.0, 1000.0, 60000.0], dtype=torch.float16)
print("nextafter f16:", torch.nextafter(one16, torch.full_like(one16, math.inf)).tolist())
print("nextafter bf16:", torch.nextafter(one16.bfloat16(), torch.zeros(3, dtype=torch.bfloat16)).tolist())
a = torch.tensor([0.1, 0.2, 0.3])
print("0.1+0.2==0.3:", (a[0] + a[1] == a[2]).item(), ((a.half()[0] + a.half()[1]) == a.half()[2]).item(),
      ((a.bfloat16()[0] + a.bfloat16()[1]) == a.bfloat16()[2]).item())
for dt in (torch.float16, torch.bfloat16):
    x, y = torch.tensor(1.0, dtype=dt), torch.tensor(1.0 + 1e-3, dtype=dt)
    print(dt, "isclose", torch.isclose(x, y).item(),
          "rtol=eps", torch.isclose(x, y, rtol=torch.finfo(dt).eps, atol=0).item(),
          "allclose", torch.allclose(x, y, atol=1e-2))

# the checks a hand-written loss scaler makes
grads = [torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([float("inf"), 1.0], dtype=torch.float16),
         torch.tensor([float("nan")], dtype=torch.bfloat16)]
for g in grads:
    print("finite?", torch.isfinite(g).all().item(), "sum finite?", math.isfinite(g.float().sum().item()),
          "nan?", torch.isnan(g).any().item(), "nan_to_num:", torch.nan_to_num(g))
print("nan_to_num f16 limits:", torch.nan_to_num(torch.tensor([math.inf, -math.inf, math.nan], dtype=torch.float16)))
print("nan_to_num bf16 limits:", torch.nan_to_num(torch.tensor([math.inf, -math.inf], dtype=torch.bfloat16)))
print("clamp to finfo:", torch.tensor([1e6, -1e6]).clamp(torch.finfo(torch.float16).min,
                                                          torch.finfo(torch.float16).max).half())
