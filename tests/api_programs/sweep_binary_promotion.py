"""OpInfo-style sweep: binary arithmetic over every pair of dtypes, printing result dtype and values or the error."""

import math

import torch

DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
]
SHORT = {d: str(d).replace("torch.", "") for d in DTYPES + [torch.complex128]}


def rnd(v):
    if isinstance(v, list):
        return [rnd(x) for x in v]
    if isinstance(v, complex):
        return complex(rnd(v.real), rnd(v.imag))
    if isinstance(v, float):
        return v if not math.isfinite(v) else round(v, 3) + 0.0
    return v


def show(label, fn):
    try:
        r = fn()
        print(label, "->", SHORT.get(r.dtype, r.dtype), tuple(r.shape), rnd(r.tolist()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def lhs(dt):
    if dt == torch.bool:
        return torch.tensor([True, False, True])
    return torch.tensor([5, 7, 2]).to(dt)


def rhs(dt):
    if dt == torch.bool:
        return torch.tensor([True, True, True])
    return torch.tensor([2, 3, 1]).to(dt)


OPS = {
    "add": lambda a, b: torch.add(a, b),
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
    "sub": lambda a, b: torch.sub(a, b),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: torch.div(a, b),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "floor_divide": lambda a, b: torch.floor_divide(a, b),
    "remainder": lambda a, b: torch.remainder(a, b),
    "fmod": lambda a, b: torch.fmod(a, b),
    "pow": lambda a, b: torch.pow(a, b),
    "atan2": lambda a, b: torch.atan2(a, b),
    "maximum": lambda a, b: torch.maximum(a, b),
    "minimum": lambda a, b: torch.minimum(a, b),
    "eq": lambda a, b: torch.eq(a, b),
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: torch.ge(a, b),
}

for name, op in OPS.items():
    print("==", name)
    for d1 in DTYPES:
        for d2 in DTYPES:
            show(f"{name} {SHORT[d1]} {SHORT[d2]}", lambda: op(lhs(d1), rhs(d2)))

print("== promote_types / result_type")
for d1 in DTYPES:
    row = []
    for d2 in DTYPES:
        row.append(SHORT[torch.promote_types(d1, d2)])
    print(SHORT[d1], " ".join(row))
for d1 in DTYPES:
    print("result_type", SHORT[d1], SHORT[torch.result_type(lhs(d1), 2)], SHORT[torch.result_type(lhs(d1), 2.5)],
          SHORT[torch.result_type(lhs(d1), torch.tensor(1.0, dtype=torch.float64))],
          torch.can_cast(d1, torch.int32), torch.can_cast(torch.float32, d1))
