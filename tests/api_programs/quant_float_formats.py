"""Reduced-precision float formats as mixed-precision and quantization code inspects them: finfo/iinfo for every
type, round-to-nearest-even bfloat16 by hand through int32 bit views, float8 (e4m3fn/e5m2) casts with saturation
and per-tensor scaling, subnormals, nextafter/frexp/ldexp and the printed reprs."""

import torch

torch.manual_seed(0)
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.float8_e4m3fn, torch.float8_e5m2):
    fi = torch.finfo(dt)
    print(str(dt).ljust(20), fi.bits, fi.eps, fi.max, fi.tiny, fi.smallest_normal, fi.resolution)
for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16):
    ii = torch.iinfo(dt)
    print(str(dt).ljust(14), ii.bits, ii.min, ii.max, ii.dtype)


def bf16_rne(x):
    """float32 -> bfloat16 bits with round-to-nearest-even, by integer arithmetic."""
    bits = x.view(torch.int32)
    lsb = (bits >> 16) & 1
    rounded = (bits + 0x7FFF + lsb) >> 16
    return (rounded << 16).view(torch.float32)


def bf16_trunc(x):
    return ((x.view(torch.int32) >> 16) << 16).view(torch.float32)


x = torch.tensor([1.0, 1.00390625, 1.01171875, 3.14159265, -2.7182818, 1e-3, 65504.0, 1e38])
print("rne == cast", torch.equal(bf16_rne(x), x.to(torch.bfloat16).float()))
print("trunc", bf16_trunc(x).tolist())
print("bf16", x.to(torch.bfloat16).tolist())
print("fp16", x.half().tolist())

# float8: saturating scaled cast as FP8 training recipes do
a = torch.randn(6) * 100
amax = a.abs().max()
for dt in (torch.float8_e4m3fn, torch.float8_e5m2):
    fmax = torch.finfo(dt).max
    s = fmax / amax
    q = (a * s).clamp(-fmax, fmax).to(dt)
    deq = q.float() / s
    print(dt, "rel err", round(((deq - a).abs() / a.abs()).max().item(), 4), q.float().tolist())
print("e4m3 overflow", torch.tensor([500.0, -1000.0, 449.0]).to(torch.float8_e4m3fn).float().tolist())
print("e5m2 overflow", torch.tensor([60000.0, 70000.0]).to(torch.float8_e5m2).float().tolist())
print("e4m3 tiny", torch.tensor([0.001953125, 0.0009765625, 0.0029296875]).to(torch.float8_e4m3fn).float().tolist())
print("fp8 repr", torch.tensor([0.5, -3.0]).to(torch.float8_e5m2))

# float16 overflow, subnormals, and ties
h = torch.tensor([65504.0, 65520.0, 65519.0, 6e-8, 2.9e-8, 3.0e-8, 1e-5], dtype=torch.float32).half()
print("fp16 edges", h.tolist())
print("isinf", torch.isinf(h).tolist(), "subnormal", ((h != 0) & (h.abs() < torch.finfo(torch.float16).tiny)).tolist())
print("fp16 ties", torch.tensor([2049.0, 2051.0, 2050.0]).half().tolist())

# ulps
one = torch.tensor(1.0)
for dt in (torch.float16, torch.bfloat16, torch.float32):
    o = one.to(dt)
    print(dt, "nextafter", (torch.nextafter(o, o * 2) - o).item(), "down", (o - torch.nextafter(o, o * 0)).item())
m, e = torch.frexp(torch.tensor([0.0, 1.0, -6.5, 1e-40, 3e38]))
print("frexp", m.tolist(), e.tolist(), e.dtype)
print("ldexp", torch.ldexp(m, e).tolist(), torch.ldexp(torch.tensor([1.0]), torch.tensor([-149])).tolist())
print("frexp half", [t.dtype for t in torch.frexp(torch.tensor([3.0], dtype=torch.float16))])
print(
    "signbit",
    torch.signbit(torch.tensor([-0.0, 0.0, -1.0])).tolist(),
    torch.copysign(torch.tensor([1.0, 2.0]), -0.0).tolist(),
)
print(
    "promote",
    torch.promote_types(torch.bfloat16, torch.float16),
    torch.result_type(torch.tensor([1], dtype=torch.int8), 1.5),
    torch.can_cast(torch.float16, torch.int8),
)
print(torch.tensor([1.0, 2.5], dtype=torch.bfloat16), torch.tensor([1e-7, 1.0], dtype=torch.float16))
try:
    torch.finfo(torch.int32)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.iinfo(torch.float32)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.frexp(torch.tensor([1, 2]))
except Exception as e:
    print(type(e).__name__, e)
