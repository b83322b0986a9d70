"""Segment-level reductions as span and decoding code writes them: scatter_add/scatter_reduce over segment ids with
include_self, index_add/index_reduce, torch.segment_reduce with lengths and offsets, a segment logsumexp built from
scatter amax, take_along_dim, masked_scatter, index_put_ with accumulate, sparse_grad gathers, and their errors."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(8)

vals = torch.randn(8, requires_grad=True)
seg = torch.tensor([0, 0, 1, 1, 1, 3, 3, 3])
S = 4
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        out = torch.zeros(S).scatter_reduce(0, seg, vals, reduce=red, include_self=inc)
        print(red, inc, out.round(decimals=4).tolist())
out = torch.full((S,), -5.0).scatter_reduce(0, seg, vals, "amax", include_self=False)
out.sum().backward()
print("amax grad", vals.grad.tolist(), out.grad_fn.name())
vals.grad = None
mean = torch.ones(S).scatter_reduce(0, seg, vals, "mean")
mean.sum().backward()
print("mean grad", vals.grad.round(decimals=4).tolist())

mx = torch.full((S,), float("-inf")).scatter_reduce(0, seg, vals.detach(), "amax")
lse = torch.zeros(S).scatter_add(0, seg, (vals.detach() - mx[seg]).exp()).log() + mx
print("segment logsumexp", lse.round(decimals=4).tolist())
print("check", torch.logsumexp(vals.detach()[2:5], 0).round(decimals=4).item())

lengths = torch.tensor([2, 3, 0, 3])
for red in ["sum", "max", "mean", "min", "prod"]:
    r = torch.segment_reduce(vals.detach(), red, lengths=lengths, unsafe=False, initial=None)
    print("segment_reduce", red, r.round(decimals=4).tolist())
print("initial", torch.segment_reduce(vals.detach(), "sum", lengths=lengths, initial=1.0).round(decimals=4).tolist())
offs = torch.tensor([0, 2, 5, 5, 8])
print("offsets", torch.segment_reduce(vals.detach(), "max", offsets=offs).round(decimals=4).tolist())

acc = torch.zeros(3, 2)
acc.index_add_(0, torch.tensor([0, 2, 0]), torch.ones(3, 2), alpha=2.0)
print("index_add", acc.tolist())
ir = torch.ones(3).index_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([4.0, 3.0, 5.0]), "prod", include_self=False)
print(
    "index_reduce",
    ir.tolist(),
    torch.zeros(3).index_reduce_(0, torch.tensor([1, 1]), torch.tensor([2.0, 6.0]), "mean").tolist(),
)

x = torch.randn(2, 5)
idx = x.argsort(1, descending=True)
print(
    "take_along_dim",
    torch.take_along_dim(x, idx[:, :2], dim=1).round(decimals=4).tolist(),
    torch.take_along_dim(x, x.argmax()).round(decimals=4).tolist(),
)
m = torch.tensor([[True, False, True, False, False], [False, True, True, True, False]])
print("masked_scatter", torch.zeros(2, 5).masked_scatter(m, torch.arange(1.0, 11.0)).tolist())
print("masked_select", x.masked_select(m).round(decimals=4).tolist())
t = torch.zeros(4)
t.index_put_((torch.tensor([1, 1, 3]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print("index_put acc", t.tolist())
t.put_(torch.tensor([0, 0]), torch.tensor([5.0, 5.0]), accumulate=True)
print("put_", t.tolist())

emb = torch.randn(5, 3, requires_grad=True)
g = emb.gather(0, torch.tensor([[0, 1, 0], [4, 4, 4]]), sparse_grad=True)
g.sum().backward()
print("sparse grad", emb.grad.layout, emb.grad.to_dense().tolist())

for bad in [
    lambda: torch.zeros(3).scatter_reduce(0, seg, vals, "max"),
    lambda: torch.zeros(3).scatter_reduce(0, seg, vals, "sum"),
    lambda: torch.segment_reduce(vals, "sum", lengths=torch.tensor([2, 3])),
    lambda: torch.zeros(3).index_reduce(0, torch.tensor([0]), torch.ones(1), "sum"),
    lambda: torch.zeros(2, 5).masked_scatter(m, torch.arange(3.0)),
    lambda: torch.zeros(4).scatter_add(0, seg.float(), vals),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
