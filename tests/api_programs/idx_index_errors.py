"""Index mistakes and PyTorch's exact words for them, caught and printed as a debugging session would: ints and
tensors out of range on each dim, too many indices, bad index dtypes, masks of the wrong shape, index tensors that
do not broadcast, slices of 0-dim tensors, lists of floats (which PyTorch truncates), out-of-range gather/scatter/
take/index_select, mismatched sizes for index_add/index_copy/scatter, unique along dims of empty tensors, and
index_reduce on dtypes its kernels lack; each followed by the fix that works."""

import numpy as np
import torch

torch.set_printoptions(precision=4)
x = torch.arange(24.0).reshape(2, 3, 4)
s = torch.tensor(7.0)


def attempt(name, fn):
    try:
        r = fn()
        print(f"{name}: ok", tuple(r.shape) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


print("-- basic indexing")
attempt("int past dim 0", lambda: x[2])
attempt("negative past dim 1", lambda: x[0, -4])
attempt("int past dim 2 after ellipsis", lambda: x[..., 4])
attempt("too many indices", lambda: x[0, 0, 0, 0])
attempt("too many with None is fine", lambda: x[0, None, 0, 0])
attempt("float index", lambda: x[1.0])
attempt("string index", lambda: x["0"])
attempt("zero step", lambda: x[::0])
attempt("negative step", lambda: x[::-1])
attempt("fix: flip", lambda: x.flip(0))
attempt("slice of 0-dim", lambda: s[:])
attempt("slice of 0-dim in a tuple", lambda: s[:, ])
attempt("int of 0-dim", lambda: s[0])
attempt("fix: item", lambda: s.item())
attempt("None of 0-dim", lambda: s[None])
attempt("ellipsis of 0-dim", lambda: s[...])

print("-- advanced indexing")
attempt("tensor past dim 0", lambda: x[torch.tensor([0, 2])])
attempt("tensor past dim 2", lambda: x[:, :, torch.tensor([[1], [-5]])])
attempt("float tensor", lambda: x[torch.tensor([0.0, 1.0])])
attempt("fix: .long()", lambda: x[torch.tensor([0.0, 1.0]).long()])
attempt("int8 tensor", lambda: x[torch.tensor([0], dtype=torch.int8)])
attempt("int32 tensor is fine", lambda: x[torch.tensor([1], dtype=torch.int32)])
attempt("list of floats truncates", lambda: x[:, [0.9, 2.5]])
print("   values:", x[0, [0.9, 2.5, -1.5], 0])
attempt("numpy float array truncates", lambda: x[np.array([1.7])])
attempt("list with a complex", lambda: x[[1j]])
attempt("list with np.float32", lambda: x[[np.float32(1.0)]])
attempt("list with nan", lambda: x[[float("nan")]])
attempt("list with huge float", lambda: x[[1e20]])
attempt("index tensors that do not broadcast", lambda: x[[0, 1], [0, 1, 2]])
attempt("fix: outer product", lambda: x[torch.tensor([0, 1])[:, None], torch.tensor([0, 1, 2])])
attempt("mask of wrong size", lambda: x[torch.tensor([True, False, True])])
attempt("mask of wrong trailing size", lambda: x[:, torch.ones(3, 5, dtype=torch.bool)])
attempt("2-d mask", lambda: x[x[:, :, 0] > 4])
attempt("uint8 list is an int index", lambda: x[[1, 0]])
attempt("empty list", lambda: x[[]])
attempt("setitem past end", lambda: x.clone().__setitem__((0, 3), 1.0))
attempt("setitem slice of 0-dim", lambda: s.clone().__setitem__(slice(None), 1.0))
attempt("setitem value too big", lambda: x.clone().__setitem__((0, 0), torch.ones(5)))
attempt("setitem mask count", lambda: x.clone().__setitem__(x > 20, torch.ones(2)))

print("-- index ops")
attempt("index_select out of range", lambda: x.index_select(1, torch.tensor([3])))
attempt("index_select float index", lambda: x.index_select(1, torch.tensor([0.0])))
attempt("gather out of range", lambda: x.gather(2, torch.full((2, 3, 1), 4)))
attempt("gather negative", lambda: x.gather(2, torch.full((2, 3, 1), -1)))
attempt("gather wrong rank", lambda: x.gather(2, torch.zeros(2, 3, dtype=torch.long)))
attempt("gather too big elsewhere", lambda: x.gather(2, torch.zeros(3, 3, 1, dtype=torch.long)))
attempt("scatter out of range", lambda: torch.zeros(3).scatter(0, torch.tensor([3]), 1.0))
attempt("scatter_add src too small", lambda: torch.zeros(3).scatter_add(0, torch.tensor([0, 1]), torch.ones(1)))
attempt("scatter_reduce bad name", lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "max"))
attempt("take out of range", lambda: x.take(torch.tensor([24])))
attempt("take negative wraps", lambda: x.take(torch.tensor([-24])))
attempt("index_add wrong count", lambda: torch.zeros(3, 2).index_add(0, torch.tensor([0, 1]), torch.ones(3, 2)))
attempt("index_add wrong slice", lambda: torch.zeros(3, 2).index_add(0, torch.tensor([0]), torch.ones(1, 3)))
attempt("index_copy out of range", lambda: torch.zeros(3).index_copy(0, torch.tensor([3]), torch.ones(1)))
attempt("index_fill out of range", lambda: torch.zeros(3).index_fill(0, torch.tensor([-4]), 1.0))
attempt("index_put_ out of range", lambda: torch.zeros(3).index_put_((torch.tensor([3]),), torch.tensor(1.0)))
attempt("index_put_ tuple needed", lambda: torch.zeros(3).index_put_(torch.tensor([0]), torch.tensor(1.0)))
attempt("put_ out of range", lambda: torch.zeros(3).put_(torch.tensor([5]), torch.tensor([1.0])))
attempt("index_reduce bool", lambda: torch.ones(3, dtype=torch.bool).index_reduce(
    0, torch.tensor([0]), torch.ones(1, dtype=torch.bool), "amax"))
attempt("index_reduce complex no self", lambda: torch.ones(3, dtype=torch.complex64).index_reduce(
    0, torch.tensor([0]), torch.ones(1, dtype=torch.complex64), "prod", include_self=False))
attempt("fix: index_reduce float", lambda: torch.ones(3).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2.0, 3.0]),
                                                                      "prod").tolist())
attempt("masked_fill non-bool", lambda: x.masked_fill(x, 0.0))
attempt("masked_scatter short", lambda: x.masked_scatter(x > 2, torch.ones(3)))
attempt("nonzero_static negative size", lambda: torch.nonzero_static(x, size=-1))

print("-- unique and search")
attempt("unique rows of (2, 0)", lambda: torch.unique(torch.zeros(2, 0), dim=0))
attempt("unique cols of (2, 0)", lambda: torch.unique(torch.zeros(2, 0), dim=1))
attempt("unique_consecutive of (0, 0)", lambda: torch.unique_consecutive(torch.zeros(0, 0), dim=0))
attempt("unique dim out of range", lambda: torch.unique(x, dim=3))
attempt("searchsorted mismatched batch", lambda: torch.searchsorted(torch.zeros(2, 3), torch.zeros(3, 1)))
attempt("searchsorted 0-dim boundaries", lambda: torch.searchsorted(torch.tensor(1.0), torch.zeros(2)))
attempt("bucketize 2-d boundaries", lambda: torch.bucketize(torch.zeros(2), torch.zeros(2, 2)))
attempt("searchsorted dtype mix", lambda: torch.searchsorted(torch.tensor([1, 2]), torch.tensor([1.5])).tolist())
