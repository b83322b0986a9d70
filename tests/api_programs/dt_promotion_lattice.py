"""Type promotion as library code meets it: result_type, promote_types, can_cast, scalars vs 0-dim vs dimensioned."""

import torch

DTS = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
       torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
SHORT = dict(zip(DTS, ["b", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "c64", "c128"]))

print("promote_types table")
for a in DTS:
    row = [SHORT[torch.promote_types(a, b)] for b in DTS]
    print(f"{SHORT[a]:>5}", " ".join(f"{r:>5}" for r in row))

print("can_cast table (row -> col)")
for a in DTS:
    print(f"{SHORT[a]:>5}", "".join("1" if torch.can_cast(a, b) else "." for b in DTS))

# result_type with tensors and scalars of each category
i8 = torch.tensor([1, 2], dtype=torch.int8)
u8 = torch.tensor([1, 2], dtype=torch.uint8)
f16 = torch.tensor([1.0, 2.0], dtype=torch.float16)
b = torch.tensor([True, False])
print("result_type i8,5", torch.result_type(i8, 5))
print("result_type i8,5.0", torch.result_type(i8, 5.0))
print("result_type i8,1j", torch.result_type(i8, 1j))
print("result_type u8,i8", torch.result_type(u8, i8))
print("result_type f16,2.5", torch.result_type(f16, 2.5))
print("result_type f16,1j", torch.result_type(f16, 1j))
print("result_type b,True", torch.result_type(b, True))
print("result_type b,3", torch.result_type(b, 3))
print("result_type 2,3.0", torch.result_type(2, 3.0))
print("result_type scalar pair", torch.result_type(True, 2), torch.result_type(1.0, 2j))

# 0-dim tensors count as scalars unless they are of a higher category
z64 = torch.tensor(3.0, dtype=torch.float64)
zi64 = torch.tensor(3)
zc = torch.tensor(1 + 1j)
print("0-dim f64 + f16", (z64 + f16).dtype, (f16 * z64).dtype)
print("0-dim i64 + i8", (zi64 + i8).dtype, (i8 - zi64).dtype)
print("0-dim f64 + i8", (z64 + i8).dtype)
print("0-dim c + f16", (zc + f16).dtype, (zc * i8).dtype)
print("0-dim pair", (z64 + zi64).dtype, (zi64 + torch.tensor(True)).dtype)
print("1-elem not 0-dim", (torch.tensor([3.0], dtype=torch.float64) + f16).dtype)

# bool arithmetic
print("bool + bool", b + b, (b + b).dtype)
print("bool * 2", b * 2, (b * 2).dtype)
print("bool * 2.5", b * 2.5)
print("bool sum", b.sum(), b.sum().dtype, torch.tensor([True, True, True]).sum().item())
print("bool mean err")
try:
    b.mean()
except RuntimeError as e:
    print(" ", type(e).__name__, e)
try:
    print("bool - bool", b - b)
except RuntimeError as e:
    print("bool - bool", type(e).__name__, e)
try:
    print("neg bool", -b)
except RuntimeError as e:
    print("neg bool", type(e).__name__, e)

# uint8 with int8
print("u8 + i8", u8 + i8, (u8 + i8).dtype)
print("u8 - 3 (wraps)", u8 - 3)
print("u8 * -1", (u8 * -1), (u8 * -1).dtype)

# complex promotion
c64 = torch.tensor([1 + 2j], dtype=torch.complex64)
print("c64 + f64", (c64 + torch.tensor([1.0], dtype=torch.float64)).dtype)
print("c64 + 0-dim f64", (c64 + z64).dtype)
print("f64 + 1j", (torch.tensor([1.0], dtype=torch.float64) + 1j).dtype)
print("c32 from half", (f16 + 1j).dtype)
print("c64 abs", c64.abs().dtype, c64.real.dtype, c64.angle().dtype)

# comparisons return bool regardless of promotion
print("cmp", (i8 < 1.5), (u8 == i8), (f16 > z64).dtype)
print("where promotion", torch.where(b, i8, 2.5).dtype, torch.where(b, u8, i8).dtype,
      torch.where(b, 1, 0).dtype, torch.where(b, 1.0, 0).dtype)
print("cat promotion", torch.cat([i8, u8]).dtype, torch.cat([i8, f16]).dtype, torch.cat([b, i8]).dtype)
print("stack promotion", torch.stack([f16, torch.tensor([1.0, 2.0], dtype=torch.bfloat16)]).dtype)
print("f16 + bf16", (f16 + torch.tensor([1.0, 2.0], dtype=torch.bfloat16)).dtype)
