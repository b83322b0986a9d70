"""Metric learning and ranking losses: triplet (with custom distances), cosine embedding, margin ranking, hinge
embedding, multi-label margin, multi-margin; every reduction, gradients, and the errors of bad targets."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(11)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def run(name, loss_fn, inputs, extra=()):
    """Every reduction of one loss, then the gradient of its mean with respect to each float input."""
    xs = [t.clone().requires_grad_(True) for t in inputs]
    vals = []
    for red in ("none", "mean", "sum"):
        out = loss_fn(*xs, *extra, reduction=red)
        vals.append(r(out, 4) if red == "none" else round(out.item(), 4))
    loss_fn(*xs, *extra, reduction="mean").backward()
    print(name, vals[0], vals[1], vals[2])
    print(name + "_grad", [r(x.grad, 4) for x in xs], [round(x.grad.abs().sum().item(), 4) for x in xs])


a, p, n = T(5, 8), T(5, 8), T(5, 8)
p, n = a + 0.6 * p, a + 0.9 * n  # positives near anchors, negatives a little farther
run("triplet", lambda *t, reduction: F.triplet_margin_loss(*t, margin=1.0, p=2, reduction=reduction), (a, p, n))
run(
    "triplet_swap_l1",
    lambda *t, reduction: F.triplet_margin_loss(*t, margin=0.5, p=1, swap=True, reduction=reduction),
    (a, p, n),
)
mod = nn.TripletMarginLoss(margin=2.0, eps=1e-4)
print("triplet_mod", mod, round(mod(a, p, n).item(), 4))


def cos_dist(x, y):
    return 1.0 - F.cosine_similarity(x, y)


for dist in (cos_dist, nn.PairwiseDistance(p=3), None):
    tl = nn.TripletMarginWithDistanceLoss(distance_function=dist, margin=0.4, swap=dist is None)
    print("twd", getattr(dist, "__name__", type(dist).__name__), round(tl(a, p, n).item(), 4))
run(
    "twd_fn",
    lambda *t, reduction: F.triplet_margin_with_distance_loss(
        *t, distance_function=cos_dist, margin=0.3, reduction=reduction
    ),
    (a, p, n),
)
twd_default = nn.TripletMarginWithDistanceLoss(margin=0.4)
print("twd_repr", twd_default, twd_default.distance_function)
pd = nn.PairwiseDistance(p=2, eps=1e-6, keepdim=True)
print("pairwise", pd, pd(a, p).shape, r(pd(a, p), 4))
print("cdist", r(torch.cdist(a[:3], n[:2], p=2), 6), r(torch.cdist(a[:3], n[:2], p=1), 4))

# cosine embedding: targets +1 / -1
x1, x2 = T(6, 4), T(6, 4)
y = torch.tensor([1, -1, 1, -1, -1, 1])
run("cos_emb", lambda u, v, reduction: F.cosine_embedding_loss(u, v, y, margin=0.2, reduction=reduction), (x1, x2))
print("cos_emb_float_target", round(nn.CosineEmbeddingLoss()(x1, x2, y.float()).item(), 4))
try:
    F.cosine_embedding_loss(x1, x2[:5], y)
except RuntimeError:
    print("cos_emb_err RuntimeError")

# margin ranking: x1 should rank higher where y = 1
s1, s2 = T(7), T(7)
yr = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0])
run("rank", lambda u, v, reduction: F.margin_ranking_loss(u, v, yr, margin=0.5, reduction=reduction), (s1, s2))
print("rank_mod", nn.MarginRankingLoss(margin=0.1), round(nn.MarginRankingLoss(0.1)(s1, s2, yr).item(), 4))

# hinge embedding: distances with +1 / -1 labels
d = T(8).abs()
yh = torch.tensor([1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0])
run("hinge", lambda u, reduction: F.hinge_embedding_loss(u, yh, margin=1.5, reduction=reduction), (d,))

# multi-label margin: target lists class indices, terminated by -1
logits = T(3, 5)
tgt = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4]])
run("mlm", lambda u, reduction: F.multilabel_margin_loss(u, tgt, reduction=reduction), (logits,))
print("mlm_1d", round(F.multilabel_margin_loss(logits[0], tgt[0]).item(), 4))
# multi-label soft margin
yml = torch.tensor([[1.0, 0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0, 1.0]])
wml = torch.tensor([1.0, 2.0, 0.5, 1.0, 1.0])
run("mlsm", lambda u, reduction: F.multilabel_soft_margin_loss(u, yml, weight=wml, reduction=reduction), (logits,))

# multi-class margin with p=1 and p=2, class weights
tc = torch.tensor([4, 0, 2])
run("mm_p1", lambda u, reduction: F.multi_margin_loss(u, tc, reduction=reduction), (logits,))
wc = torch.tensor([1.0, 0.5, 2.0, 1.0, 3.0])
run(
    "mm_p2",
    lambda u, reduction: F.multi_margin_loss(u, tc, p=2, margin=0.7, weight=wc, reduction=reduction),
    (logits,),
)
print("mm_mod", nn.MultiMarginLoss(p=2, margin=0.5))
try:
    F.multi_margin_loss(logits, tc, p=3)
except ValueError as e:
    print("mm_p3", type(e).__name__, str(e))
for bad in (
    lambda: F.multi_margin_loss(logits, tc.float()),
    lambda: F.multilabel_margin_loss(logits, tgt.int()),
    lambda: F.multilabel_margin_loss(logits, tgt + 3),
    lambda: F.margin_ranking_loss(s1, s2[:, None], yr),
    lambda: F.multi_margin_loss(logits, tc, weight=torch.ones(4)),
):
    try:
        bad()
    except RuntimeError as e:
        print("target_err", str(e))
print("rank_bcast_same_dim", round(F.margin_ranking_loss(s1, s2[:1], yr).item(), 4))
# soft margin
ys = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0])
run("soft_margin", lambda u, reduction: F.soft_margin_loss(u, ys, reduction=reduction), (s1,))

# a tiny embedding net trained with triplets mined from in-batch distances (hardest negative)
emb = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
with torch.no_grad():
    for prm in emb.parameters():
        prm.copy_(T(*prm.shape) * 0.4)
feats = T(12, 4)
labels = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
loss_fn = nn.TripletMarginLoss(margin=0.5)
for step in range(4):
    z = F.normalize(emb(feats), dim=1)
    dist = torch.cdist(z, z)
    same = labels[:, None] == labels[None, :]
    pos_idx = torch.where(same & ~torch.eye(12, dtype=torch.bool), dist, torch.full_like(dist, -1.0)).argmax(1)
    neg_idx = torch.where(same, torch.full_like(dist, 1e9), dist).argmin(1)
    loss = loss_fn(z, z[pos_idx], z[neg_idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("mine", step, round(loss.item(), 4), pos_idx.tolist()[:6], neg_idx.tolist()[:6])
print("emb_w", r(emb[2].weight))
print("OK")
