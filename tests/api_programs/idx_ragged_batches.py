"""Ragged batches handled with index arithmetic, as NLP and point-cloud code does it without nested tensors:
lengths to offsets with cumsum, segment ids with repeat_interleave, padding a flat token stream into (B, T) with
index_put_, the reverse with a bool mask, the last valid token per row with gather, per-segment mean/max/softmax
with scatter_reduce and index_add_, per-segment top-k through a sort on (segment, -value) keys, bucketing by
length with searchsorted, dedup with unique(return_inverse) and an embedding-bag style pooling; all checked
against Python loops."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)

lengths = torch.tensor([3, 1, 4, 2, 0, 5])
B = lengths.numel()
T = int(lengths.max())
N = int(lengths.sum())
flat = torch.randn(N)
print("lengths:", lengths, "N:", N, "T:", T)

# offsets and segment ids
offsets = torch.zeros(B + 1, dtype=torch.long)
offsets[1:] = lengths.cumsum(0)
seg = torch.repeat_interleave(torch.arange(B), lengths)
pos = torch.arange(N) - offsets[seg]
print("offsets:", offsets)
print("seg:", seg)
print("pos:", pos)

# pad into (B, T) and unpad with a mask
padded = torch.full((B, T), float("nan")).index_put_((seg, pos), flat)
mask = torch.arange(T)[None, :] < lengths[:, None]
print("padded:\n", padded)
print("mask:\n", mask.int())
print("unpad == flat:", torch.equal(padded[mask], flat))
loop = [flat[offsets[b]:offsets[b + 1]].tolist() for b in range(B)]
print("rows agree with loop:", all(padded[b, :lengths[b]].tolist() == loop[b] for b in range(B)))

# last valid token per row (empty rows fall back to index 0 and are masked)
last_idx = (lengths - 1).clamp(min=0)
last = padded.gather(1, last_idx[:, None]).squeeze(1)
last = torch.where(lengths > 0, last, torch.zeros(()))
print("last tokens:", last)

# segment statistics
sums = torch.zeros(B).index_add_(0, seg, flat)
means = sums / lengths.clamp(min=1)
maxs = torch.full((B,), float("-inf")).scatter_reduce(0, seg, flat, "amax", include_self=False)
mins = torch.zeros(B).scatter_reduce(0, seg, flat, "amin", include_self=False)
print("sums:", sums)
print("means:", means)
print("maxs:", maxs)
print("mins (empty keeps 0):", mins)
print("means vs nanmean of padded:", torch.allclose(means[lengths > 0], padded.nanmean(1)[lengths > 0]))
e = (flat - maxs[seg]).exp()
soft = e / torch.zeros(B).index_add_(0, seg, e)[seg]
print("segment softmax:", soft)
print("softmax per row sums:", torch.zeros(B).index_add_(0, seg, soft))
print("masked softmax agrees:", torch.allclose(padded.masked_fill(~mask, float("-inf")).softmax(1)[mask], soft))

# per-segment top-2: sort by (seg, -value) with a stable sort on value, then on segment
order = torch.argsort(-flat, stable=True)
order = order[torch.argsort(seg[order], stable=True)]
rank = torch.arange(N) - offsets[seg[order]]
keep = order[rank < 2]
print("top-2 per segment (seg, value):", list(zip(seg[keep].tolist(), [round(v, 4) for v in flat[keep].tolist()])))
top_loop = [sorted(r, reverse=True)[:2] for r in loop]
print("top-2 agrees:", [round(v, 4) for r in top_loop for v in r] == [round(v, 4) for v in flat[keep].tolist()])

# bucket rows by length for batching
edges = torch.tensor([1, 3, 5])
bucket = torch.bucketize(lengths, edges)
print("buckets:", bucket)
for bk in torch.unique(bucket).tolist():
    rows = (bucket == bk).nonzero(as_tuple=True)[0]
    width = int(lengths[rows].max()) if rows.numel() else 0
    print(f"  bucket {bk}: rows {rows.tolist()} width {width}")
print("searchsorted on offsets finds the row of token 7:", torch.searchsorted(offsets, 7, right=True).item() - 1,
      "seg[7]:", seg[7].item())

# embedding-bag style pooling of token ids, dedup with unique
ids = torch.randint(0, 6, (N,))
table = torch.randn(6, 3)
vocab, inv = torch.unique(ids, return_inverse=True)
print("ids:", ids)
print("vocab:", vocab, "inv:", inv)
compact = table[vocab]
emb = compact[inv]
bag = torch.zeros(B, 3).index_add_(0, seg, emb) / lengths.clamp(min=1)[:, None]
print("bag means:\n", bag)
ref = torch.nn.functional.embedding_bag(ids, table, offsets[:-1], mode="mean")
print("embedding_bag agrees:", torch.allclose(bag, ref, atol=1e-6))
mx = torch.nn.functional.embedding_bag(ids, table, offsets[:-1], mode="max")
print("embedding_bag max:\n", mx)

# gradient through the padding round trip
w = flat.clone().requires_grad_(True)
p = torch.zeros(B, T).index_put((seg, pos), w)
loss = (p * torch.arange(1.0, T + 1)).sum() + p.gather(1, last_idx[:, None]).sum()
loss.backward()
print("grad:", w.grad)
