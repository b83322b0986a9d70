"""Graph-level readouts over a batch of molecules described by a batch vector: atom counts with bincount
(weights, minlength), offsets by cumsum, repeat_interleave of per-graph tensors (tensor repeats, output_size),
torch.segment_reduce by lengths and offsets, unique_consecutive on sorted batches, dense batching with a mask,
and per-molecule max pooling with its gradient."""

import torch

torch.manual_seed(0)

n_atoms = torch.tensor([3, 5, 1, 4])          # four molecules
batch = torch.repeat_interleave(torch.arange(4), n_atoms)
print("batch", batch.tolist(), batch.dtype)
print("rep output_size", torch.repeat_interleave(torch.arange(4), n_atoms, output_size=13).tolist())
print("rep counts only", torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist())
print("rep scalar dim", torch.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0).tolist())
print("rep tensor dim1", torch.tensor([[1, 2], [3, 4]]).repeat_interleave(torch.tensor([1, 3]), dim=1).tolist())

counts = torch.bincount(batch)
print("bincount", counts.tolist(), counts.dtype)
print("bincount minlength", torch.bincount(batch, minlength=6).tolist())
mass = torch.tensor([12.011, 1.008, 1.008, 12.011, 15.999, 1.008, 1.008, 1.008, 14.007, 12.011, 12.011, 1.008, 1.008])
mw = torch.bincount(batch, weights=mass)
print("mol weights", mw.round(decimals=4).tolist(), mw.dtype)
print("bincount w f32", torch.bincount(batch, weights=mass.float(), minlength=5).dtype)
print("empty bincount", torch.bincount(torch.tensor([], dtype=torch.int64)).tolist(),
      torch.bincount(torch.tensor([], dtype=torch.int64), minlength=3).tolist())

ptr = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(n_atoms, 0)])
print("ptr", ptr.tolist(), ptr.dtype)
local = torch.arange(batch.numel()) - ptr[batch]
print("local idx", local.tolist())

x = torch.randn(13, 4)
# per-graph sums three ways
s1 = torch.zeros(4, 4).index_add_(0, batch, x)
s2 = torch.segment_reduce(x, "sum", lengths=n_atoms)
s3 = torch.segment_reduce(x, "sum", offsets=ptr)
print("segment sum agree", torch.allclose(s1, s2, atol=1e-6), torch.allclose(s2, s3, atol=1e-6))
for reduce in ["mean", "max", "min", "prod"]:
    print("segment", reduce, torch.segment_reduce(x, reduce, lengths=n_atoms).round(decimals=4)[:, :2].tolist())
print("segment axis1",
      torch.segment_reduce(x[:3], "sum", lengths=torch.tensor([[1, 3], [4, 0], [2, 2]]),
                           axis=1).round(decimals=4).tolist())
zl = torch.segment_reduce(x[:3], "max", lengths=torch.tensor([2, 0, 1]), unsafe=False, initial=-5.0)
print("segment empty initial", zl.round(decimals=4)[:, 0].tolist())
print("segment empty mean",
      torch.segment_reduce(x[:3], "mean", lengths=torch.tensor([3, 0]))[:, 0].round(decimals=4).tolist())

xs = x.clone().requires_grad_(True)
out = torch.segment_reduce(xs, "mean", lengths=n_atoms)
out.sum().backward()
print("segment grad", out.grad_fn.name(), xs.grad[:, 0].round(decimals=4).tolist())

# unique_consecutive on a sorted batch
vals, inv, cnt = torch.unique_consecutive(batch, return_inverse=True, return_counts=True)
print("uc", vals.tolist(), inv.tolist()[:6], cnt.tolist())
rows = torch.tensor([[0, 1], [0, 1], [1, 0], [0, 1], [0, 1]])
print("uc dim0", [t.tolist() for t in torch.unique_consecutive(rows, return_counts=True, dim=0)])
print("uc unsorted", torch.unique_consecutive(torch.tensor([2, 2, 1, 1, 2, 3, 3])).tolist())

# mean pooling via scatter mean, max pooling via scatter amax, and to_dense_batch
mean_pool = torch.zeros(4, 4).index_add_(0, batch, x) / counts.unsqueeze(-1)
print("mean pool", mean_pool.round(decimals=4)[:, 0].tolist())
xm = x.clone().requires_grad_(True)
max_pool = torch.full((4, 4), float("-inf")).scatter_reduce(0, batch[:, None].expand(-1, 4), xm, "amax",
                                                            include_self=False)
max_pool.sum().backward()
print("max pool", max_pool.round(decimals=4)[:, 0].tolist(), "grad nnz", int(xm.grad.count_nonzero()))

max_n = int(counts.max())
dense = x.new_zeros(4, max_n, 4)
mask = torch.zeros(4, max_n, dtype=torch.bool)
dense[batch, local] = x
mask[batch, local] = True
print("dense", tuple(dense.shape), mask.sum(1).tolist(), mask.int().tolist()[2])
print("dense roundtrip", torch.equal(dense[mask], x))
print("argmax per mol", dense.masked_fill(~mask[..., None], float("-inf"))[..., 0].argmax(1).tolist())

for name, fn in {
    "bincount negative": lambda: torch.bincount(torch.tensor([0, -1])),
    "bincount float": lambda: torch.bincount(torch.tensor([0.0, 1.0])),
    "bincount 2d": lambda: torch.bincount(torch.tensor([[0, 1]])),
    "bincount weights len": lambda: torch.bincount(batch, weights=torch.ones(3)),
    "rep mismatch": lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1, 2])),
    "rep negative": lambda: torch.repeat_interleave(torch.tensor([1, -1])),
    "segment bad len": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([3, 3])),
    "segment axis": lambda: torch.segment_reduce(x[:3], "sum", lengths=torch.tensor([1, 3]), axis=1),
    "segment bad reduce": lambda: torch.segment_reduce(x, "median", lengths=n_atoms),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
