"""uint16/uint32/uint64 tensors as hashing and image code uses them: creation with wraparound, the ops
PyTorch's CPU build has for them, the ones it refuses (and how the errors read), and promotion rules."""

import torch

for dt in (torch.uint16, torch.uint32, torch.uint64):
    info = torch.iinfo(dt)
    print(dt, info.bits, info.min, info.max)
    x = torch.tensor([[3, 0], [info.max, 2]], dtype=dt)
    print(x)
    print("sum", x.sum().item(), x.sum().dtype, "cumsum", x.cumsum(1).tolist(), "cumprod", x.cumprod(0).tolist())
    print("nansum", x.nansum(1).tolist(), "prod", x.prod().dtype)
    print("bitwise", (x & 0xF0F0).tolist(), (x | 1).tolist(), (x ^ x.flip(0)).tolist())
    print("flip rows", x.flip(0).tolist(), "sort", torch.sort(x.flatten()).values.tolist())
    print("unique", torch.unique(x).tolist(), x.flatten().unique_consecutive(return_counts=True)[1].tolist())
    print("isclose", torch.isclose(x, torch.tensor(2, dtype=dt), atol=1).tolist(), "eq", (x == 3).tolist())
    print("float math", x.float().sqrt().round(decimals=2).tolist(), (x / 2).dtype, x.double().mean().item())
    print("casts", x.long().tolist(), x.to(torch.int16).tolist(), x.to(torch.uint8).tolist())
    for name, fn in [
        ("add", lambda: x + 1),
        ("lshift", lambda: x << 1),
        ("max", lambda: x.max()),
        ("amax", lambda: x.amax()),
        ("max dim", lambda: x.max(1)),
        ("aminmax", lambda: x.aminmax()),
        ("clamp", lambda: x.clamp(min=1)),
        ("floor_divide", lambda: x // 2),
        ("sum into", lambda: x.sum(dtype=dt)),
        ("cumsum into", lambda: torch.tensor([1, 2]).cumsum(0, dtype=dt)),
        ("var", lambda: x.var()),
        ("flip last", lambda: x.flip(1)),
        ("scatter value", lambda: x.scatter(0, torch.tensor([[0]]), 7)),
        ("nonzero", lambda: x.nonzero()),
        ("isin", lambda: torch.isin(x, x)),
        ("mean", lambda: x.mean()),
        ("pow neg", lambda: x**-1),
        ("square", lambda: x.square()),
        ("neg", lambda: -x),
    ]:
        try:
            r = fn()
            print(" ", name, "ok", r.tolist() if isinstance(r, torch.Tensor) else r)
        except (RuntimeError, NotImplementedError) as e:
            print(" ", name, type(e).__name__, e)

print(torch.tensor([-1, -2], dtype=torch.uint16), torch.tensor(-3, dtype=torch.uint32))
print(torch.tensor([2**64 - 1], dtype=torch.uint64).item(), torch.tensor([2**63], dtype=torch.uint64) == 2**63)
try:
    torch.tensor([2**63], dtype=torch.uint64) > 0
except NotImplementedError as e:
    print(type(e).__name__, e)
for data, dt in [
    ([-65536], torch.uint16),
    ([-0.5], torch.uint8),
    ([1.5], torch.uint64),
    ([-1], torch.uint64),
    ([2**63], torch.uint32),
    ([float("nan")], torch.uint16),
    ([2**64], torch.uint64),
]:
    try:
        print(torch.tensor(data, dtype=dt))
    except (RuntimeError, ValueError, TypeError, OverflowError) as e:
        print(data, dt, type(e).__name__, e)
for a, b in [
    (torch.uint16, torch.float16),
    (torch.uint32, torch.float64),
    (torch.uint16, torch.int32),
    (torch.uint8, torch.uint16),
]:
    try:
        print(a, b, torch.promote_types(a, b))
    except RuntimeError as e:
        print(a, b, type(e).__name__, e)
h = torch.tensor([0xDEADBEEF, 0x12345678], dtype=torch.uint32)
print("uint32 bytes", h.view(torch.uint8).tolist(), h.view(torch.int32).tolist(), h.view(torch.uint16).tolist())
print("as float", torch.tensor([0x3F800000], dtype=torch.uint32).view(torch.float32).item())
u = torch.tensor([3, 1], dtype=torch.uint32)
print("pow 0/1/0.5", (u**0).tolist(), (u**1).dtype, (u**0.5).round(decimals=4).tolist(), torch.pow(1, u).tolist())
print("0-dim operand", (u * torch.tensor(2)).tolist(), (u * torch.tensor(2)).dtype, (u & torch.tensor(1)).tolist())
for fn in [lambda: u**2, lambda: u + torch.tensor(1), lambda: u * torch.tensor([2])]:
    try:
        fn()
    except (RuntimeError, NotImplementedError) as e:
        print(type(e).__name__, e)
