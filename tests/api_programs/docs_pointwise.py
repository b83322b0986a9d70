"""Pointwise and BLAS-style docstring examples: bitwise/logical ops, float_power, frexp, lerp, addcmul, baddbmm."""

import numpy as np
import torch

rng = np.random.default_rng(4)
a = torch.tensor([-1, -2, 3], dtype=torch.int8)
b = torch.tensor([1, 0, 3], dtype=torch.int8)
print("bitwise", torch.bitwise_and(a, b), torch.bitwise_or(a, b), torch.bitwise_xor(a, b), torch.bitwise_not(a))
tb = torch.tensor([True, True, False])
fb = torch.tensor([False, True, False])
print("bitwise bool", torch.bitwise_and(tb, fb), torch.bitwise_or(tb, fb), torch.bitwise_xor(tb, fb), ~tb)
print("shifts", torch.bitwise_left_shift(a, b), torch.bitwise_right_shift(a, b), a << 2, torch.tensor([16]) >> 2)
print("shift scalar", torch.bitwise_left_shift(torch.tensor([1, 2]), 3), 1 << torch.tensor([0, 4]), (a >> 1).dtype)
print(
    "shift overflow",
    torch.tensor([1], dtype=torch.uint8) << 9,
    torch.tensor([-8]) >> 1,
    torch.tensor([255], dtype=torch.uint8) >> 4,
)
print("ops &|^", a & 3, a | 4, a ^ b, tb & fb, tb ^ True, (a & b).dtype, (torch.tensor([3]) & a).dtype)
print("logical", torch.logical_and(tb, fb), torch.logical_or(torch.tensor([0, 1, -10]), torch.tensor([0.0, 0.0, 1.0])))
print("logical xor not", torch.logical_xor(tb, fb), torch.logical_not(torch.tensor([0.0, 1.5, -10.0])))
print("logical out dtype", torch.logical_not(torch.tensor([0, 1]), out=torch.empty(2, dtype=torch.int16)))
ai = torch.tensor([2, 3, 4, 5])
print("float_power", torch.float_power(ai, 2), torch.float_power(ai, torch.tensor([2, -3, 4, -5])))
print("float_power dtype", torch.float_power(torch.tensor([1.5]), 2.0).dtype, torch.float_power(2, ai))
print("pow", torch.pow(ai, 2), torch.pow(2, ai), torch.pow(torch.tensor([4.0]), 0.5), torch.pow(ai.float(), -1))
nx = torch.tensor([float("nan"), float("inf"), -float("inf"), 3.14])
print("nan_to_num", torch.nan_to_num(nx), torch.nan_to_num(nx, nan=2.0), torch.nan_to_num(nx, nan=2.0, posinf=1.0))
print(
    "nan_to_num f64", torch.nan_to_num(nx.double()), torch.nan_to_num(torch.tensor([1, 2])), torch.nan_to_num(nx.half())
)
print("signbit", torch.signbit(torch.tensor([0.7, -1.2, 0.0, 2.3])), torch.signbit(torch.tensor([-0.0, 0.0])))
print("signbit int", torch.signbit(torch.tensor([-1, 0, 3])), torch.signbit(torch.tensor([float("-nan")]).neg()))
cs = torch.tensor([-1.2557, -0.0026, -0.5387, 0.4740, -0.9244])
print("copysign", torch.copysign(cs, 1), torch.copysign(cs, torch.tensor([1.0, -1.0, 0.0, -0.0, 2.0])))
print("copysign zero", torch.copysign(torch.tensor([0.0, -0.0]), -1), torch.copysign(torch.tensor([1, 2]), -1).dtype)
print("copysign bcast", torch.copysign(torch.tensor([[1.0], [2.0]]), torch.tensor([-1.0, 1.0])))
x = torch.arange(9.0)
mantissa, exponent = torch.frexp(x)
print("frexp", mantissa, exponent, exponent.dtype, torch.ldexp(mantissa, exponent))
print("frexp special", torch.frexp(torch.tensor([0.0, -3.0, float("inf"), 1e-40])))
print(
    "frexp f64",
    torch.frexp(torch.tensor([1024.5], dtype=torch.float64)),
    torch.frexp(torch.tensor([6.0], dtype=torch.float16)),
)
print(
    "ldexp",
    torch.ldexp(torch.tensor([1.0]), torch.tensor([1])),
    torch.ldexp(torch.tensor([1.0]), torch.tensor([1, 2, 3, 4])),
)
print(
    "ldexp int",
    torch.ldexp(torch.tensor([3]), torch.tensor([2])),
    torch.ldexp(torch.tensor([1.0], dtype=torch.float64), torch.tensor([-1075])),
)
start = torch.arange(1.0, 5.0)
end = torch.empty(4).fill_(10)
print("lerp", torch.lerp(start, end, 0.5), torch.lerp(start, end, torch.full_like(start, 0.5)))
print(
    "lerp weights",
    torch.lerp(start, end, torch.tensor([0.0, 0.25, 0.75, 1.0])),
    start.lerp(end, 2.0),
    start.lerp(end, -1),
)
t = torch.tensor([[1.0, 2.0, 3.0]])
t1 = torch.tensor([[1.0], [2.0], [3.0]])
t2 = torch.tensor([[1.0, 2.0, 3.0]])
print("addcmul", torch.addcmul(t, t1, t2, value=0.1))
print("addcdiv", torch.addcdiv(t, t1, t2, value=0.1), torch.addcdiv(t, t1, t2))
print("addcmul int", torch.addcmul(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6]), value=2))
M = torch.from_numpy(rng.standard_normal((3, 5)).round(2).astype(np.float32))
b1 = torch.from_numpy(rng.standard_normal((2, 3, 4)).round(2).astype(np.float32))
b2 = torch.from_numpy(rng.standard_normal((2, 4, 5)).round(2).astype(np.float32))
print("addbmm", torch.addbmm(M, b1, b2).round(decimals=4), torch.addbmm(M, b1, b2, beta=0.5, alpha=2).round(decimals=4))
print("baddbmm", torch.baddbmm(M, b1, b2, beta=0).round(decimals=4)[1], torch.baddbmm(M, b1, b2, alpha=-1).shape)
nanM = torch.full((3, 5), float("nan"))
print(
    "beta=0 ignores nan",
    torch.baddbmm(nanM, b1, b2, beta=0).isnan().any(),
    torch.addmm(nanM, M[:, :3], torch.ones(3, 5), beta=0).isnan().any(),
)
mv_m = torch.arange(6.0).reshape(2, 3)
vec = torch.tensor([1.0, -1.0, 2.0])
print(
    "addmv", torch.addmv(torch.tensor([1.0, 1.0]), mv_m, vec), torch.addmv(torch.ones(2), mv_m, vec, beta=2, alpha=0.5)
)
vec1 = torch.arange(1.0, 4.0)
vec2 = torch.arange(1.0, 3.0)
print("addr", torch.addr(torch.zeros(3, 2), vec1, vec2), torch.addr(torch.ones(3, 2), vec1, vec2, beta=-1, alpha=3))
print("addr int", torch.addr(torch.zeros(2, 2, dtype=torch.int64), torch.tensor([1, 2]), torch.tensor([3, 4]), alpha=2))
print(
    "addr bool",
    torch.addr(torch.zeros(2, 2, dtype=torch.bool), torch.tensor([True, False]), torch.tensor([True, True])),
)
print("addmm", torch.addmm(torch.ones(2, 2), mv_m, mv_m.T, beta=0.5, alpha=0.1))
print(
    "fmod remainder",
    torch.fmod(torch.tensor([-3.0, -2, -1, 1, 2, 3]), 2),
    torch.remainder(torch.tensor([-3.0, -2, -1, 1, 2, 3]), 2),
)
print("fmod neg", torch.fmod(torch.tensor([1, 2, 3, 4, 5]), -1.5), torch.remainder(torch.tensor([1, 2, 3, 4, 5]), -1.5))
print("remainder int", torch.remainder(torch.tensor([-7, 7]), 3), torch.remainder(-7, torch.tensor([3, -3])))
dx = torch.tensor([-0.3711, -1.9353, -0.4605, -0.2917])
dy = torch.tensor([0.8032, 0.2930, -0.8113, -0.2308])
print(
    "div modes", torch.div(dx, dy, rounding_mode="trunc"), torch.div(dx, dy, rounding_mode="floor"), torch.div(dx, 0.5)
)
print(
    "div int modes",
    torch.div(torch.tensor([-7, 7]), 2, rounding_mode="floor"),
    torch.div(torch.tensor([-7, 7]), 2, rounding_mode="trunc"),
)
print(
    "xlogy",
    torch.xlogy(torch.zeros(3), torch.tensor([0.0, 1.0, float("nan")])),
    torch.xlogy(torch.tensor([1, 2, 3]), 2),
)
print(
    "hypot logaddexp",
    torch.hypot(torch.tensor([4.0]), torch.tensor([3.0, 4.0, 5.0])),
    torch.logaddexp(torch.tensor([-1.0]), torch.tensor([-1.0, -2, -3])),
)
print("logaddexp2", torch.logaddexp2(torch.tensor([-100.0, -200, -300]), torch.tensor([-1.0, -2, -3])))
print("round", torch.round(torch.tensor([4.7, -2.3, 9.1, -7.7])), torch.round(torch.tensor([-0.5, 0.5, 1.5, 2.5])))
print(
    "round decimals",
    torch.round(torch.tensor([0.1234567]), decimals=3),
    torch.round(torch.tensor([1200.1234567]), decimals=-3),
)
print("trunc frac", torch.trunc(torch.tensor([3.4742, -0.5, -3.9])), torch.frac(torch.tensor([1, 2.5, -3.2])))
print(
    "ceil floor",
    torch.ceil(torch.tensor([-0.6, 0.6])),
    torch.floor(torch.tensor([-0.6, 0.6])),
    torch.fix(torch.tensor([-1.5])),
)
eps = torch.finfo(torch.float32).eps
print(
    "nextafter", torch.nextafter(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0])) == torch.tensor([eps + 1, 2 - eps])
)
print(
    "logit",
    torch.logit(torch.tensor([0.2796, 0.9331, 0.6486, 0.1523, 0.6516]), eps=1e-6),
    torch.logit(torch.tensor([0.0, 1.0])),
)
print(
    "gcd lcm",
    torch.gcd(torch.tensor([5, 10, 15]), torch.tensor([3, 4, 5])),
    torch.lcm(torch.tensor([5, 10, 15]), torch.tensor([3, 4, 5])),
)
print(
    "gcd neg", torch.gcd(torch.tensor([-5, 0]), torch.tensor([10, 0])), torch.lcm(torch.tensor([-3]), torch.tensor([4]))
)
print(
    "deg2rad",
    torch.deg2rad(torch.tensor([[180.0, -180.0], [360.0, -360.0], [90.0, -90.0]])),
    torch.rad2deg(torch.tensor([3.142, -3.142])),
)
print("sinc", torch.sinc(torch.tensor([0.0, 0.5, 1.0, -1.5])), torch.exp2(torch.tensor([0.0, 1.0, 3.0, 4.0])))
print("mvlgamma", torch.mvlgamma(torch.tensor([2.5, 3.0]), p=2), torch.polygamma(1, torch.tensor([1.0, 0.5])))
print("erfinv", torch.erfinv(torch.tensor([0.0, 0.5, -1.0])), torch.special.erfcx(torch.tensor([0.0, 1.0])))
print(
    "sgn abs",
    torch.abs(torch.tensor([-1, -2, 3])),
    torch.absolute(torch.tensor([-1.5])),
    torch.neg(torch.tensor([0.0])),
)
print("clamp_ types", torch.tensor([1, 2, 3]).clamp_(min=2), torch.true_divide(torch.tensor([4]), 3))
for bad in [
    lambda: torch.bitwise_and(torch.tensor([1.0]), torch.tensor([1.0])),
    lambda: torch.bitwise_not(torch.tensor([1.5])),
    lambda: torch.tensor([1.0]) << 2,
    lambda: torch.float_power(ai, 2, out=torch.empty(4)),
    lambda: torch.ldexp(torch.tensor([1.0]), torch.tensor([1.5])),
    lambda: torch.frexp(torch.tensor([1, 2])),
    lambda: torch.lerp(start, end.double(), 0.5),
    lambda: torch.lerp(start, end, torch.tensor([0.5], dtype=torch.float64)),
    lambda: torch.addcdiv(torch.tensor([1]), torch.tensor([1]), torch.tensor([2])),
    lambda: torch.addbmm(M, b1, b2[:, :3]),
    lambda: torch.baddbmm(M, b1, b2.double()),
    lambda: torch.addmv(torch.ones(3), mv_m, vec),
    lambda: torch.addr(torch.zeros(3, 3), vec1, vec2),
    lambda: torch.addr(torch.zeros(2, 2, dtype=torch.int64), torch.tensor([1, 2]), torch.tensor([3, 4]), alpha=0.5),
    lambda: torch.addmm(torch.ones(2, 2), mv_m, mv_m, beta=0.5),
    lambda: torch.gcd(torch.tensor([1.0]), torch.tensor([2.0])),
    lambda: torch.div(dx, dy, rounding_mode="round"),
    lambda: torch.remainder(torch.tensor([1]), 0),
    lambda: torch.logical_and(tb, torch.ones(2)),
    lambda: torch.nan_to_num(nx, nan="x"),
    lambda: torch.round(torch.tensor([1, 2]), decimals=1),
    lambda: torch.mvlgamma(torch.tensor([0.5]), p=2),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
