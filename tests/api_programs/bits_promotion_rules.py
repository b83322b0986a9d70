"""Type promotion of integer code as users trip over it: Python scalars vs 0-dim vs n-dim tensors,
true_divide always floating, result_type/can_cast/promote_types, and in-place ops that cannot cast."""

import torch

i8 = torch.tensor([1, 2], dtype=torch.int8)
u8 = torch.tensor([1, 2], dtype=torch.uint8)
i32 = torch.tensor([1, 2], dtype=torch.int32)
b = torch.tensor([True, False])
h = torch.tensor([1.0, 2.0], dtype=torch.float16)

cases = {
    "i8 + 1": lambda: i8 + 1,
    "i8 + 1000": lambda: i8 + 1000,
    "i8 + 1.0": lambda: i8 + 1.0,
    "i8 + True": lambda: i8 + True,
    "i8 + 1j": lambda: i8 + 1j,
    "i8 + 0-dim i64": lambda: i8 + torch.tensor(5),
    "i8 + 0-dim f64": lambda: i8 + torch.tensor(5.0, dtype=torch.float64),
    "i8 + 1-d i64": lambda: i8 + torch.tensor([5]),
    "u8 + i8": lambda: u8 + i8,
    "u8 - 2": lambda: u8 - 2,
    "u8 + -1": lambda: u8 + -1,
    "u8 * i32": lambda: u8 * i32,
    "b + b": lambda: b + b,
    "b * 2": lambda: b * 2,
    "b + 0.5": lambda: b + 0.5,
    "b & u8": lambda: b & u8,
    "i32 / 2": lambda: i32 / 2,
    "i32 / i32": lambda: i32 / i32,
    "i32 // 2": lambda: i32 // 2,
    "i32 % 2.0": lambda: i32 % 2.0,
    "h + i32": lambda: h + i32,
    "h + 0-dim f32": lambda: h + torch.tensor(1.0),
    "h + 1-d f32": lambda: h + torch.tensor([1.0]),
    "h * 1e5": lambda: h * 1e5,
    "bf16 + h": lambda: torch.tensor([1.0], dtype=torch.bfloat16) + h,
    "i8 ** 2": lambda: i8**2,
    "i8 ** 2.0": lambda: i8**2.0,
    "2 ** i8": lambda: 2**i8,
    "2.0 ** i8": lambda: 2.0**i8,
    "i8 < 1.5": lambda: i8 < 1.5,
    "i8 == 1000": lambda: i8 == 1000,
    "max(i8, f)": lambda: torch.maximum(i8, h),
    "where i8/f": lambda: torch.where(b, i8, h),
    "cat i8 u8": lambda: torch.cat([i8, u8]),
    "cat b f": lambda: torch.cat([b, h]),
    "stack i8 i64": lambda: torch.stack([i8, torch.tensor([3, 4])]),
    "i8.sum": lambda: i8.sum(),
    "b.sum": lambda: b.sum(),
    "u8.prod": lambda: u8.prod(),
    "i8.cumsum": lambda: i8.cumsum(0),
    "h.sum": lambda: h.sum(),
    "i32.mean(f64)": lambda: i32.mean(dtype=torch.float64),
    "addcdiv int": lambda: torch.addcdiv(i32.float(), i32, i32),
    "lerp f16": lambda: torch.lerp(h, h, 0.5),
}
for name, fn in cases.items():
    try:
        r = fn()
        print(f"{name:<16}", r.dtype, r.tolist())
    except RuntimeError as e:
        print(f"{name:<16}", type(e).__name__, e)

print(
    torch.result_type(i8, 1),
    torch.result_type(i8, 1.0),
    torch.result_type(torch.tensor(1), i8),
    torch.result_type(2, 3.0),
    torch.result_type(u8, torch.tensor(-1, dtype=torch.int8)),
)
print(
    torch.promote_types(torch.uint8, torch.int8),
    torch.promote_types(torch.bool, torch.int8),
    torch.promote_types(torch.int64, torch.float16),
    torch.promote_types(torch.bfloat16, torch.float16),
)
print(
    torch.can_cast(torch.int64, torch.int8),
    torch.can_cast(torch.float32, torch.int32),
    torch.can_cast(torch.int32, torch.float16),
    torch.can_cast(torch.bool, torch.uint8),
    torch.can_cast(torch.int8, torch.bool),
)

for name, fn in {
    "i8 += 1.5": lambda: i8.clone().add_(1.5),
    "i8 += 1000": lambda: i8.clone().add_(1000),
    "i8 += i32": lambda: i8.clone().add_(i32),
    "i8 /= 2": lambda: i8.clone().div_(2),
    "i8 //= 2": lambda: i8.clone().floor_divide_(2),
    "b += 1": lambda: b.clone().add_(1),
    "b |= True": lambda: b.clone().bitwise_or_(True),
    "u8 -= 3": lambda: u8.clone().sub_(3),
    "h += i32": lambda: h.clone().add_(i32),
    "i32 *= 0.5": lambda: i32.clone().mul_(0.5),
    "i32.copy_(f)": lambda: i32.clone().copy_(torch.tensor([1.9, -1.9])),
    "out= narrower": lambda: torch.add(i32, i32, out=torch.empty(2, dtype=torch.int8)),
    "out= float->int": lambda: torch.add(h, h, out=torch.empty(2, dtype=torch.int32)),
    "out= int->bool": lambda: torch.mul(i8, i8, out=torch.empty(2, dtype=torch.bool)),
}.items():
    try:
        r = fn()
        print(f"{name:<16}", r.dtype, r.tolist())
    except RuntimeError as e:
        print(f"{name:<16}", type(e).__name__, e)
torch.set_default_dtype(torch.float64)
print("default f64", (i32 / 2).dtype, (i32 * 1.5).dtype, torch.tensor([1, 2.5]).dtype, torch.arange(3.0).dtype)
torch.set_default_dtype(torch.float32)
print(
    "arange dtypes",
    torch.arange(3).dtype,
    torch.arange(3.0).dtype,
    torch.arange(0, 1, 0.5).dtype,
    torch.arange(3, dtype=torch.int8).tolist(),
    torch.full((2,), 7).dtype,
    torch.full((2,), True).dtype,
)
