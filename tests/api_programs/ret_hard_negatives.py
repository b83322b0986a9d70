"""Hard-negative mining for dense retrieval (ANCE/RocketQA style): top-k from a retriever with the positives masked
out, false-negative filtering by a score margin, sampling negatives with multinomial, and margin/triplet/
cosine-embedding ranking losses with their reductions and errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

nq, nd, dim = 4, 12, 6
q = F.normalize(torch.randn(nq, dim, dtype=torch.float64), dim=-1)
d = F.normalize(torch.randn(nd, dim, dtype=torch.float64), dim=-1)
pos = torch.tensor([[0, 5], [3, -1], [7, 8], [11, -1]])  # -1 pads the positive lists
scores = q @ d.T

# mask the positives with scatter_ on a padded index (index -1 sent to a dummy column)
safe = pos.clone()
safe[safe < 0] = nd
is_pos = torch.zeros(nq, nd + 1, dtype=torch.bool).scatter_(1, safe, True)[:, :nd]
print("is_pos", is_pos.int().tolist())
masked = scores.masked_fill(is_pos, float("-inf"))
hard = masked.topk(3, dim=1)
print("hard negs", hard.indices.tolist())
print("hard scores", hard.values)

# false-negative filter: drop negatives scoring above the positive's score minus a margin
pos_score = scores.gather(1, safe.clamp(max=nd - 1)).masked_fill(pos < 0, float("inf")).amin(1, keepdim=True)
print("pos score", pos_score.squeeze(1))
keep = hard.values < pos_score - 0.05
print("keep", keep.tolist(), keep.sum().item())

# sampling from the top-k by softmax weights, without replacement
torch.manual_seed(1)
probs = masked.div(0.1).softmax(-1)
print("probs rows sum", probs.sum(1).tolist(), probs[0, is_pos[0]].tolist())
sampled = torch.multinomial(probs, 2, replacement=False)
print("sampled", sampled.shape, sampled.dtype, bool(is_pos.gather(1, sampled).any()))
print("multinomial on zeros row", end=" ")
try:
    torch.multinomial(torch.zeros(2, 3), 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(probs, 11, replacement=False)
    print("ok")
except Exception as e:
    print(type(e).__name__, e)

# losses
s_pos = scores[torch.arange(nq), pos[:, 0]].float()
s_neg = hard.values[:, 0].float()
y = torch.ones(nq)
print("margin ranking", round(F.margin_ranking_loss(s_pos, s_neg, y, margin=0.2).item(), 4))
print("margin none", F.margin_ranking_loss(s_pos, s_neg, -y, margin=0.1, reduction="none"))
mrl = nn.MarginRankingLoss(margin=0.3, reduction="sum")
print(mrl, round(mrl(s_pos, s_neg, y).item(), 4))

qa, pa, na = q.float(), d[pos[:, 0]].float(), d[hard.indices[:, 0]].float()
for swap in (False, True):
    print("triplet swap", swap, round(F.triplet_margin_loss(qa, pa, na, margin=0.5, p=2, swap=swap).item(), 4))
tl = nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=0.4)
print(tl.margin, round(tl(qa, pa, na).item(), 4))
print("pairwise", F.pairwise_distance(qa, pa, eps=1e-6, keepdim=True).shape, F.pairwise_distance(qa, qa).tolist())
cel = nn.CosineEmbeddingLoss(margin=0.1)
target = torch.tensor([1, -1, 1, -1])
print("cosine emb", round(cel(qa, torch.where(target[:, None] > 0, pa, na), target).item(), 4))
print("cosine emb none", F.cosine_embedding_loss(qa, na, -torch.ones(4), reduction="none"))
print(
    "cos sim eps",
    F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3)).tolist(),
    F.cosine_similarity(qa[:1], pa, dim=1).shape,
)
print("hinge", F.hinge_embedding_loss(1 - (qa * na).sum(1), torch.tensor([1, -1, -1, 1]), margin=1.0).item())
print("soft margin", round(F.soft_margin_loss(s_pos - s_neg, y).item(), 4))
lg = torch.stack([s_pos, s_neg, hard.values[:, 1].float()], 1)
print("multi margin", round(F.multi_margin_loss(lg, torch.zeros(4, dtype=torch.long), margin=0.5).item(), 4))
print(
    "multi margin p2 w",
    round(
        F.multi_margin_loss(lg, torch.zeros(4, dtype=torch.long), p=2, weight=torch.tensor([2.0, 1.0, 1.0])).item(), 4
    ),
)

# gradients of the in-place mask through the ranking loss
sc = scores.clone().float().requires_grad_()
neg = sc.masked_fill(is_pos, -1e4).max(1).values
loss = F.relu(0.2 - sc[torch.arange(nq), pos[:, 0]] + neg).mean()
loss.backward()
print("grad nnz per row", (sc.grad != 0).sum(1).tolist(), round(sc.grad.abs().sum().item(), 4))

for fn in (
    lambda: F.margin_ranking_loss(s_pos, s_neg[:3], y),
    lambda: F.triplet_margin_loss(qa, pa, na[:, :3]),
    lambda: F.cosine_embedding_loss(qa, pa, torch.ones(3)),
    lambda: F.multi_margin_loss(lg, torch.zeros(4, dtype=torch.long), p=3),
    lambda: torch.zeros(2, 3).scatter_(1, torch.tensor([[0, 3]]), 1.0),
    lambda: masked.topk(3, dim=1, largest=True, sorted=True).values.dtype,
    lambda: nn.MarginRankingLoss()(s_pos, s_neg, y.long()),
):
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
