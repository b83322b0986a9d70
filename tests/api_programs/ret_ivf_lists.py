"""IVF inverted lists as FAISS's IndexIVFFlat builds them in torch: coarse assignment, sort by list id, list
offsets by bucketize/searchsorted/unique_consecutive/cumsum, nprobe search over the probed lists' vectors,
int32 ids, and the empty-list and unsorted-boundary mistakes."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

n, d, nlist = 30, 4, 5
xb = torch.randn(n, d)
coarse = xb[torch.randperm(n)[:nlist]]
assign = torch.cdist(xb, coarse).argmin(1)
assign[assign == 3] = 2  # leave list 3 empty
print("assign", assign.tolist())

order = torch.argsort(assign, stable=True)
sorted_lists = assign[order]
print("order head", order[:10].tolist(), order.dtype)
lists, counts = torch.unique_consecutive(sorted_lists, return_counts=True)
print("unique_consecutive", lists.tolist(), counts.tolist())
vals, inv, cnt = torch.unique_consecutive(sorted_lists, return_inverse=True, return_counts=True)
print("inverse", inv[:12].tolist(), inv.dtype, cnt.dtype)
full_counts = torch.bincount(assign, minlength=nlist)
offsets = torch.cat([torch.zeros(1, dtype=torch.long), full_counts.cumsum(0)])
print("offsets", offsets.tolist())
print("searchsorted left", torch.searchsorted(sorted_lists, torch.arange(nlist + 1)).tolist())
print("searchsorted right", torch.searchsorted(sorted_lists, torch.arange(nlist), right=True).tolist())
print("side", torch.searchsorted(sorted_lists, torch.arange(nlist), side="right", out_int32=True))
print("bucketize", torch.bucketize(torch.tensor([0, 2, 3, 4]), offsets[1:], right=True).tolist())
print("sorter", torch.searchsorted(assign, torch.tensor([2, 3]), sorter=order).tolist())

# unique with everything, and unique over rows
u, ui, uc = torch.unique(assign, sorted=True, return_inverse=True, return_counts=True)
print("unique", u.tolist(), uc.tolist(), torch.equal(u[ui], assign))
pairs = torch.stack([assign[:8], assign[:8] % 2], 1)
print("unique dim0", torch.unique(pairs, dim=0).tolist())
print(
    "unique_consecutive dim", torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 0], [1, 1]]), dim=0).tolist()
)
print("unique empty", torch.unique(torch.tensor([], dtype=torch.long), return_counts=True))

# search: probe the nprobe closest lists, gather their ids, exact distances within
xq = torch.randn(2, d)
nprobe = 2
probe = torch.cdist(xq, coarse).topk(nprobe, largest=False).indices
print("probe", probe.tolist())
for qi in range(2):
    starts, ends = offsets[probe[qi]], offsets[probe[qi] + 1]
    ids = torch.cat([order[s:e] for s, e in zip(starts.tolist(), ends.tolist())])
    dist = ((xb[ids] - xq[qi]) ** 2).sum(1)
    k = min(3, ids.numel())
    top = dist.topk(k, largest=False)
    print(
        "query", qi, "cands", ids.numel(), "top ids", ids[top.indices].tolist(), top.values.round(decimals=4).tolist()
    )

# vectorised candidate mask over all lists with repeat_interleave
lens = offsets[probe + 1] - offsets[probe]
qid = torch.arange(2).repeat_interleave(lens.sum(1))
print("lens", lens.tolist(), "qid", qid.tolist()[:6], qid.shape)
starts = offsets[probe].flatten().repeat_interleave(lens.flatten())
within = torch.arange(lens.sum()) - (lens.flatten().cumsum(0) - lens.flatten()).repeat_interleave(lens.flatten())
cand = order[starts + within]
print("cand", cand.tolist()[:8])
print("repeat_interleave output_size", torch.repeat_interleave(torch.tensor([2, 0, 1]), output_size=3).tolist())

# int32 ids as FAISS stores them
ids32 = order.to(torch.int32)
print("int32 index", xb[ids32[:3]].shape, (ids32 + 1).dtype, (ids32 * 2.5).dtype, ids32.sum().dtype)
print("int32 cumsum", ids32.cumsum(0).dtype, ids32.cumsum(0, dtype=torch.int32).dtype)

# empty list corners
e = torch.tensor([], dtype=torch.long)
print("empty cat", torch.cat([order[0:0], order[5:5]]).shape, xb[e].shape)
print("empty topk", torch.empty(0).topk(0))
print("empty bincount", torch.bincount(e).tolist(), torch.bincount(e, minlength=3).tolist())
print("empty cumsum", e.cumsum(0).shape, torch.searchsorted(e, torch.tensor([1])).tolist())

for fn in (
    lambda: torch.searchsorted(sorted_lists, torch.arange(3), side="left", right=True),
    lambda: torch.searchsorted(sorted_lists.float(), torch.arange(3)),
    lambda: torch.searchsorted(sorted_lists.view(5, 6), torch.arange(3)),
    lambda: torch.bucketize(torch.tensor([1]), offsets.view(2, 4)),
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(assign.float()),
    lambda: torch.empty(0).topk(1),
    lambda: torch.repeat_interleave(torch.tensor([2, -1])),
    lambda: torch.unique_consecutive(torch.tensor([[1, 2]]), dim=2),
):
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
