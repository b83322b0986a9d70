"""scatter/gather as GNN, loss and sampling code writes them: scatter_ with tensors and scalar values, the legacy
reduce='add'/'multiply', scatter_add_ for segment sums, scatter_reduce in sum/prod/mean/amax/amin with include_self
both ways (empty segments keep the base), a segment softmax and segment argmax built from them, gather for
label picking and top-k re-ordering, take/take_along_dim with negative indices and dim=None, gradients, and the
errors for index shapes, dims and ranges."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        print(f"{name}:", fn())
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


# one-hot via scatter_ with a scalar value, then via a src tensor
y = torch.tensor([2, 0, 3, 3, 1])
print("one_hot:\n", torch.zeros(5, 4).scatter_(1, y[:, None], 1.0))
print("one_hot int via src:\n", torch.zeros(5, 4, dtype=torch.long).scatter(1, y[:, None], torch.ones(5, 1,
                                                                                                      dtype=torch.long)))
# index smaller than src: only the index's extent is read
src = torch.arange(1.0, 13.0).reshape(3, 4)
idx = torch.tensor([[0, 1], [2, 0]])
print("scatter dim0 partial:\n", torch.zeros(3, 4).scatter(0, idx, src))
print("scatter dim1 partial:\n", torch.zeros(3, 4).scatter(1, idx, src))
print("legacy reduce add:\n", torch.ones(2, 3).scatter(1, torch.tensor([[0, 0], [2, 2]]), 2.0, reduce="add"))
print("legacy reduce multiply:\n", torch.full((2, 3), 2.0).scatter(1, torch.tensor([[1, 1], [0, 2]]),
                                                                   torch.tensor([[3.0, 4.0], [5.0, 6.0]]),
                                                                   reduce="multiply"))

# segment operations on node features
x = torch.randn(8, 3)
seg = torch.tensor([0, 0, 1, 1, 1, 3, 3, 0])
segs = seg[:, None].expand(-1, 3)
print("x:\n", x)
print("scatter_add_ sums:\n", torch.zeros(4, 3).scatter_add_(0, segs, x))
for reduce in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        out = torch.full((4, 3), 0.5).scatter_reduce(0, segs, x, reduce=reduce, include_self=inc)
        print(f"scatter_reduce {reduce} include_self={inc}:\n", out)
print("scatter_reduce mean int:", torch.tensor([0, 0, 0]).scatter_reduce(0, torch.tensor([0, 0, 2, 2, 2]),
                                                                         torch.tensor([1, 2, 3, 4, 6]), "mean"))
print("scatter_reduce mean int no self:", torch.tensor([9, 9, 9]).scatter_reduce(0, torch.tensor([0, 0, 2, 2, 2]),
                                                                                 torch.tensor([1, 2, 3, 4, 6]),
                                                                                 "mean", include_self=False))

# segment softmax: subtract the segment max, exponentiate, divide by segment sums
scores = torch.randn(8)
smax = torch.full((4,), float("-inf")).scatter_reduce(0, seg, scores, "amax", include_self=False)
e = (scores - smax[seg]).exp()
den = torch.zeros(4).scatter_add(0, seg, e)
alpha = e / den[seg]
print("scores:", scores)
print("seg max:", smax)
print("seg softmax:", alpha)
print("per-seg sum:", torch.zeros(4).index_add(0, seg, alpha))

# segment argmax via amax then equality
is_max = scores == smax[seg]
pos = torch.arange(8)
arg = torch.full((4,), -1).scatter_reduce(0, seg[is_max], pos[is_max], "amax", include_self=True)
print("seg argmax:", arg)

# gather: pick the logit of the label, re-order by top-k
logits = torch.randn(5, 4)
print("logits:\n", logits)
print("picked:", logits.gather(1, y[:, None]).squeeze(1))
print("nll by gather:", round((-logits.log_softmax(1).gather(1, y[:, None])).mean().item(), 4))
vals, order = logits.topk(2, dim=1)
print("topk vals == gather:", torch.equal(vals, logits.gather(1, order)))
print("gather dim 0:\n", logits.gather(0, torch.tensor([[4, 3, 2, 1], [0, 0, 0, 0]])))
print("gather with narrower index:\n", logits.gather(1, torch.tensor([[0], [1], [2]])))
print("gather negative dim:", torch.gather(torch.arange(6).reshape(2, 3), -1, torch.tensor([[2], [0]])))

# take / take_along_dim
t = torch.arange(12.0).reshape(3, 4)
print("take flat:", torch.take(t, torch.tensor([[0, -1], [5, 7]])))
print("take of transposed:", t.t().take(torch.tensor([1, 2, 3])))
s = torch.argsort(logits, dim=1, descending=True)
print("take_along_dim sorted:\n", torch.take_along_dim(logits, s, dim=1))
print("take_along_dim broadcast:\n", torch.take_along_dim(t, torch.tensor([[3, 0]]), dim=1))
print("take_along_dim broadcast both:\n", torch.take_along_dim(t[:1], torch.tensor([[3], [1]]), dim=1))
print("take_along_dim dim=None:", torch.take_along_dim(t, torch.tensor([11, 0, 5])))
am = t.argmax(dim=0, keepdim=True)
print("take_along_dim argmax:", torch.take_along_dim(t, am, dim=0))

# gradients
w = torch.randn(4, 3, requires_grad=True)
g = w.gather(1, torch.tensor([[0, 0], [2, 1], [1, 1], [0, 2]]))
g.sum().backward()
print("gather grad (dups summed):\n", w.grad)
v = torch.randn(5, requires_grad=True)
r = torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 1, 2, 2]), v, "amax", include_self=False)
r.sum().backward()
print("scatter_reduce amax grad:", v.grad, r.grad_fn.name())
p = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
q = torch.ones(2).scatter_reduce(0, torch.tensor([0, 0, 1, 1]), p, "prod")
q.sum().backward()
print("scatter_reduce prod grad:", p.grad)
pz = torch.tensor([2.0, 0.0, 4.0, 0.0, 0.0, 3.0], requires_grad=True)
bz = torch.tensor([1.0, 0.0, 5.0], requires_grad=True)
qz = bz.scatter_reduce(0, torch.tensor([0, 0, 1, 1, 1, 2]), pz, "prod")
(qz * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("prod grad through zeros:", pz.grad, bz.grad)
ir_base = torch.ones(3, 2, requires_grad=True)
ir = ir_base.clone()
ir.index_reduce_(0, torch.tensor([0, 0, 2]), torch.tensor([[2.0, 0.0], [3.0, 1.0], [0.5, 4.0]]), "prod")
ir.sum().backward()
print("index_reduce_ in place:", ir.grad_fn.name(), ir_base.grad)
m = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
mm = torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), m, "mean", include_self=False)
mm.sum().backward()
print("scatter_reduce mean grad:", m.grad)

# errors
base = torch.zeros(3, 4)
attempt("gather index too big", lambda: base.gather(1, torch.tensor([[4]])))
attempt("gather rank mismatch", lambda: base.gather(1, torch.tensor([0, 1])))
attempt("gather bad size", lambda: base.gather(1, torch.zeros(4, 1, dtype=torch.long)))
attempt("gather int32 index", lambda: base.gather(1, torch.tensor([[0]], dtype=torch.int32)))
attempt("scatter index out of range", lambda: base.scatter(0, torch.tensor([[3]]), 1.0))
attempt("scatter src dtype", lambda: base.scatter(0, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.float64)))
attempt("scatter_reduce bad reduce", lambda: base.scatter_reduce(0, torch.tensor([[0]]), torch.ones(1, 1), "max"))
attempt("scatter_add bad dim", lambda: base.scatter_add(2, torch.tensor([[0]]), torch.ones(1, 1)))
attempt("take out of range", lambda: torch.take(base, torch.tensor([12])))
attempt("take_along_dim shapes", lambda: torch.take_along_dim(base, torch.tensor([[0, 1]]), dim=0).shape)
attempt("take_along_dim 3-d shapes", lambda: torch.take_along_dim(torch.zeros(2, 3, 4), torch.zeros(3, 1, 5,
                                                                  dtype=torch.long), dim=-1).shape)
attempt("take_along_dim bad rank", lambda: torch.take_along_dim(base, torch.tensor([0]), dim=0))
