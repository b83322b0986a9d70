"""Integer division as index arithmetic meets it: floor_divide/remainder/fmod signs with negative
operands, rounding modes, zero divisors (errors for integers, inf/nan for floats) and integer pow."""

import warnings

import torch

a = torch.tensor([-7, -6, -1, 0, 1, 6, 7])
for d in [3, -3]:
    print(f"a // {d}", (a // d).tolist())
    print(f"a % {d}", (a % d).tolist())
    print(f"fmod {d}", torch.fmod(a, d).tolist())
    print(f"trunc {d}", torch.div(a, d, rounding_mode="trunc").tolist())
    print(f"floor {d}", torch.div(a, d, rounding_mode="floor").tolist())
    print(f"true {d}", torch.div(a, d).round(decimals=4).tolist())
    print("identity holds", torch.equal((a // d) * d + a % d, a))

print("float floor_divide", (torch.tensor([-7.5, 7.5, -0.5]) // 2).tolist())
print("float remainder", torch.remainder(torch.tensor([-7.5, 7.5, -0.0]), 2).tolist())
print("float fmod", torch.fmod(torch.tensor([-7.5, 7.5]), -2).tolist())
print(
    "python scalar first", torch.remainder(-7, torch.tensor([3, -3])).tolist(), (-7 // torch.tensor([2, -2])).tolist()
)
print(
    "mixed dtypes",
    (torch.tensor([7], dtype=torch.int8) // torch.tensor([2.0])).dtype,
    (torch.tensor([7], dtype=torch.int8) % 2.5).dtype,
    torch.fmod(torch.tensor([7], dtype=torch.int16), 2).dtype,
)

for fn, name in [
    (lambda x: x // 0, "// 0"),
    (lambda x: x % 0, "% 0"),
    (lambda x: torch.fmod(x, 0), "fmod 0"),
    (lambda x: torch.div(x, 0, rounding_mode="trunc"), "trunc 0"),
    (lambda x: torch.div(x, 0, rounding_mode="floor"), "floor 0"),
    (lambda x: x // torch.zeros_like(x), "// zeros"),
    (lambda x: x / 0, "/ 0"),
]:
    for dt in [torch.int64, torch.int8, torch.uint8, torch.float32]:
        x = torch.tensor([5, 0], dtype=dt)
        try:
            r = fn(x)
            print(name, dt, r.tolist(), r.dtype)
        except RuntimeError as e:
            print(name, dt, type(e).__name__, e)

m = torch.tensor([-128, 127], dtype=torch.int8)
print("int8 min // -1", (m // -1).tolist(), "% -1", (m % -1).tolist(), "abs", m.abs().tolist(), "neg", (-m).tolist())
big = torch.tensor([-(2**63)])
print("int64 min * -1", (big * -1).tolist(), (-big).tolist(), big.abs().tolist())  # (min // -1 traps the CPU)

base = torch.tensor([-3, -1, 0, 1, 2, 3])
print("pow 2", (base**2).tolist(), "pow 0", (base**0).tolist(), (base**3).dtype)
print("pow tensor", torch.pow(base, torch.tensor([3, 5, 0, 9, 10, 2])).tolist())
print("pow float exp", (base**0.5).tolist()[3:], (base**2.0).dtype)
print("scalar base", (2 ** torch.arange(5)).tolist(), (2.5 ** torch.arange(3)).tolist(), (2 ** torch.arange(3)).dtype)
print(
    "wraps",
    (torch.tensor([3]) ** 41).tolist(),
    (torch.tensor([2], dtype=torch.int32) ** 31).tolist(),
    (torch.tensor([3], dtype=torch.uint8) ** 5).tolist(),
)
for bad in [
    lambda: base**-1,
    lambda: torch.pow(base, torch.tensor(-2)),
    lambda: base.pow_(-1),
    lambda: torch.tensor([2]).pow_(0.5),
    lambda: torch.tensor([2]).div_(2),
    lambda: torch.tensor([2]).true_divide_(2),
    lambda: torch.tensor([7]).floor_divide_(2.5),
]:
    try:
        print("ok", bad().tolist())
    except RuntimeError as e:
        print(type(e).__name__, e)
print("one to negatives", (torch.tensor([1, -1, 1]) ** torch.tensor([-2, -3, -4])).tolist())
print(
    "float_power", torch.float_power(torch.tensor([2, -2]), -1).tolist(), torch.float_power(torch.tensor([2]), 2).dtype
)

print(
    "true_divide",
    torch.true_divide(torch.tensor([1, 2]), 2).dtype,
    (torch.tensor([1]) / torch.tensor([2], dtype=torch.float16)).dtype,
    (torch.tensor([1], dtype=torch.int8) / torch.tensor(2, dtype=torch.float64)).dtype,
    (torch.tensor([True]) / 2).dtype,
    (torch.tensor([1], dtype=torch.uint8) / torch.tensor([2], dtype=torch.uint8)).dtype,
)
torch.set_default_dtype(torch.float64)
print("with float64 default", (torch.tensor([1, 2]) / 3).dtype, (torch.tensor([1]) * 1.5).dtype)
torch.set_default_dtype(torch.float32)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = torch.floor_divide(torch.tensor([-7, 7]), 2)
print("floor_divide", r.tolist(), "warnings", [str(x.message)[:40] for x in w])
print("divmod", divmod(torch.tensor([-7, 7]), 3) if hasattr(torch.Tensor, "__divmod__") else "no __divmod__")
