"""OpInfo-style sweep: NaN, inf and signed zero through comparisons, min/max, rounding and reductions; integer
overflow wraparound and integer division by zero (only the cases PyTorch defines on every platform)."""

import math

import torch

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0]


def short(d):
    return str(d).replace("torch.", "")


def rnd(v):
    if isinstance(v, list):
        return [rnd(x) for x in v]
    if isinstance(v, float):
        if v == 0.0:
            return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
        return v if not math.isfinite(v) else round(v, 4)
    return v


def show(label, fn):
    try:
        r = fn()
        if isinstance(r, tuple):
            print(label, "->", [(short(t.dtype), rnd(t.tolist())) for t in r])
        else:
            print(label, "->", short(r.dtype), tuple(r.shape), rnd(r.tolist()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


print("== comparisons with special values")
for dt in FLOATS:
    a = torch.tensor(SPECIAL, dtype=dt)
    b = torch.tensor(SPECIAL[::-1], dtype=dt)
    for name in ["eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "fmax", "fmin", "isclose", "copysign",
                 "nextafter", "atan2", "remainder", "fmod", "pow", "hypot", "logaddexp", "xlogy"]:
        show(f"{name} {short(dt)}", lambda: getattr(torch, name)(a, b))
    show(f"isclose equal_nan {short(dt)}", lambda: torch.isclose(a, b, equal_nan=True))
    show(f"equal {short(dt)}", lambda: torch.tensor(torch.equal(a, a)))
    show(f"allclose equal_nan {short(dt)}", lambda: torch.tensor(torch.allclose(a, a, equal_nan=True)))
print("== unary on special values")
for dt in FLOATS:
    a = torch.tensor(SPECIAL, dtype=dt)
    for name in ["sign", "sgn", "signbit", "abs", "floor", "round", "trunc", "frac", "sqrt", "exp", "log", "sigmoid",
                 "tanh", "reciprocal", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "nan_to_num", "relu"]:
        if dt == torch.bfloat16 and name in ("sign", "sgn"):
            continue  # PyTorch's vectorised bfloat16 sign maps NaN and -0.0 to 0.0 on some CPUs only
        show(f"{name} {short(dt)}", lambda: getattr(torch, name)(a))
    show(f"nan_to_num(1,2,3) {short(dt)}", lambda: torch.nan_to_num(a, 1.0, 2.0, 3.0))
    show(f"clamp(-0.5,0.5) {short(dt)}", lambda: torch.clamp(a, -0.5, 0.5))
print("== reductions with NaN")
x = torch.tensor([[1.0, float("nan"), 3.0], [float("-inf"), 2.0, float("inf")]])
for name in ["sum", "nansum", "mean", "nanmean", "max", "min", "amax", "argmax", "argmin", "median", "nanmedian",
             "prod", "std", "logsumexp", "cumsum", "cummax", "sort", "topk", "unique", "any", "all"]:
    fn = getattr(torch, name)
    if name in ("cumsum", "cummax", "logsumexp"):
        show(f"{name} dim=1", lambda: fn(x, 1))
    elif name == "topk":
        show(f"{name} k=2", lambda: fn(x, 2))
    else:
        show(f"{name}", lambda: fn(x))
        if name not in ("unique", "nanmean", "nansum", "mean", "sum", "std", "prod", "amax"):
            show(f"{name} dim=1", lambda: fn(x, 1))
show("max dim=0 nan", lambda: torch.max(x, 0))
show("sort descending", lambda: torch.sort(x.flatten(), descending=True))
show("argsort stable", lambda: torch.argsort(torch.tensor([0.0, -0.0, float("nan"), 0.0]), stable=True))
show("unique nan", lambda: torch.unique(torch.tensor([float("nan"), 1.0, float("nan")])))
print("== integer overflow wraps")
for dt in INTS:
    info = torch.iinfo(dt)
    hi = torch.tensor([info.max], dtype=dt)
    lo = torch.tensor([info.min], dtype=dt)
    show(f"max+1 {short(dt)}", lambda: hi + 1)
    show(f"min-1 {short(dt)}", lambda: lo - 1)
    show(f"max*2 {short(dt)}", lambda: hi * 2)
    show(f"neg min {short(dt)}", lambda: -lo)
    show(f"abs min {short(dt)}", lambda: torch.abs(lo))
    show(f"sum {short(dt)}", lambda: torch.sum(torch.cat([hi, hi])))
    show(f"sum dtype=same {short(dt)}", lambda: torch.sum(torch.cat([hi, hi]), dtype=dt))
    show(f"cumsum {short(dt)}", lambda: torch.cumsum(torch.cat([hi, hi]), 0))
    show(f"prod {short(dt)}", lambda: torch.prod(torch.cat([hi, hi])))
    show(f"mean {short(dt)}", lambda: torch.mean(hi))
    show(f"iinfo {short(dt)}", lambda: torch.tensor([info.min, info.max, info.bits]))
print("== integer division by zero")
for dt in INTS:
    a = torch.tensor([5, 0], dtype=dt)
    z = torch.tensor([0, 0], dtype=dt)
    show(f"true div {short(dt)}", lambda: a / z)
    show(f"floor_divide {short(dt)}", lambda: a // z)
    show(f"div trunc {short(dt)}", lambda: torch.div(a, z, rounding_mode="trunc"))
    show(f"remainder {short(dt)}", lambda: a % z)
    show(f"fmod {short(dt)}", lambda: torch.fmod(a, z))
    show(f"floor_divide scalar 0 {short(dt)}", lambda: a // 0)
    show(f"remainder scalar 0 {short(dt)}", lambda: a % 0)
    show(f"pow negative {short(dt)}", lambda: a ** -1)
    show(f"pow 0 {short(dt)}", lambda: z ** 0)
print("== float division by zero")
for dt in FLOATS:
    a = torch.tensor([1.0, -1.0, 0.0], dtype=dt)
    z = torch.tensor([0.0, 0.0, 0.0], dtype=dt)
    show(f"true div {short(dt)}", lambda: a / z)
    show(f"div -0 {short(dt)}", lambda: a / -z)
    show(f"floor_divide {short(dt)}", lambda: a // z)
    show(f"remainder {short(dt)}", lambda: a % z)
    show(f"fmod {short(dt)}", lambda: torch.fmod(a, z))
print("== float overflow")
for dt in [torch.float16, torch.bfloat16]:
    big = torch.tensor([60000.0, 3e38, -65504.0], dtype=torch.float32)
    show(f"to {short(dt)}", lambda: big.to(dt))
    show(f"mul {short(dt)}", lambda: torch.tensor([60000.0], dtype=dt) * 2)
    show(f"exp {short(dt)}", lambda: torch.exp(torch.tensor([12.0, 100.0], dtype=dt)))
    show(f"finfo {short(dt)}", lambda: torch.tensor([torch.finfo(dt).max, torch.finfo(dt).eps, torch.finfo(dt).tiny]))
