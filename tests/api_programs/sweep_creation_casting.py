"""OpInfo-style sweep: dtype inference of the factory functions and casts between every pair of dtypes on values
every dtype can hold (casts out of range are platform-defined in PyTorch and left out)."""

import math

import torch

DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128,
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


print("== casts on values every dtype holds")
for src in DTYPES:
    x = torch.tensor([0, 1, 3]).to(src) if src != torch.bool else torch.tensor([False, True, True])
    for dst in DTYPES:
        show(f"{short(src)} -> {short(dst)}", lambda: x.to(dst))
print("== float to int truncates toward zero")
f = torch.tensor([-2.7, -0.5, 0.5, 2.7])
for dst in [torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]:
    show(f"float32 {f.tolist()} -> {short(dst)}", lambda: f.to(dst))
show("complex -> float (discards imag)", lambda: torch.tensor([1 + 2j]).real.to(torch.float64))
show("nan -> bool", lambda: torch.tensor([float("nan"), 0.0, -0.0]).to(torch.bool))
print("== factory dtype inference")
CASES = {
    "tensor(int)": lambda: torch.tensor(3),
    "tensor(float)": lambda: torch.tensor(3.0),
    "tensor(bool)": lambda: torch.tensor([True]),
    "tensor(complex)": lambda: torch.tensor([1j]),
    "tensor(mixed int float)": lambda: torch.tensor([1, 2.5]),
    "tensor(mixed bool int)": lambda: torch.tensor([True, 2]),
    "tensor(mixed float complex)": lambda: torch.tensor([1.0, 1j]),
    "tensor([])": lambda: torch.tensor([]),
    "arange(5)": lambda: torch.arange(5),
    "arange(0, 1, 0.25)": lambda: torch.arange(0, 1, 0.25),
    "arange(5.0)": lambda: torch.arange(5.0),
    "arange(0, 5, 2, dtype=float64)": lambda: torch.arange(0, 5, 2, dtype=torch.float64),
    "arange(bad step)": lambda: torch.arange(0, 5, 0),
    "arange(wrong sign)": lambda: torch.arange(0, 5, -1),
    "linspace(0, 1, 5)": lambda: torch.linspace(0, 1, 5),
    "linspace int dtype": lambda: torch.linspace(0, 10, 4, dtype=torch.int64),
    "logspace": lambda: torch.logspace(0, 2, 3),
    "full int": lambda: torch.full((2,), 7),
    "full bool": lambda: torch.full((2,), True),
    "full float": lambda: torch.full((2,), 1.5),
    "full complex": lambda: torch.full((2,), 1j),
    "full dtype=int8 300": lambda: torch.full((2,), 300, dtype=torch.int8),
    "zeros": lambda: torch.zeros(2, dtype=torch.int16),
    "ones_like bool": lambda: torch.ones_like(torch.tensor([True, False])),
    "zeros_like dtype": lambda: torch.zeros_like(torch.tensor([1, 2]), dtype=torch.float16),
    "full_like float into int": lambda: torch.full_like(torch.tensor([1, 2]), 2.7),
    "eye": lambda: torch.eye(2, 3, dtype=torch.int32),
    "empty(0)": lambda: torch.empty(0, 3),
    "randint dtype": lambda: torch.randint(0, 1, (3,)),
    "tensor from float16 list": lambda: torch.tensor([1.0, 2.0], dtype=torch.float16),
    "tensor uint8 negative": lambda: torch.tensor([-1], dtype=torch.uint8),
    "tensor int8 overflow": lambda: torch.tensor([200], dtype=torch.int8),
    "tensor nested ragged": lambda: torch.tensor([[1, 2], [3]]),
    "as_tensor int list": lambda: torch.as_tensor([1, 2], dtype=torch.float32),
    "scalar_tensor": lambda: torch.scalar_tensor(2),
    "tril_indices": lambda: torch.tril_indices(3, 3),
    "complex(re, im)": lambda: torch.complex(torch.tensor([1.0]), torch.tensor([2.0])),
    "complex int parts": lambda: torch.complex(torch.tensor([1]), torch.tensor([2])),
    "polar": lambda: torch.polar(torch.tensor([2.0]), torch.tensor([0.0])),
    "heaviside": lambda: torch.heaviside(torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([0.5])),
}
for name, fn in CASES.items():
    show(name, fn)
print("== default dtype switch")
torch.set_default_dtype(torch.float64)
for name in ["tensor(float)", "arange(0, 1, 0.25)", "linspace(0, 1, 5)", "full float", "tensor(complex)",
             "full complex", "tensor(mixed int float)"]:
    show(f"f64 default {name}", CASES[name])
show("f64 default int / int", lambda: torch.tensor([1]) / torch.tensor([2]))
show("f64 default int tensor + 0.5", lambda: torch.tensor([1]) + 0.5)
torch.set_default_dtype(torch.float32)
print("== type() and type conversions")
x = torch.tensor([1.5, -2.5])
for name in ["int", "long", "short", "char", "byte", "bool", "half", "bfloat16", "float", "double", "cfloat"]:
    show(f".{name}()", lambda: getattr(x, name)())
show("type(torch.IntTensor)", lambda: x.type(torch.IntTensor))
show("type('torch.DoubleTensor')", lambda: x.type("torch.DoubleTensor"))
print("type()", x.type(), x.int().type(), x.bool().type(), torch.tensor([1j]).type())
show("to(other)", lambda: x.to(torch.tensor([1], dtype=torch.int16)))
show("new_tensor", lambda: x.new_tensor([1, 2]))
show("new_full", lambda: x.int().new_full((2,), 3.9))
show("new_ones dtype", lambda: x.new_ones(2, dtype=torch.bool))
