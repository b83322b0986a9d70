"""IR evaluation as pytrec_eval/ir_measures compute it in torch: MRR@k, Recall@k, Precision@k, MAP, nDCG@k with
graded relevance (exp2 and linear gains), tie-aware expected metrics by averaging over tied groups, and the
sort/cumsum/quantile corners such code hits (stable sorts, NaN scores, ties in topk, empty qrels)."""

import torch

torch.set_printoptions(precision=4)

scores = torch.tensor(
    [
        [0.9, 0.8, 0.8, 0.3, 0.1, 0.8],
        [0.2, 0.2, 0.2, 0.2, 0.9, 0.1],
        [0.5, float("nan"), 0.7, 0.1, 0.0, -0.3],
    ],
    dtype=torch.float64,
)
qrels = torch.tensor([[0, 2, 0, 1, 0, 3], [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]])
k = 3

order = torch.sort(scores, dim=1, descending=True, stable=True).indices
print("order", order.tolist())
print("argsort agrees", torch.equal(order, scores.argsort(dim=1, descending=True, stable=True)))
rel = qrels.gather(1, order)
binrel = (rel > 0).to(torch.float64)
print("rel", rel.tolist())

# MRR@k: first relevant rank via argmax over a boolean, guarded when none is relevant
hit = binrel[:, :k] > 0
first = hit.int().argmax(1)
mrr = torch.where(hit.any(1), 1.0 / (first + 1).double(), torch.zeros(3, dtype=torch.float64))
print("MRR@3", mrr.tolist())

# precision, recall, AP
ranks = torch.arange(1, scores.shape[1] + 1, dtype=torch.float64)
prec = binrel.cumsum(1) / ranks
nrel = (qrels > 0).sum(1)
print("P@3", (binrel[:, :k].sum(1) / k).tolist())
recall = binrel[:, :k].sum(1) / nrel.clamp(min=1)
print("R@3", recall.tolist(), recall.dtype)
ap = (prec * binrel).sum(1) / nrel
print("AP", ap.tolist(), "MAP (nan-safe)", ap.nanmean().item(), torch.nan_to_num(ap).mean().item())

# nDCG@k with exp2 gains and log2 discounts
disc = 1.0 / torch.log2(ranks + 1)
gains = torch.exp2(rel.double()) - 1
dcg = (gains * disc)[:, :k].sum(1)
ideal = torch.sort(qrels, dim=1, descending=True).values
idcg = ((torch.exp2(ideal.double()) - 1) * disc)[:, :k].sum(1)
ndcg = dcg / idcg
print("nDCG@3", ndcg.round(decimals=4).tolist())
print("nDCG safe", torch.where(idcg > 0, dcg / idcg, 0.0).round(decimals=4).tolist())
print("linear", ((rel * disc)[:, :k].sum(1) / (ideal * disc)[:, :k].sum(1)).round(decimals=4).tolist())

# tie-aware DCG (McSherry & Najork): average the gain over each tied group of scores
row = scores[0]
srt, idx = row.sort(descending=True, stable=True)
vals, inv, counts = torch.unique_consecutive(srt, return_inverse=True, return_counts=True)
g = torch.exp2(qrels[0, idx].double()) - 1
group_mean = torch.zeros(len(vals), dtype=torch.float64).index_add_(0, inv, g) / counts
tie_dcg = (group_mean[inv] * disc).sum()
print("groups", vals.tolist(), counts.tolist(), "tie-aware DCG", round(tie_dcg.item(), 4))
print(
    "scatter_reduce mean",
    torch.zeros(len(vals), dtype=torch.float64).scatter_reduce(0, inv, g, "mean", include_self=False).tolist(),
)
print(
    "index_reduce amax",
    torch.full((len(vals),), -1.0, dtype=torch.float64).index_reduce_(0, inv, g, "amax", include_self=False).tolist(),
)

# ties in topk vs sort, and ranks with average/min/dense methods
t = torch.tensor([0.2, 0.2, 0.2, 0.2, 0.9, 0.1])
print("topk on ties", t.topk(3).indices.tolist(), t.topk(3, largest=False).indices.tolist())
print("kthvalue", torch.kthvalue(t, 3), "mode", torch.mode(t))
print("median", t.median(), torch.median(t.view(2, 3), dim=1))
srt_t, pos = t.sort()
dense = torch.unique(t, return_inverse=True)[1]
print("dense rank", dense.tolist())
mn = torch.searchsorted(srt_t, t)
mx = torch.searchsorted(srt_t, t, right=True)
print("min rank", (mn + 1).tolist(), "avg rank", ((mn + mx + 1) / 2).tolist())
print("cummax ties", torch.cummax(torch.tensor([1, 3, 3, 2, 3]), 0))
print("cummin ties", torch.cummin(torch.tensor([2.0, 1.0, 1.0, float("nan"), 0.5]), 0))

# NaN scores: sort puts them first in descending order, topk treats NaN as largest
print("nan sort desc", scores[2].sort(descending=True).indices.tolist(), scores[2].topk(2).indices.tolist())
print("nan argmax", scores[2].argmax().item(), scores[2].nan_to_num(nan=-1e9).argmax().item())
print("nanmedian", scores[2].nanmedian().item(), scores[2].median().item())
print(
    "quantiles",
    torch.quantile(scores[0], torch.tensor([0.25, 0.5], dtype=torch.float64), interpolation="nearest").tolist(),
    torch.quantile(scores[0], 0.5, interpolation="midpoint").item(),
    torch.nanquantile(scores[2], 0.5).item(),
)

# half-precision scores: topk/sort keep the dtype, cumsum of float16 stays float16
h = scores[:2].half()
print("half", h.topk(2).values, h.sort(stable=True, descending=True).indices.tolist(), binrel.half().cumsum(1).dtype)
print(
    "bool sort",
    torch.tensor([True, False, True]).sort(),
    torch.tensor([True, False, True]).int().argsort(descending=True, stable=True),
)

for fn in (
    lambda: scores.topk(7),
    lambda: scores.sort(dim=2),
    lambda: torch.quantile(scores[0], 1.5),
    lambda: torch.quantile(scores[0].float(), torch.tensor([0.5], dtype=torch.float64)),
    lambda: torch.quantile(scores[0], 0.5, interpolation="mean"),
    lambda: torch.kthvalue(t, 0),
    lambda: qrels.float().cumsum(1, dtype=torch.int64),
    lambda: torch.log2(ranks.long()).dtype,
):
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
