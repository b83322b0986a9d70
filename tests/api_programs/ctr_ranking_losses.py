"""Learning-to-rank losses for feeds: RankNet via logaddexp, LambdaRank's |dNDCG|, ListNet/ListMLE,
multi-label margins."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

# two queries, five candidates each, graded relevance 0-3 and -1 for padding
scores = torch.randn(2, 5, requires_grad=True)
rel = torch.tensor([[3.0, 0.0, 1.0, 2.0, 0.0], [0.0, 1.0, 0.0, 0.0, -1.0]])
valid = rel >= 0
print("scores", scores.detach().round(decimals=4).tolist())

# RankNet: softplus(-(s_i - s_j)) over pairs with rel_i > rel_j, written with logaddexp
diff = scores.unsqueeze(2) - scores.unsqueeze(1)
pair = (rel.unsqueeze(2) > rel.unsqueeze(1)) & valid.unsqueeze(2) & valid.unsqueeze(1)
ranknet = torch.logaddexp(torch.zeros(()), -diff)[pair].mean()
print("ranknet", round(ranknet.item(), 4), "pairs", int(pair.sum()))
print("grad_fn", torch.logaddexp(diff, torch.zeros(())).grad_fn.name(), torch.logaddexp2(diff, diff).grad_fn.name())
print("softplus form", torch.allclose(F.softplus(-diff)[pair].mean(), ranknet, atol=1e-6))
print(
    "bce form",
    torch.allclose(F.binary_cross_entropy_with_logits(diff[pair], torch.ones(int(pair.sum()))), ranknet, atol=1e-6),
)


def dcg(r, k=None):
    gains = 2 ** r.clamp(min=0) - 1
    disc = 1 / torch.log2(torch.arange(r.shape[-1], dtype=torch.float32) + 2)
    if k is not None:
        disc[k:] = 0
    return (gains * disc).sum(-1)


order = scores.detach().masked_fill(~valid, float("-inf")).argsort(dim=1, descending=True)
ranked = torch.gather(rel, 1, order)
ideal = rel.sort(dim=1, descending=True).values
ndcg = dcg(ranked) / dcg(ideal)
print("ndcg", ndcg.round(decimals=4).tolist(), "ndcg@3", (dcg(ranked, 3) / dcg(ideal, 3)).round(decimals=4).tolist())

# LambdaRank: weight each RankNet pair by |delta NDCG| of swapping the two
rank_pos = torch.empty_like(order)
rank_pos.scatter_(1, order, torch.arange(5).expand(2, 5))
disc = 1 / torch.log2(rank_pos.float() + 2)
gain = 2 ** rel.clamp(min=0) - 1
delta = ((gain.unsqueeze(2) - gain.unsqueeze(1)) * (disc.unsqueeze(2) - disc.unsqueeze(1))).abs() / dcg(ideal).view(
    2, 1, 1
)
lambda_loss = (delta * F.softplus(-diff))[pair].sum() / 2
lambda_loss.backward()
print("lambdarank", round(lambda_loss.item(), 4), "grad", scores.grad.round(decimals=4).tolist())
scores.grad = None

# ListNet (top-1 cross entropy) and ListMLE (Plackett-Luce likelihood)
s_masked = scores.masked_fill(~valid, float("-inf"))
target = F.softmax(rel.masked_fill(~valid, float("-inf")), dim=1)
listnet = -(target * F.log_softmax(s_masked, dim=1)).nan_to_num(0.0).sum(1).mean()
print("listnet", round(listnet.item(), 4))
print("kl form", round(F.kl_div(F.log_softmax(s_masked, 1)[:, :4], target[:, :4], reduction="batchmean").item(), 4))
perm = rel.masked_fill(~valid, -1e9).argsort(dim=1, descending=True)
s_sorted = torch.gather(scores, 1, perm)
tail_lse = torch.logcumsumexp(s_sorted.flip(1), dim=1).flip(1)
listmle = (tail_lse - s_sorted)[:, :4].sum(1).mean()
print("listmle", round(listmle.item(), 4), "logcumsumexp grad_fn", tail_lse.grad_fn.name())

# margin-based losses
pos_s, neg_s = scores[0, [0, 3]], scores[0, [1, 4]]
mr = F.margin_ranking_loss(pos_s, neg_s, torch.ones(2), margin=0.3)
print("margin ranking", round(mr.item(), 4), mr.grad_fn.name())
print(nn.MarginRankingLoss(margin=0.3, reduction="sum"))
ml_target = torch.tensor([[0, 3, 2, -1, 0], [1, -1, 0, 0, 0]])
mlm = F.multilabel_margin_loss(scores, ml_target)
print("multilabel margin", round(mlm.item(), 4), mlm.grad_fn.name())
print("none", F.multilabel_margin_loss(scores, ml_target, reduction="none").round(decimals=4).tolist())
mls = F.multilabel_soft_margin_loss(scores, (rel > 0).float())
print("multilabel soft margin", round(mls.item(), 4), mls.grad_fn.name())
hinge = F.hinge_embedding_loss(diff[pair], torch.ones(int(pair.sum())), margin=1.0)
print("hinge", round(hinge.item(), 4))
trip = F.triplet_margin_loss(scores[:, :2], scores[:, 2:4], scores[:, 3:5].detach(), margin=0.5, p=1)
print("triplet", round(trip.item(), 4), trip.grad_fn.name())

try:
    F.margin_ranking_loss(pos_s, neg_s[:1].expand(3), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.multilabel_margin_loss(scores, ml_target.float())
except Exception as e:
    print(type(e).__name__, e)
try:
    F.multilabel_margin_loss(scores, torch.tensor([[0, 7, -1, 0, 0], [0, 0, 0, 0, 0]]))
except Exception as e:
    print(type(e).__name__, e)
