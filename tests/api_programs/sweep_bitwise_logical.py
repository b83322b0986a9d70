"""OpInfo-style sweep: bitwise, shift and logical ops over dtype pairs and operand kinds, plus their in-place forms."""

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


def lhs(dt):
    if dt == torch.bool:
        return torch.tensor([True, False, True, False])
    return torch.tensor([12, 10, 0, 3]).to(dt)


def rhs(dt):
    if dt == torch.bool:
        return torch.tensor([True, True, False, False])
    return torch.tensor([10, 6, 5, 0]).to(dt)


def small(dt):
    if dt == torch.bool:
        return torch.tensor([True, False, True, True])
    return torch.tensor([1, 2, 0, 3]).to(dt)


OPS = {
    "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor,
    "logical_and": torch.logical_and,
    "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor,
}
for name, op in OPS.items():
    print("==", name)
    for d1 in DTYPES:
        for d2 in DTYPES:
            show(f"{name} {short(d1)} {short(d2)}", lambda: op(lhs(d1), rhs(d2)))
print("== shifts")
for d1 in DTYPES:
    for d2 in [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float32]:
        show(f"lshift {short(d1)} {short(d2)}", lambda: torch.bitwise_left_shift(lhs(d1), small(d2)))
        show(f"rshift {short(d1)} {short(d2)}", lambda: lhs(d1) >> small(d2))
print("== unary bitwise/logical")
for dt in DTYPES:
    show(f"bitwise_not {short(dt)}", lambda: torch.bitwise_not(lhs(dt)))
    show(f"invert {short(dt)}", lambda: ~lhs(dt))
    show(f"logical_not {short(dt)}", lambda: torch.logical_not(lhs(dt)))
print("== python scalar operands")
for dt in DTYPES:
    for s in [True, 3, -1, 2.0]:
        show(f"and {short(dt)} {s!r}", lambda: lhs(dt) & s)
        show(f"ror {s!r} {short(dt)}", lambda: s | lhs(dt))
        show(f"shl {short(dt)} {s!r}", lambda: lhs(dt) << s)
        show(f"logical_or {short(dt)} 0d-{s!r}", lambda: torch.logical_or(lhs(dt), torch.tensor(s)))
print("== in-place")
for d1 in DTYPES:
    for d2 in [torch.bool, torch.int8, torch.int64, torch.float32]:
        def inplace_and():
            a = lhs(d1)
            a &= rhs(d2)
            return a

        def inplace_logical():
            a = lhs(d1)
            return a.logical_and_(rhs(d2))

        def inplace_shift():
            a = lhs(d1)
            return a.__ilshift__(small(d2))

        show(f"iand {short(d1)} {short(d2)}", inplace_and)
        show(f"logical_and_ {short(d1)} {short(d2)}", inplace_logical)
        show(f"ilshift {short(d1)} {short(d2)}", inplace_shift)
print("== out=")
for d in [torch.bool, torch.uint8, torch.int64, torch.float32]:
    out = torch.empty(4, dtype=d)
    show(f"logical_xor out={short(d)}", lambda: torch.logical_xor(lhs(torch.int32), rhs(torch.int32), out=out))
    out2 = torch.empty(4, dtype=d)
    show(f"bitwise_xor out={short(d)}", lambda: torch.bitwise_xor(lhs(torch.int32), rhs(torch.int32), out=out2))
