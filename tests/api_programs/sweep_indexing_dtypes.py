"""OpInfo-style sweep: indexing, gather/scatter, index_* and masked ops over value dtypes and index dtypes
(int64, int32, uint8/bool masks, float indices), with out-of-range and mismatched-dtype errors."""

import math

import torch

VALUES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64,
          torch.complex64]
INDEX = [torch.int64, torch.int32, torch.int16, torch.uint8, torch.bool, torch.float32]


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


def values(dt):
    base = torch.tensor([[1, 0, 3], [4, 5, 0]])
    return base.bool() if dt == torch.bool else base.to(dt)


def index(dt, vals=(1, 0, 1)):
    if dt == torch.bool:
        return torch.tensor([True, False, True])
    return torch.tensor(list(vals)).to(dt)


print("== advanced indexing by index dtype")
for it in INDEX:
    x = values(torch.float32)
    show(f"x[:, idx {short(it)}]", lambda: x[:, index(it)])
    show(f"x[idx2 {short(it)}]", lambda: x[index(it)[:2]])
    show(f"x.index_select(1, {short(it)})", lambda: x.index_select(1, index(it)))
    show(f"gather {short(it)}", lambda: torch.gather(x, 1, index(it).reshape(1, 3).expand(2, 3)))
    show(f"take {short(it)}", lambda: torch.take(x, index(it)))
print("== gather / scatter by value dtype")
for dt in VALUES:
    x = values(dt)
    idx = torch.tensor([[2, 0], [1, 1]])
    show(f"gather {short(dt)}", lambda: torch.gather(x, 1, idx))
    show(f"scatter src {short(dt)}", lambda: torch.zeros(2, 3, dtype=dt).scatter(1, idx, x[:, :2]))
    show(f"scatter value {short(dt)}", lambda: torch.zeros(2, 3, dtype=dt).scatter(1, idx, 1))
    show(f"scatter_add {short(dt)}", lambda: torch.zeros(2, 3, dtype=dt).scatter_add(1, idx, x[:, :2]))
    show(f"scatter_reduce amax {short(dt)}",
         lambda: torch.zeros(2, 3, dtype=dt).scatter_reduce(1, idx, x[:, :2], "amax", include_self=False))
    show(f"index_add {short(dt)}", lambda: torch.zeros(2, 3, dtype=dt).index_add(1, torch.tensor([0, 0]), x[:, :2]))
    show(f"index_fill {short(dt)}", lambda: x.index_fill(1, torch.tensor([1]), 1))
    show(f"index_copy {short(dt)}", lambda: x.index_copy(0, torch.tensor([1, 0]), x))
    show(f"masked_fill {short(dt)}", lambda: x.masked_fill(x == x[0, 0], 1))
    show(f"masked_select {short(dt)}", lambda: x.masked_select(torch.tensor([True, False, True])))
    show(f"masked_scatter {short(dt)}", lambda: x.masked_scatter(torch.tensor([True, False, True]), x.flip(0)))
    show(f"where {short(dt)}", lambda: torch.where(torch.tensor([True, False, True]), x, x.flip(1)))
    show(f"put_ {short(dt)}", lambda: x.clone().put_(torch.tensor([0, 5]), x[0, :2]))
    show(f"index_put_ accumulate {short(dt)}",
         lambda: x.clone().index_put_((torch.tensor([0, 0]), torch.tensor([1, 1])), x[1, :2], accumulate=True))
print("== mismatched dtypes")
x = values(torch.float32)
show("scatter src int64 into float", lambda: x.scatter(1, torch.tensor([[0]]), torch.tensor([[7]])))
show("scatter_add src float64",
     lambda: x.scatter_add(1, torch.tensor([[0]]), torch.tensor([[7.0]], dtype=torch.float64)))
show("index_add source int", lambda: x.index_add(1, torch.tensor([0]), torch.ones(2, 1, dtype=torch.int64)))
show("index_copy source float64", lambda: x.index_copy(1, torch.tensor([0]), torch.ones(2, 1, dtype=torch.float64)))
show("masked_fill mask int", lambda: x.masked_fill(torch.tensor([1, 0, 1]), 0.0))
show("masked_fill float value into int",
     lambda: values(torch.int64).masked_fill(torch.tensor([True, False, True]), 2.7))
show("masked_fill tensor value 1-d", lambda: x.masked_fill(torch.tensor([True, False, True]), torch.tensor([1.0])))
show("where int cond", lambda: torch.where(torch.tensor([1, 0, 1]), x, 0.0))
show("where scalar promotes", lambda: torch.where(torch.tensor([True, False, True]), values(torch.int32), 2.5))
show("index_put_ values float64",
     lambda: x.clone().index_put_((torch.tensor([0]),), torch.tensor([9.0], dtype=torch.float64)))
show("setitem float64 into int",
     lambda: (lambda y: (y.__setitem__(0, torch.tensor(2.9, dtype=torch.float64)), y)[1])(values(torch.int64)))
show("setitem complex into float", lambda: (lambda y: (y.__setitem__(0, 1j), y)[1])(values(torch.float32)))
print("== out of range")
show("gather index 3", lambda: torch.gather(x, 1, torch.tensor([[3]])))
show("gather index -1", lambda: torch.gather(x, 1, torch.tensor([[-1]])))
show("index_select 5", lambda: x.index_select(1, torch.tensor([5])))
show("index_select 2-d index", lambda: x.index_select(1, torch.tensor([[0]])))
show("x[5]", lambda: x[5])
show("x[:, [0, 3]]", lambda: x[:, [0, 3]])
show("x[-3]", lambda: x[-3])
show("take 6", lambda: torch.take(x, torch.tensor([6])))
show("scatter dim 2", lambda: x.scatter(2, torch.tensor([[0]]), 1.0))
show("gather index rank", lambda: torch.gather(x, 1, torch.tensor([0])))
show("bool mask wrong shape", lambda: x[torch.tensor([True, False])])
show("bool mask 2-d wrong", lambda: x[torch.tensor([[True, False]])])
show("float index", lambda: x[torch.tensor([0.0])])
show("x[True]", lambda: x[True])
show("x[None, ..., 0]", lambda: x[None, ..., 0])
show("x[..., None, 1:]", lambda: x[..., None, 1:])
