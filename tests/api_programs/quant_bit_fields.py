"""Bit-level tools of low-precision numerics code: float32/float16/bfloat16 sign, exponent and mantissa fields
through integer views and masks, rebuilding floats from fields, shared-exponent block floating point (MX-style)
with frexp and shifts, sign-magnitude int4 to two's complement, popcount by a lookup table, Gray codes, and the
wrap-around rules of shifts and uint8 arithmetic with Python scalars."""

import torch

torch.manual_seed(0)
x = torch.tensor([1.0, -2.5, 0.15625, 3.0e-39, float("inf"), -0.0, 65504.0])
bits = x.view(torch.int32)
sign = (bits >> 31) & 1
exp = (bits >> 23) & 0xFF
man = bits & 0x7FFFFF
print("sign", sign.tolist())
print("exponent", exp.tolist(), "unbiased", (exp - 127).tolist())
print("mantissa", man.tolist())
rebuilt = ((sign << 31) | (exp << 23) | man).view(torch.float32)
print("rebuilt", torch.equal(rebuilt, x), "subnormal", ((exp == 0) & (man != 0)).tolist())
h = x.half().view(torch.int16).to(torch.int32) & 0xFFFF
print("fp16 fields", (h >> 15).tolist(), ((h >> 10) & 0x1F).tolist(), (h & 0x3FF).tolist())
b = x.bfloat16().view(torch.int16).to(torch.int32) & 0xFFFF
top = (bits >> 16) & 0xFFFF
print("bf16 == top half of fp32", torch.equal(b, top), "(rounding)", top.tolist()[:3], b.tolist()[:3])

# shared-exponent blocks: 8 values, one 8-bit exponent, 4-bit signed mantissas
v = torch.randn(4, 8) * torch.tensor([[1.0], [10.0], [0.01], [1000.0]])
_, e = torch.frexp(v.abs().amax(dim=1, keepdim=True))
shared = e - 1  # so max |v| / 2**shared is in [1, 2)
m = torch.clamp(torch.round(torch.ldexp(v, (2 - shared).expand_as(v).to(torch.int32))), -7, 7)
deq = torch.ldexp(m, (shared - 2).expand_as(m).to(torch.int32))
print("shared exps", shared.flatten().tolist(), "mantissas row0", m[0].int().tolist())
print("block rel err", ((deq - v).norm(dim=1) / v.norm(dim=1)).round(decimals=3).tolist())

# sign-magnitude int4 (bit 3 sign) to two's complement
sm = torch.arange(16, dtype=torch.uint8)
mag = (sm & 7).to(torch.int8)
tc = torch.where((sm & 8) != 0, -mag, mag)
print("sign-magnitude", tc.tolist())

lut = torch.tensor([bin(i).count("1") for i in range(256)], dtype=torch.uint8)
data = torch.randint(0, 256, (6,), dtype=torch.uint8)
pc = lut[data.long()]
pc_shift = sum(((data >> i) & 1) for i in range(8))
print("popcount", data.tolist(), pc.tolist(), torch.equal(pc, pc_shift))
g = torch.arange(8)
gray = g ^ (g >> 1)
back = gray.clone()
for s in (1, 2, 4):
    back = back ^ (back >> s)
print("gray", gray.tolist(), "decoded", torch.equal(back, g))

u = torch.tensor([1, 2, 200], dtype=torch.uint8)
print("300 >> u", (300 >> u).tolist(), "u >> 300", (u >> 300).tolist(), "u << 9", (u << 9).tolist())
print("u + 300", (u + 300).tolist(), "u * 2", (u * 2).tolist(), "u - 3", (u - 3).tolist())
print(
    "signed >> -1",
    (torch.tensor([-8, 8]) >> torch.tensor([-1, -1])).tolist(),
    "int8 >> 200",
    (torch.tensor([-100, 100], dtype=torch.int8) >> 200).tolist(),
)
print("fn form", torch.bitwise_right_shift(300, u).tolist(), torch.bitwise_left_shift(3, torch.tensor([1, 2])).tolist())
print("int64 edge", (torch.tensor([1]) << 63).tolist(), (torch.tensor([-(2**63)]) >> 63).tolist())
for bad in (
    lambda: torch.tensor([1.0]).view(torch.int16)[0] << 1.5,
    lambda: torch.tensor([True]) >> 1,
    lambda: torch.tensor([1, 2], dtype=torch.uint16) << 1,
):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
