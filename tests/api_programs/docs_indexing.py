"""Indexing, slicing, joining and mutating ops as their docstrings show them (gather, scatter, index_*, splits)."""

import numpy as np
import torch

rng = np.random.default_rng(0)
t = torch.tensor([[1, 2], [3, 4]])
print("gather", torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]])), t.gather(0, torch.tensor([[1, 0]])))
src = torch.arange(1, 11).reshape((2, 5))
index = torch.tensor([[0, 1, 2, 0]])
print("scatter", torch.zeros(3, 5, dtype=src.dtype).scatter_(0, index, src))
index = torch.tensor([[0, 1, 2], [0, 1, 4]])
print("scatter dim1", torch.zeros(3, 5, dtype=src.dtype).scatter_(1, index, src))
print("scatter value", torch.full((2, 4), 2.0).scatter_(1, torch.tensor([[2], [3]]), 1.23, reduce="multiply"))
print("scatter add reduce", torch.full((2, 4), 2.0).scatter_(1, torch.tensor([[2], [3]]), 1.23, reduce="add"))
print("scatter out-of-place", torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), torch.tensor([[5.0], [6.0]])))
src1 = torch.ones((2, 5))
index = torch.tensor([[0, 1, 2, 0, 0]])
print("scatter_add", torch.zeros(3, 5, dtype=src1.dtype).scatter_add_(0, index, src1))
index = torch.tensor([[0, 1, 2, 0, 0], [0, 1, 2, 2, 2]])
print("scatter_add 2", torch.zeros(3, 5, dtype=src1.dtype).scatter_add_(0, index, src1))
src2 = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
index = torch.tensor([0, 1, 0, 1, 2, 1])
inp = torch.tensor([1.0, 2.0, 3.0, 4.0])
print("scatter_reduce sum", inp.scatter_reduce(0, index, src2, reduce="sum"))
print("scatter_reduce sum excl", inp.scatter_reduce(0, index, src2, reduce="sum", include_self=False))
inp2 = torch.tensor([5.0, 4.0, 3.0, 2.0])
print("scatter_reduce amax", inp2.scatter_reduce(0, index, src2, reduce="amax"))
print("scatter_reduce amax excl", inp2.scatter_reduce(0, index, src2, reduce="amax", include_self=False))
for red in ["prod", "mean", "amin"]:
    for incl in [True, False]:
        print("scatter_reduce", red, incl, inp.scatter_reduce(0, index, src2, reduce=red, include_self=incl))
print("scatter_reduce int mean", torch.tensor([1, 2, 3, 4]).scatter_reduce(0, index, torch.arange(6), "mean"))
x = torch.from_numpy(rng.standard_normal((3, 4)).round(3).astype(np.float32))
indices = torch.tensor([0, 2])
print("index_select", torch.index_select(x, 0, indices), torch.index_select(x, 1, indices))
xo = torch.ones(5, 3)
tt = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=torch.float)
index = torch.tensor([0, 4, 2])
print("index_add", xo.index_add_(0, index, tt))
print("index_add alpha", torch.ones(5, 3).index_add(0, index, tt, alpha=-1))
print("index_copy", torch.zeros(5, 3).index_copy_(0, index, tt))
xf = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=torch.float)
print("index_fill", xf.index_fill_(1, torch.tensor([0, 2]), -1))
print("index_reduce", torch.ones(5, 3).index_reduce_(0, index, tt + 1, "prod"))
print("index_reduce amax", torch.zeros(5, 3).index_reduce(0, index, tt, "amax", include_self=False))
ip = torch.zeros(3, 3)
ip.index_put_((torch.tensor([0, 2, 0]), torch.tensor([1, 1, 1])), torch.tensor(1.0), accumulate=True)
print("index_put accumulate", ip)
ip.index_put_((torch.tensor([1]),), torch.tensor([7.0, 8.0, 9.0]))
print("index_put row", ip, torch.zeros(2).index_put((torch.tensor([1]),), torch.tensor(3.0)))
xm = torch.from_numpy(rng.standard_normal((3, 4)).round(3).astype(np.float32))
mask = xm.ge(0.5)
print("masked_select", mask, torch.masked_select(xm, mask))
self_ = torch.tensor([0, 0, 0, 0, 0])
mask = torch.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=torch.bool)
source = torch.tensor([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
print("masked_scatter", self_.masked_scatter(mask, source))
print("masked_fill", torch.arange(4.0).masked_fill(torch.tensor([True, False, True, False]), float("-inf")))
src3 = torch.tensor([[4, 3, 5], [6, 7, 8]])
print("take", torch.take(src3, torch.tensor([0, 2, 5])), torch.take(src3, torch.tensor([[-1, 0]])))
tt2 = torch.tensor([[10, 30, 20], [60, 40, 50]])
max_idx = torch.argmax(tt2)
print("take_along_dim", torch.take_along_dim(tt2, max_idx))
sorted_idx = torch.argsort(tt2, dim=1)
print("take_along_dim sort", torch.take_along_dim(tt2, sorted_idx, dim=1))
pt = torch.tensor([[1, 2, 3], [4, 5, 6]])
print("put_", pt.put_(torch.tensor([1, 3]), torch.tensor([9, 10])))
print("put accumulate", pt.clone().put_(torch.tensor([0, 0]), torch.tensor([1, 1]), accumulate=True))
xn = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
print("narrow", torch.narrow(xn, 0, 0, 2), torch.narrow(xn, 1, 1, 2), torch.narrow(xn, -1, torch.tensor(-1), 1))
print("narrow_copy", torch.narrow_copy(xn, 0, 0, 2), torch.narrow_copy(xn, 1, 1, 2).is_contiguous())
a = torch.zeros(2, 2)
b = torch.ones(2)
print("select_scatter", a.select_scatter(b, 0, 0))
a = torch.zeros(8, 8)
b = torch.ones(2, 8)
print("slice_scatter", a.slice_scatter(b, start=6))
b = torch.ones(8, 2)
print("slice_scatter step", a.slice_scatter(b, dim=1, start=2, end=6, step=2)[0])
a = torch.zeros(3, 3)
print("diagonal_scatter", torch.diagonal_scatter(a, torch.ones(3), 0), torch.diagonal_scatter(a, torch.ones(2), 1))
t = torch.arange(16.0).reshape(4, 4)
print("hsplit", torch.hsplit(t, 2)[1], [p.shape for p in torch.hsplit(t, [3, 6])])
print("vsplit", [p.tolist() for p in torch.vsplit(t, [3, 6])][1:], torch.vsplit(t, 2)[0].shape)
t3 = torch.arange(16.0).reshape(2, 2, 4)
print("dsplit", torch.dsplit(t3, 2)[0], [p.shape for p in torch.dsplit(t3, [3, 6])])
x8 = torch.arange(8)
print("tensor_split", torch.tensor_split(x8, 3), torch.tensor_split(torch.arange(7), 3))
print("tensor_split idx", torch.tensor_split(torch.arange(7), (1, 6)), torch.tensor_split(x8, torch.tensor(3)))
x2 = torch.arange(14).reshape(2, 7)
print("tensor_split dim", torch.tensor_split(x2, 3, dim=1)[2], torch.tensor_split(x2, (1, 6), dim=1)[1])
print("split", torch.arange(10).reshape(5, 2).split(2), torch.arange(10).split([1, 4, 5])[1])
print("chunk", torch.arange(11).chunk(6), torch.arange(12).chunk(6)[-1], len(torch.arange(13).chunk(6)))
print("unbind", torch.unbind(torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])), torch.tensor([[1, 2]]).unbind(1))
xmv = torch.from_numpy(rng.standard_normal((3, 2, 1)).astype(np.float32))
print(
    "movedim",
    torch.movedim(xmv, 1, 0).shape,
    torch.movedim(xmv, (1, 2), (0, 1)).shape,
    torch.moveaxis(xmv, 0, -1).shape,
)
print("swapaxes", torch.swapaxes(torch.arange(8).reshape(2, 2, 2), 0, 1), torch.swapdims(xmv, 0, 2).shape)
a = torch.tensor([1, 2, 3])
b = torch.tensor([4, 5, 6])
print("column_stack", torch.column_stack((a, b)), torch.column_stack((torch.arange(5), torch.arange(10).reshape(5, 2))))
print("row_stack", torch.row_stack((a, b)), torch.vstack((torch.tensor([[1], [2]]), torch.tensor([[3]]))))
print("dstack", torch.dstack((a, b)), torch.dstack((a.reshape(3, 1), b.reshape(3, 1))).shape)
print("hstack", torch.hstack((a, b)), torch.hstack((a.reshape(3, 1), b.reshape(3, 1))))
print("nonzero", torch.nonzero(torch.tensor([1, 1, 1, 0, 1])), torch.nonzero(torch.tensor([[0.6, 0.0], [0.0, 0.4]])))
print("nonzero tuple", torch.nonzero(torch.tensor([1, 1, 1, 0, 1]), as_tuple=True))
print("nonzero tuple 2d", torch.nonzero(torch.tensor([[0.6, 0.0], [0.0, 0.4]]), as_tuple=True))
print("nonzero 0d", torch.nonzero(torch.tensor(5), as_tuple=True), torch.nonzero(torch.tensor(5)).shape)
print("argwhere", torch.argwhere(torch.tensor([1, 0, 1])), torch.argwhere(torch.tensor([[1, 0, 1], [0, 1, 1]])))
print("where one-arg", torch.where(torch.tensor([[1, 0], [0, 1]])), torch.where(torch.tensor([0.0, 2.0]) > 1))
xw = torch.tensor([[-0.4620, 0.3139], [0.3898, -0.7197], [0.0478, -0.1657]])
print("where", torch.where(xw > 0, 1.0, 0.0), torch.where(xw > 0, xw, torch.tensor(0.0)))
print("where dtype", torch.where(xw > 0, 1, 0).dtype, torch.where(xw > 0, xw.double(), 0).dtype)
for bad in [
    lambda: torch.gather(torch.ones(2, 2), 1, torch.tensor([[0, 2]])),
    lambda: torch.gather(torch.ones(2, 2), 1, torch.tensor([[0.0]])),
    lambda: torch.zeros(3).scatter_(0, torch.tensor([3]), 1.0),
    lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), reduce="max"),
    lambda: torch.index_select(torch.ones(3), 0, torch.tensor([3])),
    lambda: torch.index_select(torch.ones(3), 0, torch.tensor([[0]])),
    lambda: torch.ones(5, 3).index_add_(0, torch.tensor([0, 1]), torch.ones(3, 3)),
    lambda: torch.take(torch.ones(2, 2), torch.tensor([4])),
    lambda: torch.narrow(torch.ones(3, 3), 0, 2, 2),
    lambda: torch.hsplit(torch.arange(5), 2),
    lambda: torch.vsplit(torch.arange(4), 2),
    lambda: torch.dsplit(torch.ones(2, 2), 2),
    lambda: torch.tensor_split(torch.arange(4), 0),
    lambda: torch.movedim(xmv, (0, 0), (1, 2)),
    lambda: torch.masked_select(torch.ones(3), torch.tensor([1, 0, 1])),
    lambda: torch.where(torch.tensor([1, 0]), torch.ones(2), torch.ones(3)),
    lambda: torch.select_scatter(torch.zeros(2, 2), torch.ones(3), 0, 0),
    lambda: torch.ones(3).put_(torch.tensor([5]), torch.tensor([1.0])),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
