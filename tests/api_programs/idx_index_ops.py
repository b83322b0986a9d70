"""The index_* family as graph and embedding code uses it: index_put_ with accumulate=True over duplicate
indices (bincount-style histograms, 2-d scatter of edge weights), index_add_ with alpha, index_copy_,
index_fill_ with negative dims, index_reduce_ in prod/mean/amax/amin with and without include_self, index_select
over int32 indices, their out-of-place forms, gradients through them, and the errors for bad sizes and indices."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        out = fn()
        print(f"{name}:", out)
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


# index_put_ with accumulate: a histogram from duplicate indices
labels = torch.randint(0, 5, (40,))
hist = torch.zeros(5, dtype=torch.long)
hist.index_put_((labels,), torch.ones_like(labels), accumulate=True)
print("labels:", labels)
print("hist:", hist, "bincount agrees:", torch.equal(hist, torch.bincount(labels, minlength=5)))

# 2-d accumulate: dense adjacency from an edge list with repeated edges
src = torch.tensor([0, 1, 1, 2, 0, 1, 3])
dst = torch.tensor([1, 2, 2, 0, 1, 2, 3])
w = torch.tensor([0.5, 1.0, 0.25, 2.0, 0.5, 0.125, 3.0])
adj = torch.zeros(4, 4).index_put_((src, dst), w, accumulate=True)
print("adj:\n", adj)
print("no accumulate, distinct edges only:\n", torch.zeros(4, 4).index_put((src[:4:3], dst[:4:3]), w[:4:3]))
print("accumulate with broadcast scalar value:\n",
      torch.zeros(3, 3).index_put_((torch.tensor([0, 0, 2]), torch.tensor([1, 1, 2])), torch.tensor(1.5),
                                   accumulate=True))
print("index_put with a bool mask:\n",
      torch.arange(6.0).reshape(2, 3).index_put_((torch.tensor([[True, False, True], [False, True, False]]),),
                                                  torch.tensor(-1.0)))
print("index_put on int64, accumulate:",
      torch.zeros(4, dtype=torch.int64).index_put_((torch.tensor([3, 3, 3, 0]),), torch.tensor([1, 2, 3, 4]),
                                                  accumulate=True))

# index_add_: segment sums of node features
feat = torch.randn(7, 3)
seg = torch.tensor([0, 0, 1, 2, 2, 2, 1])
sums = torch.zeros(3, 3).index_add_(0, seg, feat)
print("feat:\n", feat)
print("segment sums:\n", sums)
print("alpha=-0.5 along dim 1:\n", torch.ones(2, 4).index_add(1, torch.tensor([3, 0, 3]),
                                                            torch.arange(6.0).reshape(2, 3), alpha=-0.5))
print("index_add int with alpha:", torch.zeros(3, dtype=torch.int32).index_add_(0, torch.tensor([2, 2]),
                                                                               torch.tensor([5, 6], dtype=torch.int32),
                                                                               alpha=2))
counts = torch.zeros(3).index_add_(0, seg, torch.ones(7))
print("segment means:\n", sums / counts[:, None])

# index_copy_ and index_fill_
cp = torch.zeros(5, 2).index_copy_(0, torch.tensor([4, 0, 2]), torch.tensor([[1.0, 1.5], [2.0, 2.5], [3.0, 3.5]]))
print("index_copy_:\n", cp)
print("index_copy dim=-1:\n", torch.zeros(2, 4).index_copy(-1, torch.tensor([1, 3]), torch.ones(2, 2) * 9))
fl = torch.arange(12.0).reshape(3, 4)
print("index_fill_ dim 1:\n", fl.clone().index_fill_(1, torch.tensor([0, -1]), -7.0))
print("index_fill with 0-dim tensor value:\n", fl.index_fill(-2, torch.tensor([1]), torch.tensor(0.25)))
print("index_fill bool:", torch.zeros(4, dtype=torch.bool).index_fill_(0, torch.tensor([1, 2]), True))

# index_reduce_: every reduction, include_self both ways, duplicates
base = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
ix = torch.tensor([0, 2, 0, 3, 2])
vals = torch.tensor([[2.0, -1.0], [0.5, 3.0], [4.0, 10.0], [-6.0, 0.0], [1.0, 1.0]])
for reduce in ("prod", "mean", "amax", "amin"):
    for inc in (True, False):
        r = base.clone().index_reduce_(0, ix, vals, reduce, include_self=inc)
        print(f"index_reduce {reduce} include_self={inc}:\n", r)
print("index_reduce dim 1 int:", torch.tensor([[3, 1, 4]]).index_reduce(1, torch.tensor([0, 0, 2]),
                                                                         torch.tensor([[5, 9, 2]]), "amax"))
print("index_reduce mean int floors:", torch.tensor([10, 10]).index_reduce(0, torch.tensor([0, 0, 1]),
                                                                           torch.tensor([1, 2, 5]), "mean"))

# index_select with int32 and out-of-order indices; gradient flows back with duplicates summed
emb = torch.randn(6, 2, requires_grad=True)
ids = torch.tensor([5, 1, 1, 0], dtype=torch.int32)
picked = emb.index_select(0, ids)
(picked * torch.arange(1.0, 5.0)[:, None]).sum().backward()
print("picked:\n", picked)
print("emb.grad:\n", emb.grad)
x = torch.ones(4, requires_grad=True)
y = torch.zeros(3).index_add(0, torch.tensor([0, 1, 0, 2]), x * torch.tensor([1.0, 2.0, 3.0, 4.0]))
y.pow(2).sum().backward()
print("index_add grad:", x.grad, y.grad_fn.name())
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = torch.zeros(4).index_put((torch.tensor([0, 0, 3]),), v, accumulate=True)
z.mul(torch.tensor([1.0, 10.0, 100.0, 1000.0])).sum().backward()
print("index_put accumulate grad:", v.grad, z.grad_fn.name())

# errors
t = torch.zeros(3, 2)
attempt("index_add size mismatch", lambda: t.index_add_(0, torch.tensor([0, 1]), torch.ones(3, 2)))
attempt("index_add out of range", lambda: t.index_add_(0, torch.tensor([0, 3]), torch.ones(2, 2)))
attempt("index_copy bad dim", lambda: t.index_copy_(2, torch.tensor([0]), torch.ones(3, 1)))
attempt("index_fill float index", lambda: t.index_fill_(0, torch.tensor([0.0]), 1.0))
attempt("index_reduce bad mode", lambda: t.index_reduce_(0, torch.tensor([0]), torch.ones(1, 2), "sum"))
attempt("index_put dtype mismatch", lambda: t.index_put_((torch.tensor([0]),), torch.ones(1, 2,
                                                                                          dtype=torch.float64)))
attempt("index_put out of range", lambda: t.index_put_((torch.tensor([5]),), torch.tensor(1.0)))
attempt("index_select 2-d index", lambda: t.index_select(0, torch.tensor([[0, 1]])))
attempt("index_select out of range", lambda: t.index_select(1, torch.tensor([2])))
attempt("index_add dtype mismatch", lambda: t.index_add_(0, torch.tensor([0]), torch.ones(1, 2, dtype=torch.int64)))
