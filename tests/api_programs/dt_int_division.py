"""Integer division as index arithmetic meets it: //, div rounding modes, remainder vs fmod, division by zero."""

import torch


def show(tag, t):
    print(f"{tag:<22}", t.tolist(), t.dtype)


a = torch.tensor([7, -7, 7, -7, 0, 1, -1])
b = torch.tensor([3, 3, -3, -3, 5, -4, 4])
show("a // b", a // b)
show("floor_divide", torch.floor_divide(a, b))
show("div floor", torch.div(a, b, rounding_mode="floor"))
show("div trunc", torch.div(a, b, rounding_mode="trunc"))
show("div true", torch.div(a, b))
show("a / b", a / b)
show("true_divide", torch.true_divide(a, b))
show("remainder", torch.remainder(a, b))
show("a % b", a % b)
show("fmod", torch.fmod(a, b))
# divmod identity a == (a // b) * b + a % b
print("floor identity", torch.equal((a // b) * b + a % b, a))
print("trunc identity", torch.equal(torch.div(a, b, rounding_mode="trunc") * b + torch.fmod(a, b), a))

# scalar operands on either side
show("a // 2", a // 2)
show("a // -2", a // -2)
show("-9 // t", -9 // torch.tensor([2, -2, 4]))
show("10 % t", 10 % torch.tensor([3, -3, 4]))
show("a % 2.5", a % 2.5)
show("fmod(a, 2.5)", torch.fmod(a, 2.5))
show("div(a, 2, floor)", torch.div(a, 2, rounding_mode="floor"))

# small integer dtypes keep their dtype
i8 = torch.tensor([-128, -7, 7, 127], dtype=torch.int8)
show("i8 // 2", i8 // 2)
show("i8 // -1", i8 // -1)
show("i8 % 3", i8 % 3)
show("i8 fmod -3", torch.fmod(i8, -3))
show("i8 div trunc 4", torch.div(i8, 4, rounding_mode="trunc"))
show("i8 / 4", i8 / 4)
u8 = torch.tensor([0, 5, 200, 255], dtype=torch.uint8)
show("u8 // 7", u8 // 7)
show("u8 % 7", u8 % 7)
show("u8 // i8", u8 // torch.tensor([3, -3, 3, -3], dtype=torch.int8))
i16 = torch.tensor([-300, 300], dtype=torch.int16)
show("i16 // u8", i16 // torch.tensor([7, 7], dtype=torch.uint8))

# floats: floor of negative quotients, signed zeros, remainder sign follows divisor
f = torch.tensor([7.5, -7.5, 7.5, -7.5, -0.0, 5.0])
g = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 0.0])
show("f // g", f // g)
show("div floor f", torch.div(f, g, rounding_mode="floor"))
show("div trunc f", torch.div(f, g, rounding_mode="trunc"))
show("remainder f", torch.remainder(f, g))
show("fmod f", torch.fmod(f, g))
print("signbit of -0.0 // 3", torch.signbit(torch.tensor([-0.0]) // 3).item())
print("inf / inf", (torch.tensor([float("inf")]) / float("inf")).item())
print("1 / 0 float", (torch.tensor([1.0, -1.0, 0.0]) / 0).tolist())

# integer division by zero: floor/trunc raise, true division gives inf/nan
for tag, fn in [
    ("//", lambda: torch.tensor([1, 2]) // torch.tensor([0, 1])),
    ("div floor", lambda: torch.div(torch.tensor([4]), 0, rounding_mode="floor")),
    ("div trunc", lambda: torch.div(torch.tensor([4]), torch.tensor([0]), rounding_mode="trunc")),
    ("remainder", lambda: torch.remainder(torch.tensor([3]), 0)),
    ("fmod", lambda: torch.fmod(torch.tensor([3]), torch.tensor([0]))),
    ("u8 //", lambda: torch.tensor([3], dtype=torch.uint8) // 0),
]:
    try:
        print("int zero", tag, fn().tolist())
    except RuntimeError as e:
        print("int zero", tag, type(e).__name__, e)
show("int / 0", torch.tensor([1, 0, -1]) / 0)

# bad rounding mode
try:
    torch.div(a, b, rounding_mode="round")
except RuntimeError as e:
    print("bad mode", type(e).__name__, e)

# in-place division on integer tensors
c = torch.tensor([9, -9, 10])
c //= 4
show("c //= 4", c)
c.div_(2, rounding_mode="floor")
show("div_ floor", c)
try:
    c /= 2
except RuntimeError as e:
    print("int /= ", type(e).__name__, e)
d = torch.tensor([9, -9, 10])
d %= 4
show("d %= 4", d)

# typical use: flat index -> (row, col) and batching
flat = torch.tensor([0, 5, 11, 17, 23])
rows, cols = flat // 6, flat % 6
print("unravel", rows.tolist(), cols.tolist(), torch.unravel_index(flat, (4, 6)))
n, bs = 23, 5
print("num batches", -(-n // bs), (n + bs - 1) // bs, torch.tensor(n).div(bs, rounding_mode="floor").item())
