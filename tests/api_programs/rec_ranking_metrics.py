"""Ranking metrics written by hand: HR@k, NDCG@k, MRR, MAP, AUC by ranks with ties, GAUC; checked against loops."""

import math

import torch

torch.manual_seed(51)
torch.set_printoptions(precision=4)

n_users, n_items = 6, 12
scores = torch.randn(n_users, n_items)
scores[2, 3] = scores[2, 4]  # a tie
relevance = (torch.rand(n_users, n_items) < 0.25).float()
relevance[0] = 0
relevance[0, 5] = 1
graded = relevance * torch.randint(1, 4, (n_users, n_items)).float()
print("relevant per user", relevance.sum(1).long().tolist())
print("graded row 1", graded[1].long().tolist())


def hit_rate_at_k(scores, rel, k):
    top = scores.topk(k, dim=1).indices
    return rel.gather(1, top).amax(1)


def ndcg_at_k(scores, gains, k):
    top = scores.topk(k, dim=1).indices
    discounts = 1.0 / torch.log2(torch.arange(2, k + 2, dtype=torch.float32))
    dcg = ((2 ** gains.gather(1, top) - 1) * discounts).sum(1)
    ideal = gains.sort(dim=1, descending=True).values[:, :k]
    idcg = ((2 ** ideal - 1) * discounts).sum(1)
    return torch.where(idcg > 0, dcg / idcg.clamp(min=1e-12), torch.zeros_like(dcg))


def mrr(scores, rel):
    order = scores.argsort(dim=1, descending=True)
    ranked = rel.gather(1, order)
    first = torch.argmax(ranked, dim=1)
    has = ranked.amax(1) > 0
    return torch.where(has, 1.0 / (first + 1).float(), torch.zeros(len(scores)))


def average_precision(scores, rel):
    order = scores.argsort(dim=1, descending=True)
    ranked = rel.gather(1, order)
    prec = ranked.cumsum(1) / torch.arange(1, rel.shape[1] + 1)
    return (prec * ranked).sum(1) / ranked.sum(1).clamp(min=1)


for k in (1, 3, 5):
    print(f"HR@{k}", hit_rate_at_k(scores, relevance, k).tolist(), f"NDCG@{k}", ndcg_at_k(scores, graded, k))
print("MRR", mrr(scores, relevance), "mean", round(mrr(scores, relevance).mean().item(), 4))
print("MAP", average_precision(scores, relevance))


# reference NDCG with plain Python loops
def ndcg_loop(s, g, k):
    order = sorted(range(len(s)), key=lambda j: -s[j])[:k]
    dcg = sum((2 ** g[j] - 1) / math.log2(r + 2) for r, j in enumerate(order))
    ideal = sorted(g, reverse=True)[:k]
    idcg = sum((2 ** v - 1) / math.log2(r + 2) for r, v in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


ref = [ndcg_loop(scores[u].tolist(), graded[u].tolist(), 5) for u in range(n_users)]
print("loop NDCG@5", [round(v, 4) for v in ref])
print("match", torch.allclose(ndcg_at_k(scores, graded, 5), torch.tensor(ref), atol=1e-5))


# AUC through the Mann-Whitney statistic with average ranks for ties
def rank_average(x):
    """1-based ranks, ties sharing their mean rank."""
    sorted_x, order = torch.sort(x, stable=True)
    ranks = torch.empty_like(x)
    ranks[order] = torch.arange(1, len(x) + 1, dtype=x.dtype)
    uniq, inverse, counts = torch.unique(sorted_x, return_inverse=True, return_counts=True)
    sums = torch.zeros(len(uniq), dtype=x.dtype).index_add_(0, inverse, torch.arange(1, len(x) + 1, dtype=x.dtype))
    mean_rank = sums / counts
    ranks[order] = mean_rank[inverse]
    return ranks


def auc(y_score, y_true):
    r = rank_average(y_score)
    n_pos = y_true.sum()
    n_neg = len(y_true) - n_pos
    return (r[y_true.bool()].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def auc_pairs(y_score, y_true):
    p = y_score[y_true.bool()].unsqueeze(1)
    n = y_score[~y_true.bool()].unsqueeze(0)
    return ((p > n).float() + 0.5 * (p == n).float()).mean()


y_s = torch.tensor([0.1, 0.4, 0.35, 0.8, 0.4, 0.7, 0.2, 0.4], dtype=torch.float64)
y_t = torch.tensor([0, 0, 1, 1, 1, 0, 0, 1], dtype=torch.float64)
print("ranks", rank_average(y_s).tolist())
print("auc ranks", round(auc(y_s, y_t).item(), 4), "auc pairs", round(auc_pairs(y_s, y_t).item(), 4))

flat_s = scores.flatten()
flat_y = relevance.flatten()
print("global auc", round(auc(flat_s, flat_y).item(), 4), round(auc_pairs(flat_s, flat_y).item(), 4))

# group AUC: per-user AUC weighted by impressions, skipping users with one class
per_user, weights = [], []
for u in range(n_users):
    y = relevance[u]
    if 0 < y.sum() < n_items:
        per_user.append(auc(scores[u], y))
        weights.append(float(n_items))
gauc = (torch.stack(per_user) * torch.tensor(weights)).sum() / sum(weights)
print("per-user auc", torch.stack(per_user), "gauc", round(gauc.item(), 4))

# precision/recall at k and the torch ops behind them
topk = scores.topk(4, dim=1)
print("topk values", topk.values[0], "indices", topk.indices[0].tolist())
hits = relevance.gather(1, topk.indices)
print("precision@4", (hits.sum(1) / 4).tolist())
print("recall@4", (hits.sum(1) / relevance.sum(1).clamp(min=1)).tolist())
kth = scores.kthvalue(n_items - 3, dim=1)
print("4th largest via kthvalue", torch.allclose(kth.values, topk.values[:, -1]))
sorted_idx = torch.argsort(scores[2], descending=True, stable=True)
print("stable argsort with tie", sorted_idx.tolist())
ranks_of_all = torch.empty_like(sorted_idx)
ranks_of_all[sorted_idx] = torch.arange(n_items)
print("rank of each item", ranks_of_all.tolist(), "double argsort", torch.equal(
    ranks_of_all, torch.argsort(sorted_idx)))

# leave-one-out protocol: 1 held-out positive among 99 sampled negatives
torch.manual_seed(52)
cand_scores = torch.randn(20, 100)
cand_scores[:, 0] += torch.linspace(0, 3, 20)
rank0 = (cand_scores[:, 1:] > cand_scores[:, :1]).sum(1)
print("held-out ranks", rank0.tolist())
print("HR@10", round((rank0 < 10).float().mean().item(), 4),
      "NDCG@10", round(torch.where(rank0 < 10, 1 / torch.log2(rank0.float() + 2), torch.tensor(0.0)).mean().item(), 4))
