"""GitHub issues about torch.where and masked ops: result dtypes with Python scalars and 0-dim tensors, the
NaN gradient of where(x > 0, sqrt(x), 0) and its double-where fix, masked_fill/masked_scatter/index_fill dtype
and broadcasting rules, clamp with tensor bounds (min > max), and their gradients at ties and boundaries."""

import numpy as np
import torch


def r4(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        vals = r4(out) if out.dtype.is_floating_point else out.flatten().tolist()
        print(f"{name}: {out.dtype} {tuple(out.shape)} {vals}")
    else:
        print(f"{name}: {out}")


cond = torch.tensor([True, False, True])
f32 = torch.tensor([1.5, -2.0, 3.0])
i64 = torch.tensor([1, 2, 3])
i8 = torch.tensor([1, 2, 3], dtype=torch.int8)
show("where int int", lambda: torch.where(cond, 1, 0))
show("where float int", lambda: torch.where(cond, 1.0, 0))
show("where bool bool", lambda: torch.where(cond, True, False))
show("where f32 scalar", lambda: torch.where(cond, f32, 0))
show("where f32 float scalar", lambda: torch.where(cond, f32, 0.5))
show("where i8 int scalar", lambda: torch.where(cond, i8, 1000))
show("where i8 float scalar", lambda: torch.where(cond, i8, 0.5))
show("where i64 f32", lambda: torch.where(cond, i64, f32))
show("where i8 0-dim i64", lambda: torch.where(cond, i8, torch.tensor(5)))
show("where f32 0-dim f64", lambda: torch.where(cond, f32, torch.tensor(5.0, dtype=torch.float64)))
show("where f16 f32", lambda: torch.where(cond, f32.half(), f32))
show("where complex", lambda: torch.where(cond, f32, 1j).dtype)
show("where broadcast", lambda: torch.where(torch.tensor([[True], [False]]), f32, -f32))
show("where int cond", lambda: torch.where(torch.tensor([1, 0, 1]), f32, 0.0))
show("where uint8 cond", lambda: torch.where(torch.tensor([1, 0, 1], dtype=torch.uint8), f32, 0.0))
show("where shape", lambda: torch.where(cond, torch.ones(2), 0.0))
show("tensor.where", lambda: f32.where(f32 > 0, torch.tensor(0.0)))
show("where out", lambda: torch.where(cond, f32, -f32, out=torch.empty(3)))

# the NaN gradient of where
x = torch.tensor([4.0, -1.0, 0.0], requires_grad=True)
y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
y.sum().backward()
show("where sqrt grad", lambda: x.grad)
x.grad = None
safe = torch.where(x > 0, x, torch.ones_like(x))
y = torch.where(x > 0, torch.sqrt(safe), torch.zeros_like(x))
y.sum().backward()
show("double where grad", lambda: x.grad)
x.grad = None
y = torch.where(x > 0, x.clamp(min=1e-12).log(), torch.tensor(0.0))
y.sum().backward()
show("clamped log grad", lambda: x.grad)
x.grad = None
y = (x.abs() + 1e-12).sqrt()
y.sum().backward()
show("abs sqrt grad", lambda: x.grad)
x.grad = None
torch.nan_to_num(torch.log(x)).sum().backward()
show("nan_to_num log grad", lambda: x.grad)
x.grad = None
(x / x).nansum().backward()
show("nansum grad", lambda: x.grad)
x.grad = None
y = x.masked_fill(x <= 0, 0.0).sqrt()
y.sum().backward()
show("masked_fill sqrt grad", lambda: x.grad)

# masked_fill and friends
m = torch.tensor([[True, False], [False, True]])
a = torch.arange(4).reshape(2, 2)
show("masked_fill int float value", lambda: a.masked_fill(m, 2.7))
show("masked_fill int 0-dim float", lambda: a.masked_fill(m, torch.tensor(2.7)))
show("masked_fill 1-d value", lambda: a.masked_fill(m, torch.tensor([1])))
show("masked_fill broadcast mask", lambda: a.masked_fill(torch.tensor([True, False]), -1))
show("masked_fill mask too big", lambda: torch.zeros(2).masked_fill(m, 1.0))
show("masked_fill int mask", lambda: a.masked_fill(torch.tensor([[1, 0], [0, 1]]), 0))
show("masked_fill -inf", lambda: torch.zeros(2, 2).masked_fill(m, float("-inf")))
show("masked_fill_ inf int", lambda: a.clone().masked_fill_(m, float("inf")))
show("masked_scatter", lambda: torch.zeros(2, 3).masked_scatter(torch.tensor([[True, False, True], [False, True,
                                                                                                     False]]),
                                                              torch.arange(1.0, 7.0)))
show("masked_scatter short", lambda: torch.zeros(3).masked_scatter(torch.tensor([True, True, True]),
                                                                   torch.ones(2)))
show("index_fill", lambda: torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), 7.5))
show("index_fill int value", lambda: torch.zeros(2, 3, dtype=torch.long).index_fill(0, torch.tensor([1]), 2.9))
show("index_fill 0-dim", lambda: torch.zeros(3).index_fill(0, torch.tensor(1), torch.tensor(4.0)))
show("index_fill 1-d value", lambda: torch.zeros(3).index_fill(0, torch.tensor(1), torch.tensor([4.0])))
v = torch.tensor(3.0, requires_grad=True)
w = torch.ones(4, requires_grad=True)
out = w.masked_fill(torch.tensor([True, False, True, False]), v)
out.sum().backward()
show("masked_fill grad value", lambda: v.grad)
show("masked_fill grad input", lambda: w.grad)
show("masked_fill fn", lambda: type(out.grad_fn).__name__)

# clamp with tensor bounds
lo = torch.tensor([0.0, 2.0, -1.0])
hi = torch.tensor([1.0, 1.0, 5.0])
z = torch.tensor([0.5, 1.5, 7.0], requires_grad=True)
show("clamp tensors", lambda: torch.clamp(z, lo, hi))
show("clamp min>max scalar", lambda: torch.clamp(z, min=2.0, max=1.0))
show("clamp no bounds", lambda: torch.clamp(z))
show("clamp int tensor float bounds", lambda: torch.clamp(i64, min=torch.tensor(1.5)))
show("clamp_ int float", lambda: i64.clone().clamp_(min=1.5))
show("clamp bool", lambda: torch.clamp(cond, min=0))
show("clamp broadcast bounds", lambda: torch.clamp(torch.zeros(2, 3), min=torch.tensor([[1.0], [2.0]])))
torch.clamp(z, lo, hi).sum().backward()
show("clamp grad", lambda: z.grad)
z.grad = None
torch.clamp(z, min=0.5, max=7.0).sum().backward()
show("clamp grad at bounds", lambda: z.grad)
z.grad = None
torch.maximum(z, torch.tensor([0.5, 0.0, 7.0])).sum().backward()
show("maximum grad ties", lambda: z.grad)
z.grad = None
torch.max(torch.stack([z, z.detach() * 0 + 0.5])).backward()
show("max all grad", lambda: z.grad)
z.grad = None
torch.amax(torch.tensor([[1.0, 3.0], [3.0, 0.0]], requires_grad=True) * z[:1], dim=(0, 1)).backward()
show("amax ties grad", lambda: z.grad)
z.grad = None
t = torch.tensor([2.0, 2.0, 1.0], requires_grad=True)
t.max().backward()
show("max ties grad", lambda: t.grad)
t.grad = None
t.max(0).values.backward()
show("max dim ties grad", lambda: t.grad)
t.grad = None
t.amax().backward()
show("amax grad", lambda: t.grad)
t.grad = None
t.median().backward()
show("median grad", lambda: t.grad)
t.grad = None
torch.relu(t - 2).sum().backward()
show("relu at 0 grad", lambda: t.grad)
t.grad = None
torch.abs(t - 2).sum().backward()
show("abs at 0 grad", lambda: t.grad)
t.grad = None
torch.nn.functional.hardtanh(t - 3).sum().backward()
show("hardtanh boundary grad", lambda: t.grad)
print("np sanity", np.sqrt(np.float32(4.0)))
