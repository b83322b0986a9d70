"""numpy scalars meeting tensors in data code: `t * np.float32(2.5)` and `np.float64(2.0) * t` (which side wins,
Tensor or ndarray, and the result dtype), numpy ints, unsigned ints and np.bool_ (which PyTorch's argument parser
reads as a floating-point number), reductions that return numpy scalars fed back into torch ops, numpy scalars as
sizes, dims and fill values, and the Python types that .item() and .tolist() hand back."""

import numpy as np
import torch

torch.set_printoptions(precision=4)


def rounded(v):
    if isinstance(v, list):
        return [rounded(e) for e in v]
    return round(v, 4) if isinstance(v, float) else v


def show(name, r):
    if isinstance(r, torch.Tensor):
        print(f"{name:<22} Tensor  {str(r.dtype):<14} {rounded(r.tolist())}")
    elif isinstance(r, np.ndarray | np.generic):
        print(f"{name:<22} {type(r).__name__:<7} {str(r.dtype):<14} {rounded(r.tolist())}")
    else:
        print(f"{name:<22} {type(r).__name__:<7} {r}")


def attempt(name, fn):
    try:
        show(name, fn())
    except Exception as e:
        print(f"{name:<22} {type(e).__name__}: {str(e).splitlines()[0]}")


xf = torch.tensor([0.5, 1.5, -2.0])
xi = torch.tensor([1, 2, 3])
xh = torch.tensor([1.0, 2.0], dtype=torch.float16)
xb = torch.tensor([True, False, True])

print("-- tensor op numpy scalar")
for s in [np.float32(2.5), np.float64(2.5), np.float16(2.5), np.int64(3), np.int32(3), np.uint8(3)]:
    tag = type(s).__name__
    show(f"xf*{tag}", xf * s)
    show(f"xi*{tag}", xi * s)
    show(f"xh+{tag}", xh + s)
    show(f"xi//{tag}", xi // s)
    show(f"xi>{tag}", xi > s)

print("-- numpy scalar op tensor (the reflected operators)")
for s in [np.float32(2.5), np.float64(2.5), np.int64(3)]:
    tag = type(s).__name__
    show(f"{tag}*xf", s * xf)
    show(f"{tag}-xi", s - xi)
    show(f"{tag}/xi", s / xi)
    show(f"{tag}**xf", s ** xf)
    show(f"{tag}<xi", s < xi)

print("-- np.bool_ reads as a float")
show("xf*bool_", xf * np.bool_(True))
show("xi*bool_", xi * np.bool_(True))
show("bool_*xi", np.bool_(False) + xi)
show("xb==bool_", xb == np.bool_(True))
show("xb+bool_", xb + np.bool_(True))
show("where(bool_)", torch.where(xb, np.bool_(True), 0))
show("result_type", torch.result_type(xi, np.bool_(True)))
show("full(bool_)", torch.full((2,), np.bool_(True)))
show("masked_fill(bool_)", xi.masked_fill(xb, np.bool_(False)))
attempt("xb&bool_", lambda: xb & np.bool_(True))
attempt("xi.mul_(bool_)", lambda: xi.clone().mul_(np.bool_(True)))
show("xb&True", xb & True)

print("-- numpy reductions back into torch")
rng = np.random.default_rng(7)
data = rng.normal(3.0, 2.0, size=(64, 3)).astype(np.float32)
x = torch.from_numpy(data)
mu, sd = data.mean(axis=0), data.std(axis=0)
show("np mean", mu.round(4))
z = (x - mu) / sd
show("z dtype/mean", z.mean(0).abs().lt(1e-5))
scale = data.max()  # a np.float32
show("x/np.float32", (x / scale).max().reshape(1))
total = np.float64(data.sum(dtype=np.float64))
show("x/np.float64", (x.sum() / total).reshape(1))
n = np.int64(len(data))
show("sum/np.int64", (x.sum(0) / n).round(decimals=4))
show("torch.mean", x.mean(0).round(decimals=4))
lr = np.float32(0.1) * np.float32(0.5)
w = torch.ones(3, requires_grad=True)
loss = (w * torch.from_numpy(mu)).sum()
loss.backward()
with torch.no_grad():
    w -= lr * w.grad
show("sgd step", w.detach().round(decimals=4))
print("w after np-lr step", w.dtype, w.requires_grad, w.is_leaf)

print("-- numpy ints as sizes, dims and fills")
rows, cols = np.int64(2), np.int32(3)
show("zeros", torch.zeros(rows, cols))
show("view", torch.arange(6).view(rows, -1))
show("arange", torch.arange(np.int64(4)))
show("sum dim", torch.ones(2, 3).sum(np.int64(1)))
show("full f32", torch.full((2,), np.float32(0.25)))
show("full i32", torch.full((2,), np.int32(7)))
show("linspace", torch.linspace(0, 1, np.int64(5)))
show("clamp", xi.clamp(np.float32(1.5)))
show("clamp max", xi.clamp(max=np.int64(2)))
show("topk", torch.arange(5).topk(np.int64(2)).values)
attempt("zeros(np.float64)", lambda: torch.zeros(np.float64(2)))
attempt("randn(np.float32)", lambda: torch.randn(np.float32(3)))

print("-- what item() and tolist() return")
for t in [torch.tensor(2.5), torch.tensor(3), torch.tensor(True), torch.tensor(1 + 2j),
          torch.tensor(0.1, dtype=torch.float16), torch.tensor(7, dtype=torch.uint8)]:
    v = t.item()
    print(f"{str(t.dtype):<16} item {type(v).__name__:<8} {v!r:<22} tolist {type(t.tolist()).__name__}")
lst = torch.tensor([[1.5, 2.0]]).tolist()
print("nested tolist", lst, type(lst[0][0]).__name__)
print("float(np.float32(x.sum()))", float(np.float32(torch.tensor([0.1, 0.2]).sum())))
f, i = np.float32(torch.tensor(2.5)), np.int64(torch.tensor(4))
print("np.float32(tensor0)", type(f).__name__, float(f), "np.int64(tensor0)", type(i).__name__, int(i))
print("round(np.float32)", round(np.float32(2.5)), type(round(np.float32(2.675), 2)).__name__)
