"""sorting and searching in practice: retrieval metrics (recall@k, mAP, NDCG), quantile feature binning as gradient
boosting does it, calibration error with bucketize, batched searchsorted, NaN ordering, order statistics with
gradients, unique over dims, and the errors of these ops."""

import numpy as np
import torch

torch.set_printoptions(precision=4)
rng = np.random.default_rng(42)


def r(x, k=8):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


# retrieval: 4 queries x 10 documents, distinct scores
scores = torch.from_numpy(rng.permutation(40).reshape(4, 10).astype(np.float32) / 40 + 0.001)
relevant = torch.from_numpy(rng.random((4, 10)) < 0.3)
relevant[:, 0] = True
order = torch.argsort(scores, dim=1, descending=True)
ranked_rel = torch.take_along_dim(relevant, order, dim=1)
print("ranked relevance", ranked_rel.int().tolist())
for k in (1, 3, 5):
    hits = ranked_rel[:, :k].sum(1)
    print(f"recall@{k}", r(hits / relevant.sum(1)), f"precision@{k}", r(hits / k))
prec_at = ranked_rel.cumsum(1) / torch.arange(1, 11)
ap = (prec_at * ranked_rel).sum(1) / ranked_rel.sum(1)
print("AP", r(ap), "mAP", round(ap.mean().item(), 4))
first_hit = ranked_rel.int().argmax(1)
print("MRR", round((1.0 / (first_hit + 1)).mean().item(), 4), first_hit.tolist())
gains = torch.from_numpy(rng.integers(0, 4, (4, 10))).float()
disc = 1 / torch.log2(torch.arange(2, 12).float())
dcg = (torch.take_along_dim(gains, order, 1) * disc).sum(1)
ideal = (gains.sort(1, descending=True).values * disc).sum(1)
print("NDCG", r(dcg / ideal))
top_vals, top_idx = torch.topk(scores, 3, dim=1)
print("topk", r(top_vals, 6), torch.equal(top_idx, order[:, :3]))
print("take_along_dim flat", r(torch.take_along_dim(scores, torch.tensor([0, 39, 17]))))

# gradient-boosting style binning: quantile edges, bucketize, per-bin statistics
feat = torch.from_numpy(rng.gamma(2.0, 1.5, 200).astype(np.float32))
target = (feat > 3.0).float() + 0.1 * torch.from_numpy(rng.standard_normal(200).astype(np.float32))
edges = torch.quantile(feat, torch.linspace(0, 1, 9)[1:-1])
print("quantile edges", r(edges))
bins = torch.bucketize(feat, edges)
print("bins", bins.dtype, bins[:10].tolist(), torch.bucketize(feat, edges, out_int32=True).dtype)
counts = torch.bincount(bins, minlength=8)
sums = torch.bincount(bins, weights=target, minlength=8)
print("bin counts", counts.tolist(), "bin means", r(sums / counts))
print("bincount double weights", torch.bincount(bins, weights=target.double()).dtype)
hist = torch.histc(feat, bins=6, min=0, max=12)
print("histc", hist.tolist())
h = torch.histogram(feat, bins=5, range=(0.0, 10.0), weight=target.abs())
print("histogram weighted", r(h.hist), r(h.bin_edges))
hn = torch.histogram(feat.double(), bins=torch.tensor([0.0, 1.0, 2.0, 4.0, 20.0], dtype=torch.float64), density=True)
print("histogram density", r(hn.hist), hn.hist.dtype)
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print(
        "quantile",
        mode,
        r(
            torch.quantile(feat.reshape(20, 10), torch.tensor([0.1, 0.75]), dim=1, keepdim=True, interpolation=mode)[
                :, :2
            ],
            4,
        ),
    )

# calibration: expected calibration error with bucketize
conf = torch.from_numpy(rng.uniform(0.3, 1.0, 100).astype(np.float32))
correct = torch.from_numpy(rng.random(100)).float() < conf
bnd = torch.linspace(0, 1, 11)
b_id = torch.bucketize(conf, bnd, right=True) - 1
ece = torch.zeros(())
for b in torch.unique(b_id):
    m = b_id == b
    ece = ece + m.float().mean() * (conf[m].mean() - correct[m].float().mean()).abs()
print("ECE", round(ece.item(), 4), torch.unique(b_id).tolist())

# batched searchsorted: per-row CDFs for inverse-transform sampling
w = torch.from_numpy(rng.random((3, 6)).astype(np.float32))
cdf = torch.cumsum(w / w.sum(1, keepdim=True), 1)
u = torch.tensor([[0.05, 0.5, 0.95], [0.2, 0.4, 0.6], [0.0, 0.99, 1.0]])
print("cdf", r(cdf[0], 6))
print("inverse cdf", torch.searchsorted(cdf, u).tolist(), torch.searchsorted(cdf, u, side="right").tolist())
print(
    "searchsorted scalar",
    torch.searchsorted(cdf[0], 0.5),
    torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([[3], [6]])).tolist(),
)
print("searchsorted int/float", torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([2.5, 7.0])).tolist())

# NaN ordering and NaN-aware order statistics
xn = torch.tensor([[3.0, float("nan"), 1.0, 2.0], [float("nan"), float("nan"), 5.0, 4.0], [2.0, 1.0, 0.0, -1.0]])
print("sort nan", torch.sort(xn, 1).values.tolist(), torch.sort(xn, 1, descending=True).indices.tolist())
print("argsort stable", torch.argsort(torch.tensor([2.0, 1.0, 2.0, float("nan"), 1.0]), stable=True).tolist())
print("msort", torch.msort(xn).tolist())
print(
    "median nan",
    torch.median(xn, 1).values.tolist(),
    torch.nanmedian(xn, 1).values.tolist(),
    torch.nanmedian(xn, 1).indices.tolist(),
)
print("nanmedian all", torch.nanmedian(torch.full((3,), float("nan"))), torch.median(torch.tensor([])))
print("cummax nan", torch.cummax(xn, 1).values.tolist(), torch.cummax(xn, 1).indices.tolist())
print("cummin", torch.cummin(xn[2], 0))
print("max nan", torch.max(xn, 1).values.tolist(), torch.amax(xn[2]), torch.argmax(xn, 1).tolist())
print(
    "searchsorted nan",
    torch.searchsorted(torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1.5, float("nan")])).tolist(),
)
print("kthvalue", torch.kthvalue(xn[2], 2), torch.kthvalue(xn, 1, dim=1, keepdim=True).values.shape)
print("mode", torch.mode(torch.tensor([[1.5, 2.5, 1.5, 0.5], [3.0, 3.0, 3.0, 1.0]]), 1))
print("unique nan", torch.unique(torch.tensor([1.0, float("nan"), 1.0])).numel())

# gradients through order statistics
v = torch.tensor([0.3, -1.2, 2.5, 0.8, 1.1], requires_grad=True)
(torch.sort(v).values * torch.arange(5.0)).sum().backward()
print("sort grad", v.grad.tolist())
for name, fn in [
    ("median", lambda t: torch.median(t)),
    ("kthvalue", lambda t: torch.kthvalue(t, 2).values),
    ("quantile", lambda t: torch.quantile(t, 0.3)),
    ("topk", lambda t: torch.topk(t, 2).values.sum()),
    ("cummax", lambda t: torch.cummax(t, 0).values.sum()),
    ("logcumsumexp", lambda t: torch.logcumsumexp(t, 0)[-1]),
    ("nanmedian", lambda t: torch.nanmedian(t)),
    ("msort", lambda t: (torch.msort(t) ** 2)[0]),
    ("take_along_dim", lambda t: torch.take_along_dim(t, torch.tensor([4, 4, 0])).sum()),
]:
    v.grad = None
    fn(v).backward()
    print("grad", name, v.grad.tolist())
m2 = torch.tensor([[1.0, 4.0, 2.0], [3.0, 0.0, 5.0]], requires_grad=True)
torch.quantile(m2, torch.tensor([0.25, 0.5]), dim=1).sum().backward()
print("quantile dim grad", m2.grad.tolist())

# unique over dims, consecutive runs, nonzero
seqs = torch.tensor([[1, 2, 1, 2, 3], [0, 0, 0, 0, 9], [1, 2, 1, 2, 3]])
print("unique dim=0", torch.unique(seqs, dim=0, return_inverse=True, return_counts=True))
print("unique dim=1", torch.unique(seqs, dim=1, return_counts=True))
print("unique unsorted size", torch.unique(torch.tensor([3, 1, 3, 2]), sorted=False).sort().values.tolist())
runs = torch.tensor([[1, 1], [1, 1], [2, 2], [1, 1], [1, 1], [1, 1]])
print("unique_consecutive dim", torch.unique_consecutive(runs, dim=0, return_counts=True, return_inverse=True))
mask = relevant[:2, :5]
print("nonzero tuple", [t.tolist() for t in torch.nonzero(mask, as_tuple=True)], torch.argwhere(mask).shape)
print(
    "masked_select broadcast",
    r(torch.masked_select(scores[:2, :5], mask[:1])),
    torch.count_nonzero(mask, dim=0).tolist(),
)
print("nonzero empty", torch.nonzero(torch.zeros(2, 3)).shape, torch.nonzero(torch.tensor(5)).shape)

for bad in [
    lambda: torch.searchsorted(torch.tensor([[1.0, 2.0]]), torch.tensor([1.0, 2.0, 3.0])),
    lambda: torch.searchsorted(torch.tensor([1.0, 2.0]), torch.tensor([1.0]), side="left", right=True),
    lambda: torch.bucketize(torch.tensor([1.0]), torch.tensor([[1.0, 2.0]])),
    lambda: torch.kthvalue(torch.tensor([1.0, 2.0]), 3),
    lambda: torch.bincount(torch.tensor([1, -1])),
    lambda: torch.histc(torch.tensor([1, 2])),
    lambda: torch.unique(seqs, dim=2),
    lambda: torch.take_along_dim(scores, torch.tensor([[0]]), dim=5),
]:
    try:
        bad()
        print("no error")
    except (RuntimeError, IndexError, ValueError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:100])
