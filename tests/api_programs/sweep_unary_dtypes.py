"""OpInfo-style sweep: unary math over every dtype, showing which promote integers to float, which keep the dtype,
which refuse bool or complex, on 1-d, 0-dim and empty inputs."""

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
        return v if not math.isfinite(v) else round(v, 2) + 0.0
    return v


def show(label, fn):
    try:
        r = fn()
        print(label, "->", short(r.dtype), tuple(r.shape), rnd(r.tolist()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def sample(dt):
    if dt == torch.bool:
        return torch.tensor([True, False, True])
    if dt == torch.uint8:
        return torch.tensor([0, 1, 3], dtype=dt)
    if dt.is_floating_point or dt.is_complex:
        return torch.tensor([-1.5, 0.25, 2.0]).to(dt)
    return torch.tensor([-2, 0, 3]).to(dt)


UNARY = [
    "abs", "neg", "sign", "sgn", "exp", "exp2", "expm1", "log", "log2", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "atan", "sinh", "tanh", "asinh", "sigmoid", "erf", "erfc", "erfinv", "lgamma",
    "digamma", "floor", "ceil", "round", "trunc", "frac", "square", "signbit", "isnan", "isinf", "isfinite",
    "isreal", "angle", "real", "conj", "positive", "nan_to_num", "deg2rad", "rad2deg", "i0",
]
for name in UNARY:
    fn = getattr(torch, name)
    print("==", name)
    for dt in DTYPES:
        show(f"{name} {short(dt)}", lambda: fn(sample(dt)))
print("== 0-dim and empty")
for name in ["abs", "exp", "floor", "sign", "sqrt", "isnan", "neg"]:
    fn = getattr(torch, name)
    for dt in [torch.bool, torch.int32, torch.float16, torch.float64]:
        show(f"{name} 0d-{short(dt)}", lambda: fn(sample(dt)[1]))
        show(f"{name} empty-{short(dt)}", lambda: fn(sample(dt)[:0].reshape(0, 2)))
print("== in-place unary keeps dtype or refuses")
for name in ["abs_", "neg_", "exp_", "sqrt_", "floor_", "sigmoid_", "round_", "sign_", "square_"]:
    for dt in [torch.bool, torch.uint8, torch.int64, torch.float16, torch.float32, torch.complex64]:
        show(f"{name} {short(dt)}", lambda: getattr(sample(dt), name)())
print("== methods with dtype args")
for dt in DTYPES:
    show(f"round(decimals=1) {short(dt)}", lambda: torch.round(sample(dt) * 1 if dt != torch.bool else sample(dt),
                                                               decimals=1))
    show(f"clamp(0, 1) {short(dt)}", lambda: torch.clamp(sample(dt), 0, 1))
    show(f"clamp(0.5) {short(dt)}", lambda: torch.clamp(sample(dt), min=0.5))
    show(f"float_power {short(dt)}", lambda: torch.float_power(sample(dt), 2))
    show(f"softmax {short(dt)}", lambda: torch.softmax(sample(dt), 0))
    show(f"softmax(dtype=f64) {short(dt)}", lambda: torch.softmax(sample(dt), 0, dtype=torch.float64))
