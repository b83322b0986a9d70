"""Locality-sensitive hashing and k-means++ for candidate generation: random-hyperplane signatures packed into
int64 bucket keys by shifts, bucket collisions through unique/sort, multi-table candidate unions, k-means++ seeding
with multinomial, balanced assignment counts, and the overflow/shift corners of int64 hashing."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

n, d, bits, tables = 40, 8, 6, 3
x = F.normalize(torch.randn(n, d, dtype=torch.float64), dim=1)
planes = torch.randn(tables, d, bits, dtype=torch.float64)
sig = (torch.einsum("nd,tdb->tnb", x, planes) > 0).long()
keys = (sig << torch.arange(bits)).sum(-1)
print("keys", keys.shape, keys.dtype, keys[0, :8].tolist(), int(keys.max()) < 2**bits)
for t in range(tables):
    u, inv, cnt = torch.unique(keys[t], return_inverse=True, return_counts=True)
    print("table", t, "buckets", u.numel(), "largest", cnt.max().item(), "singletons", (cnt == 1).sum().item())

# candidates for a query: union over tables of its buckets, then exact rerank
q = F.normalize(x[3] + 0.1 * torch.randn(d, dtype=torch.float64), dim=0)
qk = ((torch.einsum("d,tdb->tb", q, planes) > 0).long() << torch.arange(bits)).sum(-1)
hits = (keys == qk[:, None]).any(0)
cand = hits.nonzero().squeeze(1)
print("candidates", cand.tolist())
best = cand[(x[cand] @ q).argsort(descending=True)[:3]]
print("reranked", best.tolist(), "exact", (x @ q).topk(3).indices.tolist())

# sort-based grouping of a table: argsort keys, boundaries by diff
order = keys[0].argsort(stable=True)
sk = keys[0][order]
starts = torch.cat([torch.tensor([True]), sk[1:] != sk[:-1]]).nonzero().squeeze(1)
print("bucket starts", starts.tolist()[:8], torch.diff(torch.cat([starts, torch.tensor([n])])).tolist()[:8])

# hamming distance between signatures via xor and a bit count
xorv = keys[0, :5, None] ^ keys[0, None, :5]
pop = torch.zeros_like(xorv)
for b in range(bits):
    pop += (xorv >> b) & 1
print("hamming\n", pop)

# int64 hashing corners: multiply-shift hashing overflows and wraps like C
a = torch.tensor(0x9E3779B97F4A7C15 - 2**64, dtype=torch.int64)
h = (torch.arange(5, dtype=torch.int64) * a) >> 58
print("mult-shift", h.tolist(), (torch.arange(5) * a).tolist()[:2])
print(
    "shift 63",
    (torch.tensor([1]) << 63).tolist(),
    (torch.tensor([-1]) >> 63).tolist(),
    (torch.tensor([1]) << 64).tolist(),
)
print(
    "remainder",
    torch.remainder(torch.tensor([-7, 7]), 5).tolist(),
    torch.fmod(torch.tensor([-7, 7]), 5).tolist(),
    (torch.tensor([-7]) % 5).tolist(),
    torch.tensor([-7]).div(2, rounding_mode="floor").tolist(),
)

# k-means++ seeding and Lloyd steps
torch.manual_seed(1)
k = 4
cent = x[torch.randint(n, (1,))]
for _ in range(k - 1):
    d2 = torch.cdist(x, cent).min(1).values ** 2
    cent = torch.cat([cent, x[torch.multinomial(d2 / d2.sum(), 1)]])
print("seeds", cent.shape, torch.cdist(cent, cent).fill_diagonal_(float("inf")).min().item() > 0)
for it in range(3):
    assign = torch.cdist(x, cent).argmin(1)
    counts = torch.bincount(assign, minlength=k)
    cent = torch.zeros(k, d, dtype=torch.float64).index_add_(0, assign, x) / counts.clamp(min=1)[:, None]
    cent = F.normalize(cent, dim=1)
    print("iter", it, counts.tolist(), round((x * cent[assign]).sum(1).mean().item(), 4))
mean_sr = torch.zeros(k, d, dtype=torch.float64).scatter_reduce(
    0, assign[:, None].expand(-1, d), x, "mean", include_self=False
)
print("scatter mean", torch.allclose(F.normalize(mean_sr, dim=1), cent))

for fn in (
    lambda: sig.float() << 1,
    lambda: keys[0] >> torch.tensor([1.0]),
    lambda: torch.multinomial(torch.tensor([0.0, -1.0]), 1),
    lambda: torch.multinomial(torch.tensor([[0.5, 0.5]]), 3),
    lambda: torch.cdist(x, cent.float()),
    lambda: torch.zeros(2).index_add_(0, torch.tensor([0, 2]), torch.ones(2)),
):
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:120])
