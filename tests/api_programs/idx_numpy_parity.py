"""numpy indexing idioms ported to torch one for one, as scientists port array code: np.ix_ grids, np.add.at
(index_put_ accumulate / index_add_), np.put/np.take (put_/take), np.take_along_axis, np.put_along_axis (scatter_),
np.unique with axis/return_index, np.searchsorted with side, np.nonzero/np.argwhere/np.flatnonzero,
np.where with one argument, np.diag_indices/np.triu_indices, fancy indexing with numpy arrays and numpy scalars as
keys, and np.lib.stride_tricks.sliding_window_view (unfold); each result compared with numpy's and printed."""

import numpy as np
import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)
rng = np.random.default_rng(0)

a = rng.standard_normal((4, 5)).astype(np.float32)
t = torch.from_numpy(a.copy())


def same(name, ours, theirs):
    ours_np = ours.numpy() if isinstance(ours, torch.Tensor) else np.asarray(ours)
    ok = ours_np.shape == np.shape(theirs) and np.allclose(ours_np, theirs, equal_nan=True)
    print(f"{name}: match={ok} shape={tuple(ours_np.shape)}")
    return ours


rows, cols = np.array([0, 2, 3]), np.array([1, 4])
same("ix_ grid", t[torch.tensor(rows)[:, None], torch.tensor(cols)], a[np.ix_(rows, cols)])
same("numpy array keys", t[rows[:2], cols], a[rows[:2], cols])
same("numpy scalar keys", t[np.int64(2), np.int32(-1)], a[2, -1])
same("numpy bool mask key", t[a > 0.5], a[a > 0.5])
same("mixed numpy/slice", t[1:, cols], a[1:, cols])

# np.add.at with duplicates
acc = np.zeros(5, np.float32)
where = np.array([0, 1, 1, 4, 4, 4])
vals = np.arange(6, dtype=np.float32)
np.add.at(acc, where, vals)
tacc = torch.zeros(5).index_put_((torch.from_numpy(where),), torch.from_numpy(vals), accumulate=True)
same("add.at / index_put_ accumulate", tacc, acc)
same("add.at / index_add_", torch.zeros(5).index_add_(0, torch.from_numpy(where), torch.from_numpy(vals)), acc)
print("values:", tacc)
acc2 = np.zeros((3, 3), np.float32)
np.add.at(acc2, (np.array([0, 0, 2]), np.array([1, 1, 0])), 1.0)
same("2-d add.at", torch.zeros(3, 3).index_put_((torch.tensor([0, 0, 2]), torch.tensor([1, 1, 0])),
                                                torch.tensor(1.0), accumulate=True), acc2)

# put/take
p = a.copy()
np.put(p, [0, 7, -1], [10.0, 20.0, 30.0])
same("put", t.clone().put_(torch.tensor([0, 7, -1]), torch.tensor([10.0, 20.0, 30.0])), p)
same("take", t.take(torch.tensor([[0, 19], [5, 6]])), np.take(a, [[0, 19], [5, 6]]))

# along-axis
order = np.argsort(a, axis=1)
same("take_along_axis", torch.take_along_dim(t, torch.from_numpy(order), dim=1), np.take_along_axis(a, order, 1))
same("argsort agrees", t.argsort(dim=1), order)
pa = a.copy()
np.put_along_axis(pa, order[:, :1], -9.0, axis=1)
same("put_along_axis", t.clone().scatter_(1, torch.from_numpy(order[:, :1]), -9.0), pa)
same("max via take_along", torch.take_along_dim(t, t.argmax(1, keepdim=True), 1),
     np.take_along_axis(a, a.argmax(1)[:, None], 1))

# unique
ints = rng.integers(0, 4, (6, 3))
ti = torch.from_numpy(ints)
u, inv, cnt = np.unique(ints, return_inverse=True, return_counts=True)
tu, tinv, tcnt = torch.unique(ti, return_inverse=True, return_counts=True)
same("unique", tu, u)
same("unique inverse", tinv, inv.reshape(ints.shape))
same("unique counts", tcnt, cnt)
ur, rinv = np.unique(ints[:, :1] % 2, axis=0, return_inverse=True)
tur, trinv = torch.unique(ti[:, :1] % 2, dim=0, return_inverse=True)
same("unique rows", tur, ur)
same("unique rows inverse", trinv, rinv.reshape(-1))
first = np.unique(ints[:, 0], return_index=True)[1]
vals0, inv0 = torch.unique(ti[:, 0], return_inverse=True)
perm = torch.arange(inv0.numel()).flip(0)
first_t = torch.full((vals0.numel(),), inv0.numel()).scatter_reduce(0, inv0.flip(0), perm, "amin")
same("return_index via scatter_reduce", first_t, first)

# searchsorted
edges = np.array([0.0, 0.5, 1.0, 1.0, 2.0], np.float32)
q = np.array([-1.0, 0.5, 1.0, 1.5, 3.0], np.float32)
for side in ("left", "right"):
    same(f"searchsorted {side}", torch.searchsorted(torch.from_numpy(edges), torch.from_numpy(q), side=side),
         np.searchsorted(edges, q, side=side))
same("digitize/bucketize", torch.bucketize(torch.from_numpy(q), torch.from_numpy(edges), right=True),
     np.digitize(q, edges))

# nonzero family
m = a > 0
same("nonzero", (t > 0).nonzero(), np.argwhere(m))
for k, (ours, theirs) in enumerate(zip(torch.where(t > 0), np.nonzero(m))):
    same(f"where(cond)[{k}]", ours, theirs)
same("flatnonzero", (t > 0).flatten().nonzero().flatten(), np.flatnonzero(m))
same("count_nonzero axis", torch.count_nonzero(t > 0, dim=0), np.count_nonzero(m, axis=0))

# index helpers
di = np.diag_indices(4)
same("diag_indices", t[:, :4][torch.arange(4), torch.arange(4)], a[:, :4][di])
tri = np.triu_indices(4, k=1, m=5)
ttri = torch.triu_indices(4, 5, offset=1)
same("triu_indices", ttri, np.stack(tri))
same("triu gather", t[ttri[0], ttri[1]], a[tri])
tril = np.tril_indices(3)
same("tril_indices", torch.tril_indices(3, 3), np.stack(tril))

# sliding windows
x1 = np.arange(10.0, dtype=np.float32)
same("sliding_window_view", torch.from_numpy(x1).unfold(0, 4, 1),
     np.lib.stride_tricks.sliding_window_view(x1, 4))
same("2-d windows", t.unfold(0, 2, 1).unfold(1, 3, 1), np.lib.stride_tricks.sliding_window_view(a, (2, 3)))

# numpy-backed tensors share memory both ways
shared = torch.from_numpy(p)
shared[0, 0] = -123.0
print("from_numpy shares:", p[0, 0] == -123.0, "numpy() shares:", shared.numpy() is not None and
      np.shares_memory(shared.numpy(), p))
print("t:\n", t)
