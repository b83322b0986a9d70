"""OpInfo-style sweep: tensor op 0-dim tensor and tensor op Python scalar, both orders, over every dtype."""

import math

import torch

DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
]


def short(d):
    return str(d).replace("torch.", "")


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
        print(label, "->", short(r.dtype), tuple(r.shape), rnd(r.tolist()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def vec(dt):
    if dt == torch.bool:
        return torch.tensor([True, False])
    return torch.tensor([6, 3]).to(dt)


def zdim(dt):
    return torch.tensor(True) if dt == torch.bool else torch.tensor(2).to(dt)


SCALARS = [True, 2, -3, 2.5, 1 + 1j]
OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "max": lambda a, b: torch.maximum(a, b) if isinstance(b, torch.Tensor) else torch.clamp(a, min=b),
    "eq": lambda a, b: a == b,
    "gt": lambda a, b: a > b,
}

print("== tensor op python scalar")
for name, op in OPS.items():
    for dt in DTYPES:
        for s in SCALARS:
            show(f"{name} {short(dt)} {s!r}", lambda: op(vec(dt), s))
print("== python scalar op tensor")
for name in ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"]:
    op = OPS[name]
    for dt in DTYPES:
        for s in [2, 2.5]:
            show(f"r{name} {s!r} {short(dt)}", lambda: op(s, vec(dt)))
print("== tensor op 0-dim tensor")
for name in ["add", "mul", "truediv", "max", "eq"]:
    op = OPS[name]
    for d1 in DTYPES:
        for d2 in DTYPES:
            show(f"{name} {short(d1)} 0d-{short(d2)}", lambda: op(vec(d1), zdim(d2)))
print("== 0-dim op 0-dim")
for d1 in DTYPES:
    for d2 in [torch.bool, torch.int8, torch.int64, torch.float16, torch.float64]:
        show(f"add 0d-{short(d1)} 0d-{short(d2)}", lambda: zdim(d1) + zdim(d2))
print("== result_type with scalars")
for dt in DTYPES:
    print(short(dt), [short(torch.result_type(vec(dt), s)) for s in SCALARS],
          short(torch.result_type(zdim(dt), vec(torch.int8))), short(torch.result_type(zdim(dt), 1.0)))
