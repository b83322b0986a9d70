"""out= and in-place semantics of the docstrings' ops: alpha/rounding kwargs, result dtypes into out, in-place
broadcasting and casting rules, and their errors."""

import torch

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([10.0, 20.0, 30.0])
print("add alpha", torch.add(a, b, alpha=10), torch.sub(a, b, alpha=0.5), torch.add(torch.tensor([1, 2]), 3, alpha=2))
print("rsub", torch.rsub(a, 1), torch.rsub(a, b, alpha=2), 1 - a)
out = torch.empty(3)
r = torch.add(a, b, out=out)
print("out is result", r is out, out, out.dtype)
o64 = torch.empty(3, dtype=torch.float64)
torch.mul(a, b, out=o64)
print("out wider dtype", o64, o64.dtype)
oi = torch.empty(2, dtype=torch.int64)
torch.floor_divide(torch.tensor([7, -7]), 2, out=oi)
print("out int", oi, torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor", out=torch.empty(2, dtype=torch.int64)))
ob = torch.empty(3, dtype=torch.bool)
torch.gt(a, 1.5, out=ob)
print("out bool", ob, torch.eq(a, 2, out=torch.empty(3)).dtype)
oe = torch.empty(0)
torch.exp(torch.zeros(2, 2), out=oe)
print("out empty resized", oe.shape, oe)
ms = torch.empty(2, dtype=torch.int64)
torch.sum(torch.tensor([[1, 2], [3, 4]]), 0, out=ms)
print(
    "reduction out",
    ms,
    (
        torch.max(
            torch.tensor([[1, 5], [7, 2]]),
            1,
            out=(torch.empty(2, dtype=torch.int64), torch.empty(2, dtype=torch.int64)),
        )
    ),
)
amn, amx = torch.empty(2), torch.empty(2)
print("aminmax out", torch.aminmax(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1, out=(amn, amx)), amn)
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
t.add_(torch.tensor([10.0, 20.0]))
print("inplace broadcast", t)
t.mul_(0.5).sub_(1, alpha=2)
print("inplace chain", t, t._version)
i = torch.tensor([1, 2, 3])
i.mul_(2)
i += 1
print("int inplace", i, i.dtype)
f = torch.zeros(3)
f += torch.tensor([1, 2, 3])
f *= torch.tensor(True)
print("float += int", f, f.dtype)
bb = torch.tensor([True, False])
bb |= torch.tensor([False, True])
print("bool |=", bb)
print(
    "clamp_ etc",
    torch.tensor([-2.0, 5.0]).clamp_(0, 1),
    torch.tensor([4.0]).pow_(0.5),
    torch.tensor([1.5, -1.5]).round_(),
)
print(
    "copy_ casts",
    torch.zeros(2, dtype=torch.int32).copy_(torch.tensor([1.7, -2.7])),
    torch.zeros(2).copy_(torch.tensor([True, False])),
)
print("copy_ broadcast", torch.zeros(2, 3).copy_(torch.tensor([1.0, 2.0, 3.0])))
x = torch.arange(6.0).reshape(2, 3)
x[:, 1] += 100
x[0] *= -1
print("indexed inplace", x)
x.masked_fill_(x > 50, 0).clamp_(min=-1)
print("masked chain", x)
y = torch.zeros(5)
y[torch.tensor([0, 0, 1])] += 1
print("index += duplicates", y, torch.zeros(5).index_add_(0, torch.tensor([0, 0, 1]), torch.ones(3)))
for bad in [
    lambda: torch.tensor([1, 2]).add_(1.5),
    lambda: torch.tensor([1, 2]).div_(2),
    lambda: torch.zeros(3).add_(torch.zeros(2, 3)),
    lambda: torch.zeros(1).add_(torch.zeros(3)),
    lambda: torch.add(a, b, out=torch.empty(3, dtype=torch.int64)),
    lambda: torch.add(torch.tensor([1]), torch.tensor([2]), alpha=0.5),
    lambda: torch.add(a, b, alpha=True),
    lambda: torch.sub(torch.tensor([True]), torch.tensor([True])),
    lambda: torch.gt(a, 1.5, out=torch.empty(3, dtype=torch.int64)),
    lambda: torch.tensor([True]).add_(1),
    lambda: torch.exp(a, out=a[:2]),
    lambda: torch.sum(torch.full((2, 2), 1.5), 0, out=torch.empty(2, dtype=torch.int64)),
    lambda: torch.prod(torch.full((2,), 1.5), 0, out=torch.empty((), dtype=torch.int64)),
    lambda: torch.cumsum(torch.full((2,), 1.5), 0, out=torch.empty(2, dtype=torch.int64)),
    lambda: torch.mean(torch.ones(2), 0, out=torch.empty((), dtype=torch.int64)),
    lambda: torch.ones(2).expand(3, 2).add_(1),
    lambda: torch.zeros(2, dtype=torch.int32).copy_(torch.tensor([1 + 1j])),
    lambda: torch.tensor([1.0]).floor_divide_(0.0),
    lambda: torch.tensor([1]).floor_divide_(0),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
