"""Shifts and bitwise ops over every integer dtype as bit-manipulation code uses them: negative and
oversized shift amounts, shifts by tensors, scalar-first forms, in-place and out= casting, errors."""

import torch

dtypes = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
for dt in dtypes:
    x = torch.tensor([1, 3, -1 if dt.is_signed else 255, 64], dtype=dt)
    bits = torch.iinfo(dt).bits
    print(dt, "<<1", (x << 1).tolist(), ">>1", (x >> 1).tolist())
    print("  << bits-1", (x << (bits - 1)).tolist(), "<< bits", (x << bits).tolist(), "<< 100", (x << 100).tolist())
    print("  >> bits", (x >> bits).tolist(), ">> 200", (x >> 200).tolist())
    print("  << -1", (x << -1).tolist(), ">> -1", (x >> -1).tolist())
    amounts = torch.tensor([0, 1, bits, -2], dtype=dt)
    print("  by tensor", torch.bitwise_left_shift(x, amounts).tolist(), torch.bitwise_right_shift(x, amounts).tolist())
    print("  ~", (~x).tolist(), "^ -1", (x ^ -1).tolist(), "& 0x0F", (x & 0x0F).tolist(), "| 0x80", (x | 0x80).tolist())
    print("  dtype with int64", (x << torch.tensor([1])).dtype, (x & torch.tensor(1)).dtype, (1 << x[:2]).dtype)

print(
    "scalar first", (1 << torch.arange(5)).tolist(), (256 >> torch.arange(5)).tolist(), (5 ^ torch.arange(3)).tolist()
)
print("bitwise_left_shift scalar", torch.bitwise_left_shift(3, torch.tensor([1, 2], dtype=torch.int8)))
print(
    "bool ops",
    (torch.tensor([True, False]) ^ True).tolist(),
    (torch.tensor([True]) & torch.tensor([3])).tolist(),
    (~torch.tensor([True, False])).tolist(),
)
print("bool | int", (torch.tensor([True, False]) | torch.tensor([2, 4], dtype=torch.int8)).dtype)
print(
    "mixed int dtypes",
    (torch.tensor([1], dtype=torch.int8) | torch.tensor([256], dtype=torch.int16)).tolist(),
    (torch.tensor([1], dtype=torch.uint8) ^ torch.tensor([-1], dtype=torch.int8)).dtype,
)

y = torch.tensor([1, 2, 4], dtype=torch.int8)
y <<= 5
print("ilshift int8", y.tolist())
y >>= torch.tensor([1, 2, 8], dtype=torch.int8)
print("irshift", y.tolist())
z = torch.tensor([7], dtype=torch.int16)
z |= torch.tensor([8])
print("ior with int64 operand keeps int16", z.tolist(), z.dtype)
out = torch.empty(3, dtype=torch.int16)
torch.bitwise_and(torch.tensor([7, 8, 9]), torch.tensor([3]), out=out)
print("out int16", out.tolist())

for bad in [
    lambda: torch.tensor([1.0]) << 1,
    lambda: torch.tensor([1.0]) ^ torch.tensor([1.0]),
    lambda: ~torch.tensor([1.5]),
    lambda: torch.tensor([1]) & 1.5,
    lambda: torch.tensor([8]) >> 1.0,
    lambda: torch.bitwise_and(torch.tensor([7]), torch.tensor([3]), out=torch.empty(1)),
    lambda: torch.tensor([True]).__ior__(torch.tensor([3])),
    lambda: torch.tensor([1], dtype=torch.int8).__ixor__(torch.tensor([1.0])),
]:
    try:
        r = bad()
        print("ok", r.tolist(), r.dtype)
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)

h = torch.arange(8, dtype=torch.int32)
rotl = (h << 3) | ((h >> 29) & 0b111)
print("rotate left", rotl.tolist(), ((torch.tensor([-1, 2**31 - 1], dtype=torch.int32) << 1) | 1).tolist())
m = torch.tensor([0b1011, 0b1000000, 12])
print("bit set", ((m >> 3) & 1).bool().tolist(), "clear", (m & ~(1 << 3)).tolist(), "toggle", (m ^ 0b11).tolist())
print("bitwise_count" if hasattr(torch, "bitwise_count") else "no bitwise_count")
