"""GitHub issues about writes through duplicate indices: a[idx] += v versus index_put_(accumulate=True) and
index_add_, scatter_/scatter_add_/scatter_reduce_ with include_self and every reduce, index_reduce_, their
gradients, and the errors for out-of-range indices or mismatched dtypes."""

import numpy as np
import torch

rng = np.random.default_rng(5)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: {out.dtype} {tuple(out.shape)} {out.tolist()}")
    else:
        print(f"{name}: {out}")
    return out


idx = torch.tensor([0, 2, 2, 4, 0, 0])
vals = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])

# += through advanced indexing takes one of the duplicates' sums only once
a = torch.zeros(5)
a[idx] += 1
show("a[idx] += 1", lambda: a)
b = torch.zeros(5)
b.index_put_((idx,), torch.ones(6), accumulate=True)
show("index_put_ accumulate", lambda: b)
c = torch.zeros(5)
c.index_add_(0, idx, vals)
show("index_add_", lambda: c)
show("index_add alpha", lambda: torch.zeros(5).index_add(0, idx, vals, alpha=-2))
show("bincount", lambda: torch.bincount(idx, minlength=6))
show("bincount weights", lambda: torch.bincount(idx, weights=vals))
show("index_put_ accumulate int", lambda: torch.zeros(3, dtype=torch.long).index_put_(
    (torch.tensor([1, 1, 1]),), torch.tensor([2, 3, 4]), accumulate=True))
show("index_put_ 2d", lambda: torch.zeros(3, 3).index_put_(
    (torch.tensor([0, 0, 1]), torch.tensor([1, 1, 2])), torch.tensor([1.0, 2.0, 3.0]), accumulate=True))
show("index_put_ bool mask", lambda: torch.zeros(4).index_put_((torch.tensor([True, False, True, False]),),
                                                                torch.tensor(7.0)))
show("index_put_ broadcast value", lambda: torch.zeros(2, 3).index_put_((torch.tensor([1]),), torch.tensor([1.0, 2.0,
                                                                                                             3.0])))
show("index_put_ out of range", lambda: torch.zeros(3).index_put_((torch.tensor([3]),), torch.tensor(1.0)))
show("index_put_ negative", lambda: torch.zeros(3).index_put_((torch.tensor([-1]),), torch.tensor(1.0)))
show("index_put_ dtype", lambda: torch.zeros(3).index_put_((torch.tensor([0]),), torch.tensor([1], dtype=torch.long)))
show("index_put_ float index", lambda: torch.zeros(3).index_put_((torch.tensor([0.0]),), torch.tensor(1.0)))
show("index_add_ dtype", lambda: torch.zeros(3).index_add_(0, torch.tensor([0]), torch.tensor([1.0],
                                                                                             dtype=torch.float64)))
show("index_add_ int32 index", lambda: torch.zeros(3).index_add_(0, torch.tensor([0, 0], dtype=torch.int32),
                                                                  torch.ones(2)))
show("index_add_ size", lambda: torch.zeros(3).index_add_(0, torch.tensor([0, 1]), torch.ones(3)))

# scatter family
src = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
sidx = torch.tensor([[0, 1, 0], [1, 1, 0]])
show("scatter_ src", lambda: torch.zeros(2, 3).scatter_(0, torch.tensor([[0, 1, 0]]), src[:1]))
show("scatter_ value", lambda: torch.zeros(2, 3).scatter_(1, torch.tensor([[2], [0]]), 9.0))
show("scatter_add_", lambda: torch.zeros(2, 3).scatter_add_(0, sidx, src))
show("scatter reduce add", lambda: torch.ones(2, 3).scatter_(0, sidx, src, reduce="add"))
show("scatter reduce multiply", lambda: torch.full((2, 3), 2.0).scatter_(0, sidx, src, reduce="multiply"))
show("scatter value reduce", lambda: torch.ones(2, 3).scatter_(0, sidx, 3.0, reduce="add"))
show("scatter bad reduce", lambda: torch.ones(2, 3).scatter_(0, sidx, src, reduce="max"))
show("scatter idx too big", lambda: torch.zeros(2, 3).scatter_(0, torch.tensor([[2, 0, 0]]), src))
show("scatter idx dtype", lambda: torch.zeros(2, 3).scatter_(0, torch.tensor([[0, 0, 0]], dtype=torch.int32), src))
show("scatter src dtype", lambda: torch.zeros(2, 3).scatter_(0, sidx, src.double()))
show("scatter dims", lambda: torch.zeros(2, 3).scatter_(0, torch.tensor([0, 1]), src))
show("scatter index larger than src", lambda: torch.zeros(4, 3).scatter_(0, torch.zeros(3, 3, dtype=torch.long),
                                                                         src))

seg = torch.tensor([0, 1, 0, 1, 3, 3])
x = torch.tensor([5.0, -1.0, 2.0, 7.0, 3.0, -4.0])
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        show(f"scatter_reduce {reduce} self={include_self}",
             lambda: torch.full((5,), 10.0).scatter_reduce(0, seg, x, reduce=reduce, include_self=include_self))
show("scatter_reduce int mean", lambda: torch.tensor([1, 1, 1, 1]).scatter_reduce(
    0, torch.tensor([0, 0, 1, 1]), torch.tensor([2, 3, 4, 4]), "mean"))
show("scatter_reduce int mean no self", lambda: torch.tensor([1, 1, 1, 1]).scatter_reduce(
    0, torch.tensor([0, 0, 1, 1]), torch.tensor([2, 3, 4, 5]), "mean", include_self=False))
show("scatter_reduce bad", lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "max"))
show("scatter_reduce 2d amax", lambda: torch.zeros(2, 2).scatter_reduce(1, torch.tensor([[0, 0, 1], [1, 1, 1]]),
                                                                        torch.tensor([[1.0, 4.0, 2.0],
                                                                                      [-3.0, -1.0, -2.0]]),
                                                                        "amax", include_self=False))

# index_reduce_
for reduce in ["prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        show(f"index_reduce {reduce} self={include_self}",
             lambda: torch.full((4, 2), 2.0).index_reduce_(0, torch.tensor([0, 0, 3]),
                                                           torch.tensor([[1.0, 3.0], [5.0, -1.0], [4.0, 0.5]]),
                                                           reduce, include_self=include_self))

# gradients through accumulate and scatter_reduce
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = torch.zeros(2).index_put((torch.tensor([0, 0, 1]),), w * w, accumulate=True)
out.backward(torch.tensor([1.0, 10.0]))
show("grad index_put accumulate", lambda: w.grad)
w2 = torch.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
r = torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 0, 1]), w2, "amax", include_self=False)
r.sum().backward()
show("amax value", lambda: r.detach())
show("grad amax ties", lambda: w2.grad)
w3 = torch.tensor([2.0, 4.0, 1.0], requires_grad=True)
base = torch.tensor([1.0, 3.0], requires_grad=True)
r3 = base.scatter_reduce(0, torch.tensor([0, 0, 1]), w3, "prod")
r3.sum().backward()
show("prod value", lambda: r3.detach())
show("grad prod src", lambda: w3.grad)
show("grad prod self", lambda: base.grad)
w4 = torch.tensor([2.0, 4.0, 1.0], requires_grad=True)
r4 = torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), w4, "mean", include_self=False)
r4.sum().backward()
show("grad mean", lambda: w4.grad)
w5 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
dup = torch.zeros(3)
dup = dup.index_put((torch.tensor([1, 1, 1]),), w5)
show("index_put no accumulate value in [v0,v1,v2]", lambda: dup[1].item() in (1.0, 2.0, 3.0))
print("types", type(r.grad_fn).__name__, type(out.grad_fn).__name__)
