"""GitHub issues about advanced indexing: where the indexed dims land when index tensors are separated by a
slice (numpy's rule), broadcasting of index tensors, bool masks of every rank, None/Ellipsis mixes, setitem
with broadcasting values, index_select/gather/take equivalents, and the errors for bad masks and indices."""

import numpy as np
import torch

x = torch.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
xn = x.numpy()
i = torch.tensor([0, 1])
j = torch.tensor([[0], [2]])


def show(name, fn, ref=None):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        agree = "" if ref is None else f" numpy={np.array_equal(out.numpy(), ref())}"
        print(f"{name}: {tuple(out.shape)} sum={out.sum().item()}{agree}")
    else:
        print(f"{name}: {out}")


show("adjacent", lambda: x[:, i, i], lambda: xn[:, i.numpy(), i.numpy()])
show("separated", lambda: x[i, :, i], lambda: xn[i.numpy(), :, i.numpy()])
show("separated 2", lambda: x[:, i, :, i], lambda: xn[:, i.numpy(), :, i.numpy()])
show("broadcast idx", lambda: x[j, i], lambda: xn[j.numpy(), i.numpy()])
show("broadcast sep", lambda: x[j, :, i], lambda: xn[j.numpy(), :, i.numpy()])
show("int and tensor", lambda: x[1, :, i], lambda: xn[1, :, i.numpy()])
show("int adjacent", lambda: x[:, 1, i], lambda: xn[:, 1, i.numpy()])
show("ellipsis", lambda: x[..., i], lambda: xn[..., i.numpy()])
show("ellipsis sep", lambda: x[i, ..., i], lambda: xn[i.numpy(), ..., i.numpy()])
show("none", lambda: x[None, i], lambda: xn[None, i.numpy()])
show("none between", lambda: x[i, None, i], lambda: xn[i.numpy(), None, i.numpy()])
show("list idx", lambda: x[[0, 1], [1, 2]], lambda: xn[[0, 1], [1, 2]])
show("nested list", lambda: x[[[0, 1]]], lambda: xn[[0, 1]])
show("tuple idx", lambda: x[(0, 1)], lambda: xn[(0, 1)])
show("neg idx", lambda: x[:, torch.tensor([-1, -3])], lambda: xn[:, [-1, -3]])
show("slice step", lambda: x[:, ::2, 1::2], lambda: xn[:, ::2, 1::2])
show("0-dim tensor idx", lambda: x[torch.tensor(1)], lambda: xn[1])
show("0-dim is view", lambda: x[torch.tensor(1)]._base is not None)
show("int is view", lambda: x[1]._base is x)
show("adv is copy", lambda: x[i]._base is None)

# bool masks
m1 = torch.tensor([True, False])
m2 = x[0, :, :, 0] > 20
show("mask dim0", lambda: x[m1], lambda: xn[m1.numpy()])
show("mask 2d", lambda: x[0][m2], lambda: xn[0][m2.numpy()])
show("mask after slice", lambda: x[:, m2], lambda: xn[:, m2.numpy()])
show("mask and idx", lambda: x[m1, :, i], lambda: xn[m1.numpy(), :, i.numpy()])
show("mask full", lambda: x[x > 100], lambda: xn[xn > 100])
show("mask scalar true", lambda: x[True], lambda: xn[True])
show("mask scalar false", lambda: x[False], lambda: xn[False])
show("mask empty", lambda: x[x > 1000], lambda: xn[xn > 1000])
show("mask uint8", lambda: x[torch.tensor([1, 0], dtype=torch.uint8)])
show("mask wrong size", lambda: x[torch.tensor([True, False, True])])
show("mask wrong shape 2d", lambda: x[torch.ones(3, 3, dtype=torch.bool)])
show("nonzero", lambda: (x[0, 0] % 7 == 0).nonzero())
show("nonzero tuple", lambda: len((x[0, 0] % 7 == 0).nonzero(as_tuple=True)))
show("argwhere", lambda: torch.argwhere(x[0, 0] % 7 == 0))
show("masked_select", lambda: torch.masked_select(x[0, 0], x[0, 0] % 7 == 0))
show("masked_select broadcast", lambda: torch.masked_select(x[0], torch.tensor([True, False, True, False, True])))

# errors
show("too many", lambda: x[0, 0, 0, 0, 0])
show("out of range", lambda: x[2])
show("tensor out of range", lambda: x[torch.tensor([5])])
show("float idx", lambda: x[torch.tensor([1.0])])
show("float python idx", lambda: x[1.0])
show("shape mismatch", lambda: x[torch.tensor([0, 1]), torch.tensor([0, 1, 2])])
show("str idx", lambda: x["a"])

# setitem
y = torch.zeros(3, 4)
y[[0, 2]] = torch.tensor([1.0, 2.0, 3.0, 4.0])
show("set rows broadcast", lambda: y.tolist())
y[:, torch.tensor([1, 3])] = torch.tensor([[5.0], [6.0], [7.0]])
show("set cols broadcast", lambda: y.tolist())
y[y > 4] = -1
show("set mask scalar", lambda: y.tolist())
y[y < 0] = torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
show("set mask values", lambda: y.tolist())
show("set mask wrong count", lambda: y.__setitem__(y > 15, torch.tensor([1.0, 2.0])))
show("set shape mismatch", lambda: y.__setitem__(0, torch.ones(3)))
show("set int to float", lambda: y.__setitem__(0, torch.tensor([1, 2, 3, 4])) or y[0].tolist())
z = torch.zeros(5, dtype=torch.long)
show("set float to long", lambda: z.__setitem__(slice(0, 2), 2.7) or z.tolist())
show("set dup idx", lambda: z.__setitem__(torch.tensor([0, 0]), torch.tensor([1, 2])) or z[0].item() in (1, 2))
show("set ellipsis", lambda: z.__setitem__(Ellipsis, 9) or z.tolist())
show("set list of bool", lambda: z.__setitem__([True, False, True, False, False], 4) or z.tolist())

# equivalents
w = torch.arange(12.0).reshape(3, 4)
idx = torch.tensor([2, 0])
show("index_select == []", lambda: torch.equal(w.index_select(1, idx), w[:, idx]))
show("gather rows", lambda: w.gather(1, torch.tensor([[0], [3], [1]])).flatten().tolist())
show("take", lambda: torch.take(w, torch.tensor([[0, 11], [5, 6]])).tolist())
show("take_along_dim", lambda: torch.take_along_dim(w, w.argmax(1, keepdim=True), 1).tolist())
show("take_along_dim none", lambda: torch.take_along_dim(w, torch.tensor([3, 0])).tolist())
show("diag via idx", lambda: w[torch.arange(3), torch.arange(3)].tolist())
show("scatter one-hot", lambda: torch.zeros(3, 4).scatter(1, torch.tensor([[1], [3], [0]]), 1.0).tolist())
show("one_hot", lambda: torch.nn.functional.one_hot(torch.tensor([1, 3, 0]), 4).tolist())
show("one_hot neg", lambda: torch.nn.functional.one_hot(torch.tensor([-1])))
show("index_select 0-dim idx", lambda: w.index_select(0, torch.tensor(1)).tolist())
show("index_select bad", lambda: w.index_select(0, torch.tensor([[0]])))
show("gather bad dim", lambda: w.gather(1, torch.tensor([0, 1])))
