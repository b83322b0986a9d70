"""Type promotion around the reduced-precision dtypes, as mixed-precision code runs into it: torch.promote_types and
torch.result_type tables for float16/bfloat16 against every other dtype, Python scalars and 0-dim tensors that do
not promote, can_cast tables, in-place ops that cannot downcast (and the error they raise), out= casting,
comparisons and where() across half types, integer tensors meeting half scalars, and the default dtype's part."""

import torch

torch.set_printoptions(precision=4)

DTS = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
       torch.float32, torch.float64, torch.complex64]
SHORT = {torch.bool: "b1", torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
         torch.int64: "i64", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
         torch.float64: "f64", torch.complex64: "c64", torch.complex128: "c128", torch.complex32: "c32"}

print("promote_types  " + " ".join(f"{SHORT[d]:>5}" for d in DTS))
for a in (torch.float16, torch.bfloat16):
    print(f"{SHORT[a]:>13}  " + " ".join(f"{SHORT[torch.promote_types(a, d)]:>5}" for d in DTS))

print("can_cast from  " + " ".join(f"{SHORT[d]:>5}" for d in DTS))
for a in (torch.float16, torch.bfloat16, torch.float32, torch.int64):
    print(f"{SHORT[a]:>13}  " + " ".join(f"{int(torch.can_cast(a, d)):>5}" for d in DTS))
print("can_cast to half:", [SHORT[d] for d in DTS if torch.can_cast(d, torch.float16)])

h = torch.tensor([1.5, -2.25, 3.0], dtype=torch.float16)
bf = torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)
operands = {
    "int scalar": 2,
    "float scalar": 2.5,
    "complex scalar": 1j,
    "bool scalar": True,
    "0-dim f64": torch.tensor(2.0, dtype=torch.float64),
    "0-dim i64": torch.tensor(3),
    "1-d f32": torch.ones(3),
    "1-d i32": torch.ones(3, dtype=torch.int32),
    "1-d f16": torch.ones(3, dtype=torch.float16),
    "1-d bf16": torch.ones(3, dtype=torch.bfloat16),
}
for name, t in (("f16", h), ("bf16", bf)):
    for oname, o in operands.items():
        r = t * o
        print(f"{name} * {oname:<15} result_type={SHORT[torch.result_type(t, o)]:<5} -> {r.dtype}  {r}")

# a Python scalar on the left, and integer tensors meeting half scalars
i = torch.tensor([1, 2, 3])
print("2.5 * i        ", (2.5 * i).dtype, torch.result_type(i, 2.5))
print("i + f16 0-dim  ", (i + torch.tensor(0.5, dtype=torch.float16)))
print("i + bf16 1-d   ", (i + torch.ones(3, dtype=torch.bfloat16)))
print("u8 + f16 0-dim ", (torch.tensor([250], dtype=torch.uint8) + torch.tensor(10.0, dtype=torch.float16)))
print("bool + bf16    ", torch.tensor([True, False]) + torch.tensor([0.5, 0.5], dtype=torch.bfloat16))
h0, b0 = torch.tensor(1.0, dtype=torch.float16), torch.tensor(1.0, dtype=torch.bfloat16)
print("f16 0-dim + bf16 0-dim", (h0 + b0).dtype)
print("f16 1-d + bf16 0-dim", (h + torch.tensor(1.0, dtype=torch.bfloat16)).dtype)
print("bf16 1-d + f16 0-dim", (bf + torch.tensor(1.0, dtype=torch.float16)).dtype)

# the default dtype decides what a Python float meets an integer tensor as
torch.set_default_dtype(torch.float64)
print("default f64: i * 0.5", (i * 0.5).dtype, "h * 0.5", (h * 0.5).dtype, torch.tensor([0.1]).dtype)
torch.set_default_dtype(torch.float32)

# in-place ops keep the left dtype and refuse a downcast of the category
x = h.clone()
x += torch.ones(3, dtype=torch.float64)
print("f16 += f64:", x, x.dtype)
x.mul_(torch.tensor([2, 2, 2]))
print("f16 *= i64:", x)
for bad in (lambda: i.add_(h), lambda: torch.tensor([1, 2], dtype=torch.int16).mul_(0.5),
            lambda: torch.tensor([True]).add_(bf[:1])):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)

# out= takes any dtype the result can be cast to
out = torch.empty(3, dtype=torch.float16)
torch.add(bf, torch.ones(3), out=out)
print("out f16 from bf16+f32:", out)
out64 = torch.empty(3, dtype=torch.float64)
torch.mul(h, bf, out=out64)
print("out f64 from f16*bf16:", out64)
try:
    torch.add(h, h, out=torch.empty(3, dtype=torch.int32))
except RuntimeError as e:
    print("RuntimeError:", e)

# comparisons, where and cat across half types
print("f16 == bf16:", h == bf, (h == bf).dtype)
print("f16 < f32 0.1 steps:", torch.tensor([0.1], dtype=torch.float16) < torch.tensor([0.1]))
print("where:", torch.where(h > 0, h, bf), torch.where(h > 0, h, bf).dtype)
print("where scalar:", torch.where(h > 0, h, 0.0).dtype, torch.where(bf > 0, 1.0, 0.0).dtype)
print("cat:", torch.cat([h, bf]).dtype, torch.cat([h, i]).dtype, torch.stack([bf, i.to(torch.uint8)]).dtype)
print("maximum:", torch.maximum(h, bf), torch.clamp(bf, min=torch.tensor(0.0, dtype=torch.float16)).dtype)

# complex32 (chalf) promotion
c = torch.tensor([1 + 2j], dtype=torch.complex32)
print("c32:", c.dtype, torch.promote_types(torch.complex32, torch.float16), torch.promote_types(torch.complex32,
                                                                                                torch.bfloat16))
print("c32 * f16:", (c * torch.tensor([2.0], dtype=torch.float16)).dtype, torch.result_type(c, 2.0),
      torch.result_type(torch.ones(1, dtype=torch.float16), 1j))

# type conversions of the printed values
v = torch.tensor([0.1, 1 / 3, 65504.0, 70000.0, 1e-8])
print("f16:", v.half().tolist())
print("bf16:", v.bfloat16().tolist())
print("back:", v.half().float().tolist())
print("to int:", torch.tensor([2.5, -2.5, 3.7], dtype=torch.bfloat16).int().tolist(),
      torch.tensor([2.5, -2.5, 3.7], dtype=torch.float16).long().tolist())
