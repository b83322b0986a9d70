"""OpInfo-style sweep: in-place ops whose result cannot be cast back or whose self would need to broadcast, and
out= variants with wrong dtype or shape (resize warnings go to stderr; only stdout is compared)."""

import math
import warnings

import torch

warnings.simplefilter("ignore")
DTYPES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64,
          torch.complex64]


def short(d):
    return str(d).replace("torch.", "")


def rnd(v):
    if isinstance(v, list):
        return [rnd(x) for x in v]
    if isinstance(v, complex):
        return complex(rnd(v.real), rnd(v.imag))
    if isinstance(v, float):
        return v if not math.isfinite(v) else float(f"{v:.6g}") + 0.0
    return v


def show(label, fn):
    try:
        r = fn()
        print(label, "->", short(r.dtype), tuple(r.shape), rnd(r.tolist()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def make(dt, shape=(2, 3)):
    n = math.prod(shape)
    if dt == torch.bool:
        return (torch.arange(n) % 2 == 0).reshape(shape)
    return (torch.arange(n) + 1).reshape(shape).to(dt)


INPLACE = {
    "add_": lambda a, b: a.add_(b),
    "sub_": lambda a, b: a.sub_(b),
    "mul_": lambda a, b: a.mul_(b),
    "div_": lambda a, b: a.div_(b),
    "div_floor_": lambda a, b: a.div_(b, rounding_mode="floor"),
    "pow_": lambda a, b: a.pow_(b),
    "clamp_min_": lambda a, b: a.clamp_min_(b),
    "copy_": lambda a, b: a.copy_(b),
    "masked_fill_": lambda a, b: a.masked_fill_(a == a, b.flatten()[0]),
    "lerp_": lambda a, b: a.lerp_(b, 0.5),
}
print("== in-place dtype casting")
for name, op in INPLACE.items():
    for d1 in DTYPES:
        for d2 in DTYPES:
            show(f"{name} {short(d1)} {short(d2)}", lambda: op(make(d1), make(d2)))
print("== in-place broadcasting")
SHAPES = [((2, 3), (3,)), ((2, 3), (2, 1)), ((3,), (2, 3)), ((2, 1), (2, 3)), ((1,), ()), ((), (2,)), ((2, 3), (4,))]
for name in ["add_", "mul_", "copy_", "lerp_"]:
    for s1, s2 in SHAPES:
        show(f"{name} {s1} {s2}", lambda: INPLACE[name](make(torch.float32, s1), make(torch.float32, s2)))
print("== in-place with python scalars")
for dt in DTYPES:
    for s in [2, 2.5, True, 1j]:
        show(f"add_ {short(dt)} {s!r}", lambda: make(dt).add_(s))
        show(f"mul_ {short(dt)} {s!r}", lambda: make(dt).mul_(s))
        show(f"fill_ {short(dt)} {s!r}", lambda: make(dt).fill_(s))
print("== in-place on expanded / overlapping views")
e = torch.zeros(3).expand(2, 3)
show("add_ on expanded", lambda: e.add_(1))
show("copy_ into expanded", lambda: torch.zeros(1, 3).expand(2, 3).copy_(torch.ones(2, 3)))
x = torch.arange(6.0)
show("add_ on strided view", lambda: x[::2].add_(10) and x)
show("mul_ on transposed", lambda: make(torch.float32).t().mul_(torch.tensor([1.0, 2.0])))
print("== out= variants")
OUT_OPS = {
    "add": lambda a, b, out: torch.add(a, b, out=out),
    "mul": lambda a, b, out: torch.mul(a, b, out=out),
    "div": lambda a, b, out: torch.div(a, b, out=out),
    "eq": lambda a, b, out: torch.eq(a, b, out=out),
    "maximum": lambda a, b, out: torch.maximum(a, b, out=out),
    "sum": lambda a, b, out: torch.sum(a, 0, out=out),
    "exp": lambda a, b, out: torch.exp(a, out=out),
    "matmul": lambda a, b, out: torch.matmul(a, b.t(), out=out),
    "cat": lambda a, b, out: torch.cat([a, b], out=out),
    "argmax": lambda a, b, out: torch.argmax(a, 1, out=out),
}
for name, op in OUT_OPS.items():
    for d_in in [torch.int64, torch.float32]:
        for d_out in [torch.bool, torch.int32, torch.int64, torch.float16, torch.float64, torch.complex64]:
            for shape in [None, (0,), (7,)]:
                a, b = make(d_in), make(d_in) + 1
                def run():
                    out = torch.empty(shape if shape is not None else (2, 3) if name not in ("sum", "matmul", "cat",
                                                                                          "argmax") else (1,),
                                      dtype=d_out)
                    r = op(a, b, out)
                    assert r is out
                    return out
                show(f"{name} in={short(d_in)} out={short(d_out)} shape={shape}", run)
show("out aliasing input", lambda: torch.add(x, 1, out=x))
show("out= with requires_grad", lambda: torch.add(torch.ones(2, requires_grad=True), 1, out=torch.empty(2)))
