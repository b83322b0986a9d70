"""integer arithmetic and dtype promotion: division modes, overflow wraparound, bitwise ops, casting rules."""

import torch

a = torch.tensor([7, -7, 7, -7, 0])
b = torch.tensor([2, 2, -2, -2, 3])
print("floor_divide", torch.floor_divide(a, b), a // b)
print("remainder", torch.remainder(a, b), a % b, torch.fmod(a, b))
print("div modes", torch.div(a, b), torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"))
fa = torch.tensor([7.5, -7.5, 7.5, -7.5])
fb = torch.tensor([2.0, 2.0, -2.0, -2.0])
print("float mod", torch.remainder(fa, fb), torch.fmod(fa, fb), fa // fb)
print("scalar mod", torch.remainder(a, 3), torch.fmod(a, -3), 5 % torch.tensor([3, -3]))
try:
    torch.tensor([1, 2]) // torch.tensor([0, 1])
except RuntimeError as e:
    print("zero div", e)
print("int true div", (torch.tensor([1, 2]) / torch.tensor([0, 1])))
i8 = torch.tensor([120, -120], dtype=torch.int8)
print("int8 wrap", i8 + 10, (i8 + 10).dtype, i8 * 2)
u8 = torch.tensor([250, 5], dtype=torch.uint8)
print("uint8 wrap", u8 + 10, u8 - 10, -u8)
big = torch.tensor([2**62, -(2**63)], dtype=torch.int64)
print("int64 wrap", big * 2, big - 1)
print("int64 extremes", torch.tensor([2**63 - 1, -(2**63), 0]))
print("iinfo", torch.iinfo(torch.int16).max, torch.iinfo(torch.uint8).min, torch.iinfo(torch.int32).bits)
print("finfo", torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float32).tiny)
print("finfo64", torch.finfo(torch.float64).resolution, torch.finfo().dtype)
x = torch.tensor([0b1100, 0b1010, -1], dtype=torch.int32)
y = torch.tensor([0b1010, 0b0110, 5], dtype=torch.int32)
print("bitwise", x & y, x | y, x ^ y, ~x)
print("bitwise fn", torch.bitwise_and(x, 3), torch.bitwise_or(x, y), torch.bitwise_xor(x, 1), torch.bitwise_not(x))
print("shifts", x << 2, x >> 1, torch.bitwise_left_shift(x, y), torch.bitwise_right_shift(x, 1))
print("bool bitwise", torch.tensor([True, False]) ^ torch.tensor([True, True]), ~torch.tensor([True, False]))
print("u8 shift", torch.tensor([200], dtype=torch.uint8) << 1, torch.tensor([-8], dtype=torch.int8) >> 1)
print("int8 + py int", (i8 + 1).dtype, (i8 + 1.5).dtype, (i8 * True).dtype, (u8 + i8).dtype)
print("u8 + int", (u8 + 300), (u8 + 300).dtype)
print("int + float tensor", (torch.tensor([1]) + torch.tensor([1.0], dtype=torch.float16)).dtype)
print("bool + bool", (torch.tensor([True]) + torch.tensor([True])), (torch.tensor([True]) + 1).dtype)
print("complex", (torch.tensor([1]) + 1j).dtype, (torch.tensor([1.0], dtype=torch.float64) * 1j).dtype)
print("half complex", (torch.tensor([1.0], dtype=torch.float16) + 1j).dtype)
print(
    "0-dim",
    (torch.tensor(1.0, dtype=torch.float64) + torch.tensor([1.0])).dtype,
    (torch.tensor(1) + torch.tensor([1], dtype=torch.int8)).dtype,
    (torch.tensor(1.0) + torch.tensor([1], dtype=torch.int8)).dtype,
)
dts = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
]
for d1 in dts:
    print(str(d1).split(".")[1], [str(torch.promote_types(d1, d2)).split(".")[1] for d2 in dts])
print(
    "result_type",
    torch.result_type(torch.tensor([1], dtype=torch.int8), 1000),
    torch.result_type(torch.tensor([1]), 1.0),
    torch.result_type(2, 3.0),
    torch.result_type(torch.tensor(1.0, dtype=torch.float64), torch.tensor([1], dtype=torch.int32)),
)
print(
    "can_cast",
    torch.can_cast(torch.float32, torch.int32),
    torch.can_cast(torch.int32, torch.float32),
    torch.can_cast(torch.int64, torch.int8),
    torch.can_cast(torch.bool, torch.uint8),
    torch.can_cast(torch.complex64, torch.float64),
)
print("to int", torch.tensor([2.7, -2.7, 1e10]).to(torch.int32)[:2], torch.tensor([-1.5, 300.0]).to(torch.uint8)[:1])
print(
    "round",
    torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5])),
    torch.round(torch.tensor([1.2345, 123.45]), decimals=2),
)
print("trunc/frac", torch.trunc(torch.tensor([-1.7, 1.7])), torch.frac(torch.tensor([-1.7, 1.7])))
print(
    "pow int",
    torch.tensor([2, 3]) ** 2,
    (torch.tensor([2, 3]) ** 2).dtype,
    (torch.tensor([2, 3]) ** 0.5).dtype,
    2 ** torch.tensor([3, 4]),
)
try:
    torch.tensor([2, 3]) ** -1
except RuntimeError as e:
    print("neg pow", e)
print(
    "gcd/lcm",
    torch.gcd(torch.tensor([12, -18, 0]), torch.tensor([8, 12, 5])),
    torch.lcm(torch.tensor([4, 6]), torch.tensor([6, -4])),
)
print("abs min", torch.abs(torch.tensor([-(2**63)])), torch.neg(torch.tensor([-128], dtype=torch.int8)))
print(
    "sum int dtype",
    torch.tensor([1, 2], dtype=torch.int8).sum().dtype,
    torch.tensor([True, True]).sum(),
    torch.tensor([1, 2], dtype=torch.uint8).prod().dtype,
    torch.tensor([1, 2], dtype=torch.int16).cumsum(0).dtype,
)
print("mean int", end=" ")
try:
    torch.tensor([1, 2]).mean()
except RuntimeError as e:
    print(e)
print("clamp int", torch.clamp(torch.tensor([1, 5, 9]), min=2.5).dtype, torch.clamp(torch.tensor([1, 5, 9]), 2, 6))
print(
    "where promo",
    torch.where(torch.tensor([True, False]), torch.tensor([1]), 2.5).dtype,
    torch.where(torch.tensor([True, False]), 1, 0).dtype,
)
print(
    "sign",
    torch.sign(torch.tensor([-3, 0, 4])),
    torch.sgn(torch.tensor([3 + 4j, 0j])),
    torch.signbit(torch.tensor([-0.0, 0.0])),
)
print(
    "copysign",
    torch.copysign(torch.tensor([1, 2]), -1.0),
    torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0])) - 1,
)
print(
    "isin",
    torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4])),
    torch.isin(torch.tensor([1, 2]), 2, invert=True),
)
for make in [
    lambda: torch.tensor([300], dtype=torch.uint8),
    lambda: torch.tensor([2**31], dtype=torch.int32),
    lambda: torch.tensor([2**63]),
    lambda: torch.full((2,), 3e9, dtype=torch.int32),
    lambda: torch.zeros(2, dtype=torch.int8).masked_fill_(torch.tensor([True, False]), 200),
    lambda: torch.div(torch.tensor([7]), 2, rounding_mode="bad"),
    lambda: torch.tensor([1.5]) & 1,
    lambda: torch.tensor([True]) // torch.tensor([True]),
    lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0),
]:
    try:
        print("ok", make())
    except (RuntimeError, ValueError) as e:
        print(isinstance(e, RuntimeError), isinstance(e, NotImplementedError), e)
print("wraps", torch.tensor([-1, 255], dtype=torch.uint8), torch.zeros(2, dtype=torch.int8).fill_(torch.tensor(200)))
print("iinfo", torch.iinfo(torch.int64), torch.iinfo(torch.int8), torch.tensor([-4.0, 4.0, -0.0]) % 2)
